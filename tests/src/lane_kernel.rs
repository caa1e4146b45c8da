//! Kernels for the warp-matrix tests: every thread loads its own fragment registers, runs one
//! instruction on them and stores its results, so a test can give each lane's inputs and read
//! back each lane's outputs.

/// `%NAME0, %NAME1, ...`: `count` registers of one name, as an operand list.
pub fn register_list(name: &str, count: usize) -> String {
    (0..count).map(|i| format!("%{name}{i}")).collect::<Vec<_>>().join(", ")
}

/// A kernel in which each thread loads the `.b32` registers of `inputs` (a name and a count
/// each, in that order, packed one after another per thread from `input`), runs `instruction`
/// (one line, naming them `%NAMEi`), and stores its `outputs` registers `%d0`, `%d1`, ... to
/// `output`.
pub fn per_lane_kernel(inputs: &[(&str, usize)], outputs: usize, instruction: &str) -> String {
    let mut declarations = String::new();
    let mut body = String::new();
    let mut offset = 0;
    for &(name, count) in inputs {
        declarations += &format!("    .reg .b32 %{name}<{count}>;\n");
        for i in 0..count {
            body += &format!("    ld.global.b32 %{name}{i}, [%rd4+{}];\n", 4 * (offset + i));
        }
        offset += count;
    }
    body += &format!("    {instruction}\n");
    for i in 0..outputs {
        body += &format!("    st.global.b32 [%rd6+{}], %d{i};\n", 4 * i);
    }
    format!(
        ".version 7.8
.target sm_80
.address_size 64
.visible .entry test(.param .u64 input, .param .u64 output)
{{
{declarations}    .reg .b32 %d<{outputs}>;
    .reg .b32 %r<2>;
    .reg .b64 %rd<7>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, {in_stride};
    add.u64 %rd4, %rd1, %rd3;
    mul.wide.u32 %rd5, %r1, {out_stride};
    add.u64 %rd6, %rd2, %rd5;
{body}    ret;
}}
",
        in_stride = 4 * offset,
        out_stride = 4 * outputs,
    )
}
