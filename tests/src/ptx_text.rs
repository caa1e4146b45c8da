//! PTX text that tests write the way nvcc does: string literals and calls of `__assertfail`.
//! The CLI tests of `ptxr-driver` include this file too (`driver/tests/support/mod.rs`), as
//! they cannot depend on this crate.

/// A NUL-terminated string as a `.global` byte array, as nvcc writes string literals.
pub fn string_global(name: &str, text: &str) -> String {
    let bytes: Vec<String> = text.bytes().chain([0]).map(|byte| byte.to_string()).collect();
    format!(".global .align 1 .b8 {name}[{}] = {{{}}};\n", bytes.len(), bytes.join(", "))
}

/// The `.extern` declaration of CUDA's `__assertfail`, as nvcc writes it.
pub const ASSERTFAIL_DECLARATION: &str = ".extern .func __assertfail (.param .b64 message, .param .b64 file, .param \
                                          .b32 line, .param .b64 function, .param .b64 char_size);\n";

/// A call of `__assertfail` in its own scope, as nvcc writes it, with the `.global` strings
/// `message`, `file` and `function` (see [`string_global`]) and source line `line`.
pub fn assertfail_call(line: u32) -> String {
    format!(
        "{{
    .reg .b64 %a<4>;
    cvta.global.u64 %a1, message;
    cvta.global.u64 %a2, file;
    cvta.global.u64 %a3, function;
    .param .b64 param0;
    st.param.b64 [param0], %a1;
    .param .b64 param1;
    st.param.b64 [param1], %a2;
    .param .b32 param2;
    st.param.b32 [param2], {line};
    .param .b64 param3;
    st.param.b64 [param3], %a3;
    .param .b64 param4;
    st.param.b64 [param4], 1;
    call.uni __assertfail, (param0, param1, param2, param3, param4);
    }}"
    )
}
