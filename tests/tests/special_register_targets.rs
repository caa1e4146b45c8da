//! The special registers of the launch (ISA 7.8 sections 10.8 to 10.31) and `mapa`/`getctarank`
//! (9.7.8.20, 9.7.8.21) on the GPU targets: each artefact passes its vendor's checks (`ptxas`
//! at the architecture the register needs, `spirv-val`, the AMDGPU code object's metadata).
//! SPIR-V reads the launch's registers from its launch arguments (`spirv_launch_arguments.rs`).

use ptxr_tests::vendor_checks::{code_object_notes, compile, Compiled, Validators};

/// Registers and instructions that every GPU target compiles (sm_90: the cluster registers).
const EVERY_TARGET: &str = r#".version 7.8
.target sm_90
.address_size 64

.shared .align 8 .b64 tile[4];

.visible .entry every_target(.param .u64 output)
{
    .reg .b32 %r<24>;
    .reg .b64 %rd<8>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %smid;
    mov.u32 %r2, %nsmid;
    mov.u32 %r3, %envreg7;
    mov.u32 %r4, %pm6;
    mov.u64 %rd2, %pm1_64;
    mov.u32 %r5, %reserved_smem_offset_cap;
    mov.u32 %r6, %clusterid.z;
    mov.u32 %r7, %nclusterid.x;
    mov.u32 %r8, %cluster_ctaid.y;
    mov.u32 %r9, %cluster_nctaid.z;
    mov.u32 %r10, %cluster_ctarank;
    mov.u32 %r11, %cluster_nctarank;
    mov.pred %p1, %is_explicit_cluster;
    selp.u32 %r12, 1, 0, %p1;
    mov.u64 %rd3, tile;
    mapa.shared::cluster.u64 %rd4, %rd3, %r10;
    getctarank.shared::cluster.u64 %r13, %rd4;
    cvta.shared.u64 %rd5, %rd3;
    mapa.u64 %rd6, %rd5, 0;
    getctarank.u64 %r14, %rd6;
    st.u64 [%rd6], %rd2;
    add.u32 %r1, %r1, %r2;
    add.u32 %r1, %r1, %r3;
    add.u32 %r1, %r1, %r4;
    add.u32 %r1, %r1, %r5;
    add.u32 %r1, %r1, %r6;
    add.u32 %r1, %r1, %r7;
    add.u32 %r1, %r1, %r8;
    add.u32 %r1, %r1, %r9;
    add.u32 %r1, %r1, %r11;
    add.u32 %r1, %r1, %r12;
    add.u32 %r1, %r1, %r13;
    add.u32 %r1, %r1, %r14;
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;

/// The launch's registers, at sm_80 (`%reserved_smem_offset_*` needs PTX ISA 7.6, newer than
/// LLVM's default for sm_80), with dynamic shared memory.
const LAUNCH: &str = r#".version 7.8
.target sm_80
.address_size 64

.extern .shared .align 16 .b8 dynamic_part[];

.visible .entry launch(.param .u64 output)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [output];
    mov.u64 %rd2, %gridid;
    mov.u32 %r1, %dynamic_smem_size;
    mov.u32 %r2, %total_smem_size;
    mov.u32 %r3, %reserved_smem_offset_begin;
    mov.u32 %r4, %reserved_smem_offset_end;
    add.u32 %r1, %r1, %r2;
    add.u32 %r1, %r1, %r3;
    add.u32 %r1, %r1, %r4;
    st.shared.u32 [dynamic_part], %r1;
    st.global.u32 [%rd1], %r1;
    st.global.u64 [%rd1+8], %rd2;
    ret;
}
"#;

fn check(source: &str, name: &str, targets: &[&str]) -> Vec<String> {
    let Some(validators) = Validators::find() else { return Vec::new() };
    let scratch = std::env::temp_dir().join(format!("ptxr-special-registers-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let mut problems = Vec::new();
    for &target in targets {
        match compile(source, target) {
            Compiled::Artefact(artefact) => {
                if let Err(message) = validators.check(target, name, source, &artefact, &scratch) {
                    problems.push(format!("{target}: {message}"));
                }
            }
            Compiled::Unsupported(messages) => problems.push(format!("{target}: unsupported {messages:?}")),
            Compiled::Rejected(message) => problems.push(format!("{target}: rejected {message}")),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    problems
}

#[test]
fn cluster_and_fixed_registers_pass_every_vendor_check() {
    let problems = check(EVERY_TARGET, "every_target", &["nvptx", "spirv", "amdgpu"]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn launch_registers_pass_ptxas_at_sm_80_spirv_val_and_the_amdgpu_checks() {
    let problems = check(LAUNCH, "launch", &["nvptx", "spirv", "amdgpu"]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn amdgpu_reads_the_dynamic_lds_size_that_the_runtime_fills() {
    let Compiled::Artefact(code_object) = compile(LAUNCH, "amdgpu") else { panic!("amdgpu did not compile") };
    let Some(notes) = code_object_notes(&code_object, "launch") else { return };
    // Code object v5 lists the hidden argument only when the kernel reads it.
    assert!(notes.contains("hidden_dynamic_lds_size"), "{notes}");
}

/// `%smid` and `%nsmid` alone, stored so that neither is unused.
const UNIT: &str = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry unit(.param .u64 output)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %smid;
    mov.u32 %r2, %nsmid;
    st.global.u32 [%rd1], %r1;
    st.global.u32 [%rd1+4], %r2;
    ret;
}
"#;

fn compile_for_amd(arch: &str, emit: Option<ptxr_lowering::Emit>) -> Vec<u8> {
    let description =
        ptxr_driver::target::describe("amdgpu", Some(arch), false).unwrap_or_else(|error| panic!("{error}"));
    let options = ptxr_driver::CompileOptions { target: description, emit, optimization: 2 };
    match ptxr_driver::compile_source(UNIT, "unit", &options) {
        Ok(artifact) => artifact.bytes,
        Err(failure) => panic!("%smid does not compile for {arch}: {failure:?}"),
    }
}

/// Sections 10.8 and 10.9 on AMDGPU: `%smid` is read from the wave's hardware id registers,
/// the fields of each generation (AMD's ISA manuals: `HW_ID` CU 11:8, SH 12, SE 14:13 on GCN
/// and CDNA, with `XCC_ID` 3:0 above them from gfx940; `HW_ID1` WGP 13:10, SA 16 and SE 19:18
/// on gfx10, 20:18 on gfx11; AMD's GC 12.0 register description: gfx12's `WAVE_HW_ID1` as
/// gfx11's), and `%nsmid` is 2 to the power of their total width, so that `%smid < %nsmid`.
/// A `-generic` processor reads its members' common layout (LLVM's list of members). A
/// processor whose layout ptxr does not know (gfx1250) reads no register and keeps one
/// multiprocessor. Each code object's metadata lists the kernel for the processor.
#[test]
fn amdgpu_reads_the_unit_from_the_hardware_id_registers() {
    let gfx10 = ["hwreg(HW_REG_HW_ID1, 18, 2)", "hwreg(HW_REG_HW_ID1, 16, 1)", "hwreg(HW_REG_HW_ID1, 10, 4)"];
    let gfx11 = ["hwreg(HW_REG_HW_ID1, 18, 3)", "hwreg(HW_REG_HW_ID1, 16, 1)", "hwreg(HW_REG_HW_ID1, 10, 4)"];
    // LLVM 22 names register 23 `HW_REG_WAVE_HW_ID1` on gfx12.
    let gfx12 =
        ["hwreg(HW_REG_WAVE_HW_ID1, 18, 3)", "hwreg(HW_REG_WAVE_HW_ID1, 16, 1)", "hwreg(HW_REG_WAVE_HW_ID1, 10, 4)"];
    let gcn = ["hwreg(HW_REG_HW_ID, 8, 7)"];
    let cdna3 = ["hwreg(HW_REG_XCC_ID, 0, 4)", "hwreg(HW_REG_HW_ID, 8, 7)"];
    let cases: [(&str, &[&str], u32); 12] = [
        ("gfx90a", &gcn, 7),
        ("gfx942", &cdna3, 11),
        ("gfx1030", &gfx10, 7),
        ("gfx1100", &gfx11, 8),
        ("gfx1200", &gfx12, 8),
        ("gfx1201", &gfx12, 8),
        ("gfx1250", &[], 0),
        ("gfx9-generic", &gcn, 7),
        ("gfx9-4-generic", &cdna3, 11),
        ("gfx10-1-generic", &gfx10, 7),
        ("gfx11-generic", &gfx11, 8),
        ("gfx12-generic", &gfx12, 8),
    ];
    for (arch, fields, bits) in cases {
        let assembly = String::from_utf8(compile_for_amd(arch, Some(ptxr_lowering::Emit::Assembly)))
            .unwrap_or_else(|error| panic!("{error}"));
        let reads: Vec<&str> = assembly.lines().filter(|line| line.contains("s_getreg_b32")).collect();
        assert_eq!(reads.len(), fields.len(), "{arch}: {reads:?}");
        for field in fields {
            assert!(reads.iter().any(|read| read.contains(field)), "{arch}: no {field} in {reads:?}");
        }
        let ir = String::from_utf8(compile_for_amd(arch, Some(ptxr_lowering::Emit::LlvmIr)))
            .unwrap_or_else(|error| panic!("{error}"));
        let count = 1u64 << bits;
        assert!(ir.contains(&format!("store i32 {count}")), "{arch}: %nsmid is not {count}:\n{ir}");
        let code_object = compile_for_amd(arch, None);
        assert_generic_code_object(arch, &code_object);
        let Some(notes) = code_object_notes(&code_object, &format!("amdgpu-unit-{arch}")) else {
            continue;
        };
        assert!(notes.contains(".name:           unit\n"), "{arch}: kernel missing:\n{notes}");
        let target = format!("amdhsa.target:   amdgcn-amd-amdhsa--{arch}\n");
        assert!(notes.contains(&target), "{arch}: not built for the processor:\n{notes}");
    }
}

/// A `-generic` processor's code object is version 6 or later, as AMD's loaders require (LLVM's
/// AMDGPUUsage: `EI_ABIVERSION` 4 is `ELFABIVERSION_AMDGPU_HSA_V6`, and bits 31:24 of
/// `e_flags` hold the generic version, at least 1); any other processor's is version 5
/// (`EI_ABIVERSION` 3), with no generic version.
fn assert_generic_code_object(arch: &str, code_object: &[u8]) {
    assert_eq!(&code_object[..4], b"\x7fELF", "{arch}: not an ELF file");
    let abi_version = code_object[8];
    let flags = u32::from_le_bytes([code_object[48], code_object[49], code_object[50], code_object[51]]);
    if arch.ends_with("-generic") {
        assert_eq!(abi_version, 4, "{arch}: not code object v6");
        assert!(flags >> 24 >= 1, "{arch}: no generic version in e_flags {flags:#x}");
    } else {
        assert_eq!(abi_version, 3, "{arch}: not code object v5");
        assert_eq!(flags >> 24, 0, "{arch}: a generic version in e_flags {flags:#x}");
    }
}

/// The forms ptxas 12.9 accepts that ptxr used to refuse, on every GPU target: `%aggr_smem_size`
/// (ISA 8.1, which NVPTX must then ask LLVM for on sm_90), `cvta{.to}.shared::cluster`,
/// `min`/`max` on 16-bit lanes and with `.relu`, `fma.rz`/`.rm` on `.bf16`, one-predicate
/// `setp.f16x2` and `isspacep` on a 32-bit register.
const ACCEPTED_SINCE: &str = r#".version 8.1
.target sm_90
.address_size 64

.extern .shared .align 16 .b8 dynamic_part[];

.visible .entry accepted(.param .u64 output)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .b16 %h<4>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [output];
    ld.global.u32 %r1, [%rd1];
    ld.global.u32 %r2, [%rd1+4];
    min.s16x2 %r3, %r1, %r2;
    max.relu.s16x2 %r3, %r3, %r2;
    max.u16x2 %r3, %r3, %r1;
    min.relu.s32 %r3, %r3, %r2;
    fma.rz.bf16x2 %r4, %r1, %r2, %r3;
    mov.b32 {%h1, %h2}, %r4;
    fma.rm.relu.bf16 %h3, %h1, %h2, %h1;
    mov.b32 %r4, {%h3, %h3};
    setp.lt.f16x2 %p1, %r4, %r1;
    isspacep.global %p2, %r2;
    and.pred %p1, %p1, %p2;
    cvta.to.shared::cluster.u64 %rd2, %rd1;
    cvta.shared::cluster.u64 %rd3, %rd2;
    mov.u32 %r5, %aggr_smem_size;
    @%p1 add.u32 %r5, %r5, 1;
    cvt.u32.u64 %r6, %rd3;
    add.u32 %r5, %r5, %r6;
    st.shared.u32 [dynamic_part], %r5;
    st.global.u32 [%rd1], %r5;
    st.global.u32 [%rd1+4], %r4;
    ret;
}
"#;

#[test]
fn forms_accepted_since_the_ptxas_sweep_pass_every_vendor_check() {
    let problems = check(ACCEPTED_SINCE, "accepted_since", &["nvptx", "spirv", "amdgpu"]);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
