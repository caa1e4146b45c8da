//! Version and target gating against NVIDIA's assembler: for each probe, ptxr's verdict (E0301
//! for a `.version` too old, E0302 for a `.target` too old, nothing at the gate) must be what
//! ptxas 12.9 says ("requires PTX ISA .version", "requires .target"). ptxas is the independent
//! model here; skipped where it is not installed, unless `PTXR_REQUIRE_VALIDATORS=1`.

use std::process::Command;

use ptxr_frontend::Code;
use ptxr_tests::{repository_root, validator};

/// One instruction form at its gate: the ISA version and `sm_` target that introduced it, and an
/// older version and target just below.
struct Probe {
    instruction: &'static str,
    version: &'static str,
    sm: u32,
    older_version: &'static str,
    /// 0 where ptxas does not gate the target although the spec does (`::cta` needs sm_30 by
    /// section 9.7.8.8; ptxas 12.9 accepts it on sm_20), so that case is not compared.
    older_sm: u32,
}

const PROBES: &[Probe] = &[
    Probe {
        instruction: "lop3.b32 %r1, %r2, %r3, %r1, 0x96;",
        version: "4.3",
        sm: 50,
        older_version: "4.2",
        older_sm: 35,
    },
    Probe {
        instruction: "dp4a.u32.u32 %r1, %r2, %r3, %r1;",
        version: "5.0",
        sm: 61,
        older_version: "4.3",
        older_sm: 60,
    },
    Probe { instruction: "szext.wrap.u32 %r1, %r2, %r3;", version: "7.6", sm: 70, older_version: "7.5", older_sm: 62 },
    Probe { instruction: "bmsk.clamp.b32 %r1, %r2, %r3;", version: "7.6", sm: 70, older_version: "7.5", older_sm: 62 },
    Probe {
        instruction: "shfl.sync.down.b32 %r1, %r2, 1, 31, 0xffffffff;",
        version: "6.0",
        sm: 30,
        older_version: "5.0",
        older_sm: 20,
    },
    Probe {
        instruction: "vote.sync.ballot.b32 %r1, %p1, 0xffffffff;",
        version: "6.0",
        sm: 30,
        older_version: "5.0",
        older_sm: 20,
    },
    Probe {
        instruction: "match.any.sync.b32 %r1, %r2, 0xffffffff;",
        version: "6.0",
        sm: 70,
        older_version: "5.0",
        older_sm: 62,
    },
    Probe { instruction: "activemask.b32 %r1;", version: "6.2", sm: 30, older_version: "6.1", older_sm: 20 },
    Probe {
        instruction: "redux.sync.add.u32 %r1, %r2, 0xffffffff;",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe { instruction: "min.NaN.f32 %f1, %f2, %f3;", version: "7.0", sm: 80, older_version: "6.5", older_sm: 75 },
    Probe {
        instruction: "min.xorsign.abs.f32 %f1, %f2, %f3;",
        version: "7.2",
        sm: 86,
        older_version: "7.1",
        older_sm: 80,
    },
    Probe { instruction: "add.rn.bf16 %h1, %h2, %h3;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "mul.rn.bf16x2 %r1, %r2, %r3;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "add.f16 %h1, %h2, %h3;", version: "4.2", sm: 53, older_version: "4.1", older_sm: 52 },
    Probe { instruction: "setp.eq.f16 %p1, %h1, %h2;", version: "4.2", sm: 53, older_version: "4.1", older_sm: 52 },
    Probe { instruction: "set.eq.u32.f16 %r1, %h1, %h2;", version: "6.5", sm: 53, older_version: "6.4", older_sm: 52 },
    Probe {
        instruction: "setp.eq.bf16x2 %p1|%p2, %r1, %r2;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe {
        instruction: "ld.relaxed.gpu.global.u32 %r1, [%rd1];",
        version: "6.0",
        sm: 70,
        older_version: "5.0",
        older_sm: 62,
    },
    Probe {
        instruction: "st.release.gpu.global.u32 [%rd1], %r1;",
        version: "6.0",
        sm: 70,
        older_version: "5.0",
        older_sm: 62,
    },
    Probe {
        instruction: "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;",
        version: "7.4",
        sm: 80,
        older_version: "7.3",
        older_sm: 75,
    },
    Probe {
        instruction: "ld.global.L1::evict_last.u32 %r1, [%rd1];",
        version: "7.4",
        sm: 70,
        older_version: "7.3",
        older_sm: 62,
    },
    Probe {
        instruction: "ld.global.L2::64B.u32 %r1, [%rd1];",
        version: "7.4",
        sm: 75,
        older_version: "7.3",
        older_sm: 72,
    },
    Probe {
        instruction: "ld.global.L2::256B.u32 %r1, [%rd1];",
        version: "7.4",
        sm: 80,
        older_version: "7.3",
        older_sm: 75,
    },
    Probe { instruction: "ld.shared::cta.u32 %r1, [%rd1];", version: "7.8", sm: 30, older_version: "7.7", older_sm: 0 },
    Probe { instruction: "cvta.param.u64 %rd1, %rd2;", version: "7.7", sm: 70, older_version: "7.6", older_sm: 62 },
    Probe {
        instruction: "cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r1;",
        version: "6.5",
        sm: 72,
        older_version: "6.4",
        older_sm: 70,
    },
    Probe {
        instruction: "cvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r1;",
        version: "6.5",
        sm: 75,
        older_version: "6.4",
        older_sm: 72,
    },
    Probe {
        instruction: "cp.async.ca.shared.global [%rd1], [%rd2], 4;",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe { instruction: "cp.async.commit_group;", version: "7.0", sm: 80, older_version: "6.5", older_sm: 75 },
    Probe {
        instruction: "atom.global.cas.b16 %h1, [%rd1], %h2, %h3;",
        version: "6.3",
        sm: 70,
        older_version: "6.2",
        older_sm: 62,
    },
    Probe {
        instruction: "atom.global.add.noftz.f16 %h1, [%rd1], %h2;",
        version: "6.3",
        sm: 70,
        older_version: "6.2",
        older_sm: 62,
    },
    Probe {
        instruction: "atom.global.add.noftz.bf16 %h1, [%rd1], %h2;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe { instruction: "fence.acq_rel.gpu;", version: "6.0", sm: 70, older_version: "5.0", older_sm: 62 },
    Probe { instruction: "fence.proxy.alias;", version: "7.5", sm: 70, older_version: "7.4", older_sm: 62 },
    Probe { instruction: "bar.warp.sync 0xffffffff;", version: "6.0", sm: 30, older_version: "5.0", older_sm: 20 },
    Probe { instruction: "barrier.sync 0;", version: "6.0", sm: 30, older_version: "5.0", older_sm: 20 },
    Probe {
        instruction: "mbarrier.init.shared.b64 [%rd1], 32;",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe {
        instruction: "mbarrier.try_wait.shared.b64 %p1, [%rd1], %rd2;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe {
        instruction: "createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;",
        version: "7.4",
        sm: 80,
        older_version: "7.3",
        older_sm: 75,
    },
    Probe { instruction: "griddepcontrol.wait;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "mapa.u64 %rd1, %rd2, %r1;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "isspacep.param %p1, %rd1;", version: "7.7", sm: 70, older_version: "7.6", older_sm: 62 },
    Probe { instruction: "fns.b32 %r1, %r2, %r3, 1;", version: "6.0", sm: 30, older_version: "5.0", older_sm: 20 },
    Probe {
        instruction: "shf.l.wrap.b32 %r1, %r2, %r3, %r1;",
        version: "3.1",
        sm: 32,
        older_version: "3.0",
        older_sm: 30,
    },
    Probe { instruction: "barrier.cluster.arrive;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "istypep.texref %p1, %rd1;", version: "4.0", sm: 30, older_version: "3.2", older_sm: 20 },
    Probe { instruction: "discard.global.L2 [%rd1], 128;", version: "7.4", sm: 80, older_version: "7.3", older_sm: 75 },
    Probe {
        instruction: "applypriority.global.L2::evict_normal [%rd1], 128;",
        version: "7.4",
        sm: 80,
        older_version: "7.3",
        older_sm: 75,
    },
    Probe {
        instruction: "red.global.add.noftz.bf16x2 [%rd1], %r1;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
];

fn module(instruction: &str, version: &str, sm: u32) -> String {
    format!(
        ".version {version}\n.target sm_{sm}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
         .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<3>; .reg .b16 %h<4>; .reg .f32 %f<4>;\n\
         {instruction}\nret;\n}}\n"
    )
}

/// (version too old, target too old) as each tool sees it.
type Verdict = (bool, bool);

fn ptxr_verdict(source: &str) -> Verdict {
    let (_, diagnostics) = ptxr_frontend::check_source(source);
    let has = |code| diagnostics.iter().any(|diagnostic| diagnostic.code == code);
    (has(Code::NeedsNewerVersion), has(Code::NeedsNewerTarget))
}

fn ptxas_verdict(ptxas: &std::path::Path, source: &str, sm: u32, file: &std::path::Path) -> Verdict {
    std::fs::write(file, source).unwrap_or_else(|error| panic!("{error}"));
    // ptxas 12.9 compiles for sm_50 and later, and gates by the module's `.target`.
    let output = Command::new(ptxas)
        .arg(format!("-arch=sm_{}", sm.max(50)))
        .arg("-o")
        .arg(file.with_extension("cubin"))
        .arg(file)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", ptxas.display()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    (stderr.contains("requires PTX ISA .version"), stderr.contains("requires .target"))
}

#[test]
fn gating_agrees_with_ptxas() {
    let cached = repository_root().join(".cache/ptxas-cu12/nvidia/cuda_nvcc/bin/ptxas");
    let Some(ptxas) = validator(&[cached.to_string_lossy().as_ref(), "ptxas"]) else { return };
    let directory = std::env::temp_dir().join(format!("ptxr-gating-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    let file = directory.join("probe.ptx");
    let mut disagreements = Vec::new();
    for probe in PROBES {
        let cases = [
            (probe.version, probe.sm, (false, false)),
            (probe.older_version, probe.sm, (true, false)),
            (probe.version, probe.older_sm, (false, true)),
        ];
        for (version, sm, expected) in cases {
            if sm == 0 {
                continue;
            }
            let source = module(probe.instruction, version, sm);
            let from_ptxas = ptxas_verdict(&ptxas, &source, sm, &file);
            let from_ptxr = ptxr_verdict(&source);
            if from_ptxas != expected || from_ptxr != from_ptxas {
                disagreements.push(format!(
                    "`{}` under .version {version}, sm_{sm}: ptxas (version, target) = {from_ptxas:?}, ptxr = {from_ptxr:?}",
                    probe.instruction
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&directory);
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
}

/// A compilation for an architecture older than the module's `.target` (`ptxr compile --target
/// nvptx --arch sm_NN`) gates each probe at that architecture: E0302 naming the architecture
/// below the probe's gate (which ptxas confirms above), nothing at the gate; the module's own
/// `.target` is the probe's, so every case is the compiled architecture's doing.
#[test]
fn an_older_compiled_architecture_gates_like_an_older_target() {
    for probe in PROBES.iter().filter(|probe| probe.older_sm != 0) {
        let source = module(probe.instruction, probe.version, probe.sm);
        let (_, below) = ptxr_frontend::check_source_for(&source, Some(probe.older_sm));
        let expected = format!("but the module is compiled for sm_{}", probe.older_sm);
        assert!(
            below.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerTarget
                && diagnostic.message.contains(&format!("needs sm_{} or later", probe.sm))
                && diagnostic.message.ends_with(&expected)),
            "`{}` compiled for sm_{}: {below:?}",
            probe.instruction,
            probe.older_sm
        );
        let (_, at) = ptxr_frontend::check_source_for(&source, Some(probe.sm));
        assert!(
            !at.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerTarget),
            "`{}` compiled for sm_{}: {at:?}",
            probe.instruction,
            probe.sm
        );
    }
}
