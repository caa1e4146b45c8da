//! `--target` and `--arch`: a short name (`cpu`, `nvptx`, `amdgpu`, `spirv`) or a full triple,
//! parsed with target-lexicon (which does not know SPIR-V, so `spirv32`/`spirv64` triples are
//! recognised by their architecture name first).

use std::str::FromStr;

use ptxr_intrinsics::TargetKind;
use ptxr_lowering::TargetDescription;
use target_lexicon::{Architecture, Triple};

/// The default processors when `--arch` is absent.
pub const DEFAULT_NVPTX_ARCH: &str = "sm_80";
pub const DEFAULT_AMDGPU_ARCH: &str = "gfx90a";
/// SPIR-V 1.2 is the newest version that OpenCL 2.2 consumers (and `spirv-val --target-env
/// opencl2.2`) accept, so plain `spirv64` triples are pinned to it.
const DEFAULT_SPIRV_VERSION: &str = "v1.2";

/// Resolves `--target` and `--arch`. `run_on_host` picks the host's own processor for the CPU
/// target (JIT); objects default to a generic processor so that they run on any machine of the
/// architecture.
pub fn describe(target: &str, arch: Option<&str>, run_on_host: bool) -> Result<TargetDescription, String> {
    let host_cpu = if run_on_host { "native" } else { "generic" };
    let description = match target {
        "cpu" | "host" => TargetDescription {
            kind: TargetKind::Cpu,
            triple: Triple::host().to_string(),
            cpu: arch.unwrap_or(host_cpu).to_string(),
            features: String::new(),
        },
        "nvptx" => nvptx("nvptx64-nvidia-cuda", arch),
        "amdgpu" => amdgpu("amdgcn-amd-amdhsa", arch),
        "spirv" => spirv(&format!("spirv64{DEFAULT_SPIRV_VERSION}-unknown-unknown"), arch),
        triple if triple.starts_with("spirv32") || triple.starts_with("spirv64") => {
            spirv(&pin_spirv_version(triple), arch)
        }
        triple => {
            let parsed = Triple::from_str(triple).map_err(|error| {
                format!("unknown target `{triple}` ({error}); expected cpu, nvptx, amdgpu, spirv or a target triple")
            })?;
            match parsed.architecture {
                Architecture::Nvptx64 => nvptx(triple, arch),
                Architecture::AmdGcn => amdgpu(triple, arch),
                Architecture::Unknown => return Err(format!("unknown architecture in target `{triple}`")),
                _ => TargetDescription {
                    kind: TargetKind::Cpu,
                    triple: parsed.to_string(),
                    cpu: arch.unwrap_or(if parsed == Triple::host() { host_cpu } else { "generic" }).to_string(),
                    features: String::new(),
                },
            }
        }
    };
    Ok(description)
}

/// Without `--arch`, the NVPTX architecture is left empty here and chosen per module by
/// [`for_module`].
fn nvptx(triple: &str, arch: Option<&str>) -> TargetDescription {
    TargetDescription {
        kind: TargetKind::Nvptx,
        triple: triple.to_string(),
        cpu: arch.unwrap_or("").to_string(),
        features: String::new(),
    }
}

/// The number of an `sm_NN` name (`sm_90a` is 90).
pub fn sm_number(name: &str) -> Option<u32> {
    name.strip_prefix("sm_")?.trim_end_matches(['a', 'f']).parse().ok()
}

/// The NVPTX architecture for a module compiled without `--arch`: the newest `sm_` its
/// `.target` names when that is newer than [`DEFAULT_NVPTX_ARCH`] (so that what the module was
/// written for can be selected), the default otherwise (older targets, which today's `ptxas`
/// no longer takes).
fn nvptx_arch_for(module: &ptxr_frontend::ir::Module) -> String {
    let default_number = sm_number(DEFAULT_NVPTX_ARCH).unwrap_or(0);
    module
        .target_names
        .iter()
        .filter_map(|name| sm_number(name).map(|number| (number, name)))
        .filter(|&(number, _)| number > default_number)
        .max_by_key(|&(number, _)| number)
        .map_or_else(|| DEFAULT_NVPTX_ARCH.to_string(), |(_, name)| name.clone())
}

fn amdgpu(triple: &str, arch: Option<&str>) -> TargetDescription {
    TargetDescription {
        kind: TargetKind::Amdgpu,
        triple: triple.to_string(),
        cpu: arch.unwrap_or(DEFAULT_AMDGPU_ARCH).to_string(),
        features: String::new(),
    }
}

/// The LLVM feature that lets the NVPTX back end write proxy fences, or the inline PTX of
/// `mbarrier.test_wait.parity`, or dynamic stack allocation, or warp collectives, needing PTX
/// ISA `isa` for `arch`, where its default version for the architecture is older: the `.sync`
/// warp collectives (6.0) below sm_70, whose default is 6.0; `activemask` (6.2) and
/// `nanosleep` (6.3) below sm_75, whose default is 6.3; `ldmatrix` (6.5) below sm_80, whose
/// default is 7.0; `.parity` (7.1) below sm_86, whose default is 7.1;
/// `alloca`/`stacksave`/`stackrestore` (7.3) and `discard`/`applypriority` (7.4) below sm_87,
/// whose default is 7.4; `cvta.param`/`isspacep.param` (7.7) below sm_89, whose default is 7.8;
/// `%reserved_smem_offset_*` (7.6) below sm_89, whose default is 7.8; `fence.proxy.alias` (7.5)
/// below sm_89, whose default is 7.8; `fence.proxy.async` (8.0) on plain sm_90, whose default is
/// 7.8 (sm_90a and sm_100 up start at 8.0 or later; older ones have no async proxy at all);
/// 64-bit `sured.b.min`/`.max` (8.1) below sm_100; `%aggr_smem_size` (8.1) on sm_90 and sm_90a; `atom.cas.b128`/`atom.exch.b128` (8.3) on sm_90 and sm_90a, whose defaults are 7.8 and 8.0;
/// `wmma` on `.m32n8k16`/`.m8n32k16` (6.1) on sm_70 (default 6.0), on integers (6.3) below
/// sm_75 (default 6.3), on `.bf16`/`.tf32`/`.f64` (7.0) below sm_80, which gating refuses
/// anyway; `mma` on 8-bit floats (8.4 or 8.7) below sm_100 or sm_120, whose defaults are 8.6
/// and 8.7. Never an older version than the architecture's own, which LLVM refuses.
fn proxy_fence_feature(arch: &str, isa: (u32, u32)) -> Option<String> {
    let number = sm_number(arch)?;
    let needed = match isa {
        (6, 0) if number < 70 => "+ptx60",
        (6, 1) if number < 72 => "+ptx61",
        (6, 2) if number < 75 => "+ptx62",
        (6, 3) if number < 75 => "+ptx63",
        (6, 5) if number < 80 => "+ptx65",
        (7, 0) if number < 80 => "+ptx70",
        (7, 1) if number < 86 => "+ptx71",
        (7, 3) if number < 87 => "+ptx73",
        (7, 4) if number < 87 => "+ptx74",
        (7, 5) if number < 89 => "+ptx75",
        (7, 6) if number < 89 => "+ptx76",
        (7, 7) if number < 89 => "+ptx77",
        (8, 0) if arch == "sm_90" => "+ptx80",
        (8, 1) if number < 100 => "+ptx81",
        (8, 3) if number < 100 => "+ptx83",
        (8, 4) if number < 100 => "+ptx84",
        (8, 7) if number < 120 => "+ptx87",
        _ => return None,
    };
    Some(needed.to_string())
}

/// The SPIR-V version that has sub-groups, which warp collectives need.
const SUBGROUP_SPIRV_VERSION: &str = "v1.3";

/// `target` adjusted to what `module` needs: on SPIR-V at the default version (1.2), a module
/// with warp collectives or warp special registers is compiled for SPIR-V 1.3, the first with sub-group instructions
/// (OpenCL 3.0 runtimes that accept SPIR-V take it; 1.2 cannot express the collectives at all).
///
/// On NVPTX without `--arch`, the architecture comes from the module's `.target` (see
/// `nvptx_arch_for`).
pub fn for_module(target: &TargetDescription, module: &ptxr_frontend::ir::Module) -> TargetDescription {
    if target.kind == TargetKind::Nvptx {
        let cpu = if target.cpu.is_empty() { nvptx_arch_for(module) } else { target.cpu.clone() };
        let needed_isa = ptxr_lowering::proxy_fence_isa(module)
            .max(ptxr_lowering::mbarrier_isa(module))
            .max(ptxr_lowering::dynamic_stack_isa(module))
            .max(ptxr_lowering::parameter_window_isa(module))
            .max(ptxr_lowering::cache_hint_isa(module))
            .max(ptxr_lowering::wide_atomic_isa(module))
            .max(ptxr_lowering::warp_matrix_isa(module))
            .max(ptxr_lowering::intrinsic_isa(module))
            .max(ptxr_lowering::special_register_isa(module));
        let features = match needed_isa {
            Some(isa) if target.features.is_empty() => proxy_fence_feature(&cpu, isa).unwrap_or_default(),
            _ => target.features.clone(),
        };
        return TargetDescription { cpu, features, ..target.clone() };
    }
    let default_version = format!("{DEFAULT_SPIRV_VERSION}-");
    if target.kind != TargetKind::Spirv
        || !target.triple.contains(&default_version)
        || !ptxr_lowering::uses_warps(module)
    {
        return target.clone();
    }
    let triple = target.triple.replacen(&default_version, &format!("{SUBGROUP_SPIRV_VERSION}-"), 1);
    TargetDescription { triple, ..target.clone() }
}

fn spirv(triple: &str, arch: Option<&str>) -> TargetDescription {
    TargetDescription {
        kind: TargetKind::Spirv,
        triple: triple.to_string(),
        cpu: arch.unwrap_or("").to_string(),
        features: String::new(),
    }
}

/// `spirv64-unknown-unknown` becomes `spirv64v1.2-unknown-unknown`; a triple that names its
/// version (`spirv64v1.0-...`) keeps it.
fn pin_spirv_version(triple: &str) -> String {
    let (architecture, rest) = triple.split_once('-').unwrap_or((triple, "unknown-unknown"));
    let version = architecture.trim_start_matches("spirv32").trim_start_matches("spirv64");
    if !version.is_empty() {
        return triple.to_string();
    }
    format!("{architecture}{DEFAULT_SPIRV_VERSION}-{rest}")
}

/// Checks `--arch` against what LLVM knows for GPU targets, so that a typo is an error instead
/// of LLVM's warning and a generic processor.
pub fn validate_arch(description: &TargetDescription) -> Result<(), String> {
    let valid = match description.kind {
        TargetKind::Nvptx => description
            .cpu
            .strip_prefix("sm_")
            .map(|number| number.trim_end_matches(['a', 'f']))
            .is_some_and(|number| !number.is_empty() && number.bytes().all(|byte| byte.is_ascii_digit())),
        TargetKind::Amdgpu => description.cpu.strip_prefix("gfx").is_some_and(|rest| {
            !rest.is_empty()
                && rest.bytes().all(|byte| byte.is_ascii_hexdigit() || byte == b'-' || byte.is_ascii_alphabetic())
        }),
        TargetKind::Spirv | TargetKind::Cpu => true,
    };
    if valid {
        Ok(())
    } else {
        let expected = match description.kind {
            TargetKind::Nvptx => "an `sm_NN` architecture such as sm_80",
            _ => "a `gfxNNN` processor such as gfx90a",
        };
        Err(format!("invalid --arch `{}` for {}: expected {expected}", description.cpu, description.kind.name()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_pick_defaults() {
        let nvptx = describe("nvptx", None, false).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!((nvptx.triple.as_str(), nvptx.cpu.as_str()), ("nvptx64-nvidia-cuda", ""), "chosen per module");
        let amdgpu = describe("amdgpu", None, false).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!((amdgpu.triple.as_str(), amdgpu.cpu.as_str()), ("amdgcn-amd-amdhsa", "gfx90a"));
        let spirv = describe("spirv", None, false).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(spirv.triple, "spirv64v1.2-unknown-unknown");
    }

    #[test]
    fn full_triples_are_classified() {
        let kinds: Vec<TargetKind> = [
            "x86_64-unknown-linux-gnu",
            "aarch64-unknown-linux-gnu",
            "amdgcn-amd-amdhsa",
            "nvptx64-nvidia-cuda",
            "spirv64-unknown-unknown",
        ]
        .iter()
        .map(|triple| {
            describe(triple, None, false).map(|description| description.kind).unwrap_or_else(|error| panic!("{error}"))
        })
        .collect();
        assert_eq!(kinds, [TargetKind::Cpu, TargetKind::Cpu, TargetKind::Amdgpu, TargetKind::Nvptx, TargetKind::Spirv]);
        assert_eq!(
            describe("spirv64-unknown-unknown", None, false).map(|d| d.triple),
            Ok("spirv64v1.2-unknown-unknown".to_string())
        );
        assert!(describe("banana", None, false).is_err());
    }

    #[test]
    fn nvptx_without_arch_follows_the_modules_target_from_sm_80_up() {
        let nvptx = describe("nvptx", None, false).unwrap_or_else(|error| panic!("{error}"));
        let arch_for = |target: &str| {
            let source = format!(".version 8.0\n.target {target}\n.address_size 64\n");
            let (module, _) = crate::pipeline::check(&source).unwrap_or_else(|diagnostics| panic!("{diagnostics:?}"));
            for_module(&nvptx, &module).cpu
        };
        assert_eq!(arch_for("sm_90a"), "sm_90a");
        assert_eq!(arch_for("sm_86"), "sm_86");
        assert_eq!(arch_for("sm_52"), "sm_80");
        let explicit = describe("nvptx", Some("sm_75"), false).unwrap_or_else(|error| panic!("{error}"));
        let (module, _) = crate::pipeline::check(".version 8.0\n.target sm_90\n.address_size 64\n")
            .unwrap_or_else(|diagnostics| panic!("{diagnostics:?}"));
        assert_eq!(for_module(&explicit, &module).cpu, "sm_75", "an explicit --arch is kept");
    }

    #[test]
    fn spirv_modules_with_matrix_instructions_use_sub_groups() {
        let spirv = describe("spirv", None, false).unwrap_or_else(|error| panic!("{error}"));
        let triple_for = |body: &str| {
            let source = format!(
                ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n    .reg .b32 %r<5>;\n    \
                 .reg .b64 %rd1;\n    {body}\n    ret;\n}}\n"
            );
            let (module, _) = crate::pipeline::check(&source).unwrap_or_else(|diagnostics| panic!("{diagnostics:?}"));
            for_module(&spirv, &module).triple
        };
        assert_eq!(triple_for("mov.u32 %r1, 1;"), "spirv64v1.2-unknown-unknown");
        let load = "ldmatrix.sync.aligned.m8n8.x1.b16 {%r1}, [%rd1];";
        assert_eq!(triple_for(load), "spirv64v1.3-unknown-unknown");
        let multiply = "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2};";
        assert_eq!(triple_for(multiply), "spirv64v1.3-unknown-unknown");
    }

    #[test]
    fn arch_is_validated() {
        let mut description = describe("nvptx", Some("sm_90a"), false).unwrap_or_else(|error| panic!("{error}"));
        assert!(validate_arch(&description).is_ok());
        description.cpu = "gfx90a".to_string();
        assert!(validate_arch(&description).is_err());
    }
}
