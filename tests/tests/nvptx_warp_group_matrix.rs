//! `wgmma` on NVPTX (PTX ISA 8.0): at sm_90a, the one processor that has it, the output keeps
//! `wgmma.fence`, `wgmma.mma_async`, `wgmma.commit_group` and `wgmma.wait_group` themselves, with
//! D's registers chained from one `wgmma.mma_async` to the next; at plain sm_90, which lacks
//! them, it has none of them (the emulation of `warp_group_matrix.rs`, whose results
//! `execute_warp_group_matrix.rs` checks on the CPU; checked here for N up to 64). ptxas 12.9
//! assembles both, for every type family, A from a descriptor and from registers, and N up to
//! 256 (128 `.f32` registers of D).
//! Triton's sm_90 matrix products in `tests/fixtures/ptx` are checked the same way.

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_tests::vendor_checks::ptxas_accepts;

/// One form: the instruction's modifiers after `wgmma.mma_async.sync.aligned`, whether A is in
/// registers, and the immediates after `scale-d`.
struct Form {
    modifiers: &'static str,
    a_in_registers: bool,
    immediates: &'static str,
}

const FORMS: &[Form] = &[
    Form { modifiers: ".m64n256k16.f32.f16.f16", a_in_registers: false, immediates: ", 1, -1, 0, 1" },
    Form { modifiers: ".m64n256k16.f16.f16.f16", a_in_registers: true, immediates: ", -1, 1, 1" },
    Form { modifiers: ".m64n128k16.f32.bf16.bf16", a_in_registers: false, immediates: ", 1, 1, 1, 0" },
    Form { modifiers: ".m64n8k16.f32.bf16.bf16", a_in_registers: true, immediates: ", 1, 1, 0" },
    Form { modifiers: ".m64n256k8.f32.tf32.tf32", a_in_registers: false, immediates: ", 1, 1" },
    Form { modifiers: ".m64n32k8.f32.tf32.tf32", a_in_registers: true, immediates: ", -1, -1" },
    Form { modifiers: ".m64n256k32.f32.e4m3.e4m3", a_in_registers: false, immediates: ", 1, 1" },
    Form { modifiers: ".m64n64k32.f16.e5m2.e4m3", a_in_registers: true, immediates: ", 1, -1" },
    Form { modifiers: ".m64n256k32.satfinite.s32.s8.u8", a_in_registers: false, immediates: "" },
    Form { modifiers: ".m64n24k32.s32.u8.u8", a_in_registers: true, immediates: "" },
];

impl Form {
    /// N and D's register type.
    fn shape(&self) -> (u32, &'static str) {
        let n: u32 = self.modifiers[5..].split('k').next().and_then(|n| n.parse().ok()).expect("a shape .m64nNkK");
        let d = if self.modifiers.contains(".f32.") {
            ".f32"
        } else if self.modifiers.contains(".s32.") {
            ".s32"
        } else {
            ".b32"
        };
        (n, d)
    }

    /// A kernel that zeroes D, runs two chained `wgmma.mma_async` of this form in one group
    /// (`scale-d` from a register compare), waits for it and stores every register of D. ISA 8.4,
    /// which mixed `.s8`/`.u8` needs.
    fn kernel(&self) -> String {
        let (n, d_type) = self.shape();
        let registers = if d_type == ".b32" { n / 4 } else { n / 2 };
        let d: Vec<String> = (1..=registers).map(|index| format!("%d{index}")).collect();
        let a = if self.a_in_registers { "{%a1, %a2, %a3, %a4}" } else { "%rd2" };
        let mut body = String::new();
        for register in &d {
            body += &format!("    mov.b32 {register}, 0;\n");
        }
        body += "    wgmma.fence.sync.aligned;\n";
        for _ in 0..2 {
            body += &format!(
                "    wgmma.mma_async.sync.aligned{} {{{}}}, {a}, %rd3, %p1{};\n",
                self.modifiers,
                d.join(", "),
                self.immediates
            );
        }
        body += "    wgmma.commit_group.sync.aligned;\n    wgmma.wait_group.sync.aligned 0;\n";
        for (index, register) in d.iter().enumerate() {
            body += &format!("    st.global.b32 [%rd1+{}], {register};\n", 4 * index);
        }
        format!(
            ".version 8.4
.target sm_90a
.address_size 64

.visible .entry product(.param .u64 out, .param .u64 a, .param .u64 b)
{{
    .reg .pred %p<2>;
    .reg {d_type} %d<{}>;
    .reg .b32 %a<5>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [a];
    ld.param.u64 %rd3, [b];
    cvta.to.global.u64 %rd1, %rd1;
    ld.global.b32 %a1, [%rd1];
    ld.global.b32 %a2, [%rd1+4];
    ld.global.b32 %a3, [%rd1+8];
    ld.global.b32 %a4, [%rd1+12];
    setp.ne.u64 %p1, %rd2, 0;
{body}    ret;
}}
",
            registers + 1
        )
    }
}

fn nvptx(source: &str, arch: &str) -> String {
    let options =
        CompileOptions { target: describe("nvptx", Some(arch), false).expect("NVPTX"), emit: None, optimization: 2 };
    let artifact =
        compile_source(source, "product", &options).unwrap_or_else(|failure| panic!("{arch}: {failure:?}\n{source}"));
    String::from_utf8(artifact.bytes).expect("NVPTX output is PTX text")
}

fn assert_ptxas_accepts(ptx: &str, arch: &str, name: &str) {
    if let Some(verdict) = ptxas_accepts(ptx.as_bytes(), arch, name) {
        verdict.unwrap_or_else(|error| panic!("ptxas -arch={arch}: {error}\n{ptx}"));
    }
}

/// The `wgmma` instructions of `ptx`, whitespace collapsed.
fn warp_group_lines(ptx: &str) -> Vec<String> {
    ptx.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| line.starts_with("wgmma."))
        .collect()
}

#[test]
fn sm_90a_keeps_each_form_and_sm_90_emulates_it() {
    for form in FORMS {
        let source = form.kernel();
        let name = format!("wgmma{}", form.modifiers.replace('.', "_"));

        let native = nvptx(&source, "sm_90a");
        let lines = warp_group_lines(&native);
        let instruction = format!("wgmma.mma_async.sync.aligned{} {{", form.modifiers);
        let products: Vec<&String> = lines.iter().filter(|line| line.starts_with(&instruction)).collect();
        assert_eq!(products.len(), 2, "{}: two `{instruction}` in\n{native}", form.modifiers);
        // The second reads the registers the first wrote: one accumulator chain.
        let accumulators = |line: &str| line.split('}').next().map(str::to_string);
        assert_eq!(accumulators(products[0]), accumulators(products[1]), "{}: {native}", form.modifiers);
        for instruction in
            ["wgmma.fence.sync.aligned;", "wgmma.commit_group.sync.aligned;", "wgmma.wait_group.sync.aligned 0;"]
        {
            assert!(
                lines.iter().any(|line| line == instruction),
                "{}: no `{instruction}` in\n{native}",
                form.modifiers
            );
        }
        // D's registers are pinned after the wait (and before the fence), so that LLVM keeps
        // the stores of D after the wait.
        let all: Vec<String> =
            native.lines().map(|line| line.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        let position = |text: &str| all.iter().position(|line| line == text);
        let wait = position("wgmma.wait_group.sync.aligned 0;").expect("a wait");
        let pinned = all.iter().rposition(|line| line == "// wgmma accumulators").expect("pinned accumulators");
        let first_store = all.iter().position(|line| line.starts_with("st.global")).expect("stores of D");
        assert!(wait < pinned && pinned < first_store, "{}: {native}", form.modifiers);
        assert_ptxas_accepts(&native, "sm_90a", &name);

        // The emulation of a wide product is minutes of LLVM's time; the narrow ones show it.
        if form.shape().0 <= 64 {
            let emulated = nvptx(&source, "sm_90");
            assert!(warp_group_lines(&emulated).is_empty(), "{}: `wgmma` at sm_90:\n{emulated}", form.modifiers);
            assert_ptxas_accepts(&emulated, "sm_90", &name);
        }
    }
}

/// Triton's sm_90 matrix products (f16 N=64, bf16 N=128, e4m3 N=64, tf32 N=32, each with A and B
/// from shared memory through descriptors): at sm_90a each keeps its `wgmma.mma_async`s.
#[test]
fn tritons_matrix_products_keep_their_wgmma_at_sm_90a() {
    for (file, instruction, count) in [
        ("triton_matmul_stages3.sm90.ptx", "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16", 2),
        ("triton_wgmma_bf16_n128.sm90.ptx", "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", 4),
        ("triton_wgmma_e4m3_n64.sm90.ptx", "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3", 2),
        ("triton_wgmma_tf32_n32.sm90.ptx", "wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32", 2),
    ] {
        let source = ptxr_tests::read_repository_file(&format!("tests/fixtures/ptx/{file}"));
        let native = nvptx(&source, "sm_90a");
        let found = warp_group_lines(&native).iter().filter(|line| line.starts_with(instruction)).count();
        assert_eq!(found, count, "{file}: `{instruction}` in\n{native}");
        assert_ptxas_accepts(&native, "sm_90a", file);
        let emulated = nvptx(&source, "sm_90");
        assert!(warp_group_lines(&emulated).is_empty(), "{file}: `wgmma` at sm_90");
    }
}
