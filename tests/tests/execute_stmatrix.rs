//! `stmatrix.sync.aligned.m8n8` (ISA 7.8) on the CPU and, where OpenCL is set up, as SPIR-V
//! through OpenCL. The model is the manual's fragment layout, the one `ldmatrix` has: with
//! `g = lane / 4` and `t = lane % 4`, lane `lane`'s register `i` holds elements `(g, 2t)` (low
//! half) and `(g, 2t + 1)` of matrix `i`, and lanes `8i` to `8i + 7` give the addresses of
//! rows 0 to 7 of matrix `i`; `.trans` stores each matrix transposed.

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_frontend::Code;
use ptxr_tests::{opencl, Buffer, Launch, Random};

const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

/// A kernel of one warp: lane `l` reads its registers `%s0..` from `input[4l..]`, gives the
/// address of `rows + 16l` (matrix `l / 8`, row `l % 8`) to `stmatrix`, waits for the warp, then
/// copies those 16 bytes to `output[4l..]`; `after` may read the rows back with `ldmatrix`
/// into `%d0..` and store them to `output[128 + 4l..]`.
fn kernel(store: &str, matrices: usize, shared: bool, after: &str) -> String {
    let sources = (0..matrices).map(|i| format!("%s{i}")).collect::<Vec<_>>().join(", ");
    let loads = (0..matrices).map(|i| format!("    ld.global.b32 %s{i}, [%rd4+{}];\n", 4 * i)).collect::<String>();
    let address = if shared { "%r3" } else { "%rd10" };
    format!(
        ".version 7.8
.target sm_90
.address_size 64
.shared .align 16 .b8 rows[512];
.visible .entry test(.param .u64 input, .param .u64 output)
{{
    .reg .b32 %s<4>;
    .reg .b32 %d<4>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %laneid;
    mul.wide.u32 %rd3, %r1, 16;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd6, %rd2, %rd3;
{loads}    mov.u32 %r2, rows;
    mad.lo.u32 %r3, %r1, 16, %r2;
    cvt.u64.u32 %rd9, %r3;
    cvta.shared.u64 %rd10, %rd9;
    {store} [{address}], {{{sources}}};
    bar.warp.sync 0xffffffff;
    ld.shared.v2.b64 {{%rd7, %rd8}}, [%r3];
    st.global.v2.b64 [%rd6], {{%rd7, %rd8}};
    add.u64 %rd11, %rd6, 512;
{after}    ret;
}}
"
    )
}

/// `ldmatrix` of the rows each lane gave, each register stored at `output[128 + 4l + i]`.
fn load_back(load: &str, matrices: usize) -> String {
    let list = (0..matrices).map(|i| format!("%d{i}")).collect::<Vec<_>>().join(", ");
    let stores = (0..matrices).map(|i| format!("    st.global.b32 [%rd11+{}], %d{i};\n", 4 * i)).collect::<String>();
    format!("    {load} {{{list}}}, [%r3];\n{stores}")
}

/// Element `(row, column)` of matrix `matrix` in the fragments `input` (four words per lane).
fn element(input: &[u32], matrix: usize, row: usize, column: usize) -> u16 {
    let word = input[4 * (4 * row + column / 2) + matrix];
    (word >> (16 * (column % 2))) as u16
}

/// The 512 bytes of rows, as 128 words: matrix `i`'s row `j` at words `4(8i + j)` to `+3`.
fn stored_rows(input: &[u32], matrices: usize, transpose: bool) -> Vec<u32> {
    let mut words = vec![0u32; 128];
    for matrix in 0..matrices {
        for row in 0..8 {
            for column in 0..8 {
                let value =
                    if transpose { element(input, matrix, column, row) } else { element(input, matrix, row, column) };
                let index = 4 * (8 * matrix + row) + column / 2;
                words[index] |= u32::from(value) << (16 * (column % 2));
            }
        }
    }
    words
}

fn run(ptx: &str, input: &[u32]) -> Vec<(&'static str, Vec<u32>)> {
    let buffers = [Buffer::u32s(input), Buffer::zeroed("u32", 256)];
    opencl::run_everywhere(ptx, &Launch::threads(32), &buffers, OPENCL_CHILD)
        .into_iter()
        .map(|(device, result)| (device, result[1].iter().map(|&bits| bits as u32).collect()))
        .collect()
}

fn fragments(seed: u64) -> Vec<u32> {
    let mut random = Random::new(seed);
    (0..128).map(|_| random.next_u32()).collect()
}

#[test]
fn every_form_stores_the_fragments_rows() {
    let forms = [
        ("stmatrix.sync.aligned.m8n8.x1.shared.b16", 1, true, false),
        ("stmatrix.sync.aligned.m8n8.x2.shared.b16", 2, true, false),
        ("stmatrix.sync.aligned.m8n8.x4.shared.b16", 4, true, false),
        ("stmatrix.sync.aligned.m8n8.x4.b16", 4, false, false),
        ("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16", 1, true, true),
        ("stmatrix.sync.aligned.m8n8.x2.trans.b16", 2, false, true),
        ("stmatrix.sync.aligned.m8n8.x4.trans.shared::cta.b16", 4, true, true),
    ];
    for (seed, (store, matrices, shared, transpose)) in forms.into_iter().enumerate() {
        let input = fragments(seed as u64 + 1);
        let expected = stored_rows(&input, matrices, transpose);
        for (device, output) in run(&kernel(store, matrices, shared, ""), &input) {
            // Rows of matrices the form does not store stay as the kernel found them: unchecked.
            let stored = 32 * matrices;
            assert_eq!(output[..stored], expected[..stored], "{device}: {store}");
        }
    }
}

/// Compiles `ptx` for the CPU; the diagnostics' codes when it fails.
fn diagnostic_codes(ptx: &str) -> Result<(), Vec<Code>> {
    let options = CompileOptions { target: describe("cpu", None, false).expect("cpu"), emit: None, optimization: 0 };
    match compile_source(ptx, "stmatrix", &options) {
        Ok(_) => Ok(()),
        Err(Failure::Diagnostics(diagnostics)) => Err(diagnostics.iter().map(|diagnostic| diagnostic.code).collect()),
        Err(Failure::Message(message)) => panic!("{message}"),
    }
}

#[test]
fn bad_forms_are_errors_and_the_m16n8_shape_is_unsupported() {
    let store = "stmatrix.sync.aligned.m8n8.x1.shared.b16";
    // ptxas wants `{r}` even for one matrix ("Vector of size 1 is expected").
    let plain = kernel(store, 1, true, "").replace("{%s0}", "%s0");
    let global = kernel("stmatrix.sync.aligned.m8n8.x1.global.b16", 1, true, "");
    let b32 = kernel("stmatrix.sync.aligned.m8n8.x1.shared.b32", 1, true, "");
    for ptx in [plain, global, b32] {
        let codes = diagnostic_codes(&ptx).expect_err("a bad stmatrix compiled");
        assert!(!codes.contains(&Code::Unsupported), "{codes:?}\n{ptx}");
    }
    let wide = kernel("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", 1, true, "");
    assert_eq!(diagnostic_codes(&wide), Err(vec![Code::Unsupported]));
}

#[test]
fn ldmatrix_reads_back_what_stmatrix_stored() {
    let input = fragments(21);
    for transpose in [false, true] {
        let trans = if transpose { ".trans" } else { "" };
        let store = format!("stmatrix.sync.aligned.m8n8.x4{trans}.shared.b16");
        let load = load_back(&format!("ldmatrix.sync.aligned.m8n8.x4{trans}.shared.b16"), 4);
        for (device, output) in run(&kernel(&store, 4, true, &load), &input) {
            assert_eq!(output[128..], input[..], "{device}: {store} then the same ldmatrix");
        }
    }
}

#[test]
fn ldmatrix_trans_of_stored_rows_gives_the_transposes_fragments() {
    let input = fragments(31);
    let load = load_back("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", 2);
    let ptx = kernel("stmatrix.sync.aligned.m8n8.x2.shared.b16", 2, true, &load);
    // Lane l's register i of the transpose: elements (2t, g) and (2t + 1, g) of matrix i.
    let expected: Vec<u32> = (0..32)
        .flat_map(|lane| {
            let (group, thread) = (lane / 4, lane % 4);
            (0..4).map(move |matrix| (lane, group, thread, matrix))
        })
        .map(|(_, group, thread, matrix)| {
            if matrix >= 2 {
                return 0;
            }
            let low = element(&input, matrix, 2 * thread, group);
            let high = element(&input, matrix, 2 * thread + 1, group);
            u32::from(low) | u32::from(high) << 16
        })
        .collect();
    for (device, output) in run(&ptx, &input) {
        assert_eq!(output[128..], expected[..], "{device}");
    }
}
