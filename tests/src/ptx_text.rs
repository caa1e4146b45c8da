//! PTX text that tests write the way nvcc does: string literals, calls of `__assertfail`, and
//! kernels that call `vprintf`.
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

/// A module of one kernel `test(.u64 output, .u64 text)` that calls `vprintf` with the format
/// `format` (a `.global` string) and CUDA's packed argument buffer `depot` (64 bytes of
/// `.local`, 8-aligned), then stores its result at `output[%tid.x]`. `body` fills the buffer:
/// in it `%r1` is the thread's index, `%depot` the buffer's `.local` address, `%text` the
/// `text` parameter, `built` a 32-byte `.local` array, and `%p1`-`%p3`, `%r2`-`%r6` and
/// `%rd1`-`%rd13` are free.
pub fn printf_kernel(globals: &str, format: &str, body: &str) -> String {
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n\
         .extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 arguments);\n\
         {}{globals}\
         .visible .entry test(.param .u64 output, .param .u64 text)\n{{\n\
         .local .align 8 .b8 depot[64];\n.local .align 8 .b8 built[32];\n\
         .reg .pred %p<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<16>;\n.reg .b64 %depot, %buffer, %text, %format;\n\
         mov.u32 %r1, %tid.x;\nmov.u64 %depot, depot;\ncvta.local.u64 %buffer, %depot;\n\
         ld.param.u64 %text, [text];\n\
         {body}\n\
         cvta.global.u64 %format, format;\n\
         {{\n.param .b64 param0;\nst.param.b64 [param0], %format;\n.param .b64 param1;\n\
         st.param.b64 [param1], %buffer;\n.param .b32 retval0;\ncall.uni (retval0), vprintf, (param0, param1);\n\
         ld.param.b32 %r7, [retval0];\n}}\n\
         ld.param.u64 %rd15, [output];\ncvta.to.global.u64 %rd15, %rd15;\nmul.wide.u32 %rd14, %r1, 4;\n\
         add.u64 %rd15, %rd15, %rd14;\nst.global.u32 [%rd15], %r7;\nret;\n}}\n",
        string_global("format", format)
    )
}
