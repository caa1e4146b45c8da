//! After lowering: verification, LLVM's optimisation pipeline, emission of IR, bitcode,
//! assembly or objects, and in-process JIT compilation for `ptxr run`.

use inkwell::execution_engine::ExecutionEngine;
use inkwell::memory_manager::McjitMemoryManager;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::CodeModel;
use inkwell::targets::{FileType, TargetMachine};
use inkwell::OptimizationLevel;
use ptxr_runtime::low_memory::LowSections;

/// What `ptxr compile` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// Textual LLVM IR (`.ll`).
    LlvmIr,
    /// LLVM bitcode (`.bc`).
    Bitcode,
    /// The target's assembly: PTX text for NVPTX.
    Assembly,
    /// An object file; a SPIR-V binary for SPIR-V.
    Object,
}

/// Runs the LLVM verifier; every module passes it before code generation.
pub fn verify(module: &Module<'_>) -> Result<(), String> {
    module.verify().map_err(|message| message.to_string())
}

/// Runs LLVM's standard pipeline at `-O<level>` (0 to 3). At -O0 registers still go through
/// `mem2reg`-free allocas, which every backend handles.
pub fn optimize(module: &Module<'_>, machine: &TargetMachine, level: u8) -> Result<(), String> {
    let pipeline = match level {
        0 => "default<O0>",
        1 => "default<O1>",
        2 => "default<O2>",
        _ => "default<O3>",
    };
    let triple = machine.get_triple();
    let triple_name = triple.as_str().to_string_lossy();
    // SPIR-V has vectors of at most 16 lanes, but SROA and InstCombine may build wider ones
    // (an `<N x float>` phi for a `wgmma` accumulator of 32 registers, say), which LLVM's SPIR-V
    // back end cannot legalize. The scalarizer splits vectors wider than 128 bits into 128-bit
    // pieces and leaves narrower ones alone.
    let pipeline = if level > 0 && triple_name.starts_with("spirv") {
        format!("{pipeline},function(scalarizer<load-store;min-bits=128>)")
    } else {
        pipeline.to_string()
    };
    crate::fatal::during(format!("LLVM's {pipeline} pipeline for {triple_name}"), || {
        module.run_passes(&pipeline, machine, PassBuilderOptions::create()).map_err(|message| message.to_string())
    })
}

/// Emits the module in the requested form; `optimization` is the level it was compiled at.
pub fn emit(module: &Module<'_>, machine: &TargetMachine, emit: Emit, optimization: u8) -> Result<Vec<u8>, String> {
    match emit {
        Emit::LlvmIr => Ok(module.print_to_string().to_bytes().to_vec()),
        Emit::Bitcode => Ok(module.write_bitcode_to_memory().as_slice().to_vec()),
        Emit::Assembly | Emit::Object => {
            let file_type = if emit == Emit::Assembly { FileType::Assembly } else { FileType::Object };
            let triple = machine.get_triple();
            if triple.as_str().to_string_lossy().starts_with("spirv") {
                return crate::fatal::during(
                    format!("LLVM's code generation for {}", triple.as_str().to_string_lossy()),
                    || crate::spirv_emission::emit(module, machine, file_type, optimization),
                );
            }
            crate::fatal::during(format!("LLVM's code generation for {}", triple.as_str().to_string_lossy()), || {
                machine
                    .write_to_memory_buffer(module, file_type)
                    .map(|buffer| buffer.as_slice().to_vec())
                    .map_err(|message| message.to_string())
            })
        }
    }
}

/// A module compiled into this process's memory. Function addresses stay valid while it lives.
pub struct JitModule<'ctx> {
    engine: ExecutionEngine<'ctx>,
}

impl<'ctx> JitModule<'ctx> {
    /// Compiles a module for the host with MCJIT. The module must have been lowered for the
    /// host CPU target. With `low_addresses` (`.address_size 32` modules), every section lies
    /// below 4 GiB, so that variables' addresses fit in 32 bits.
    pub fn new(module: Module<'ctx>, level: u8, low_addresses: bool) -> Result<JitModule<'ctx>, String> {
        let optimization = match level {
            0 => OptimizationLevel::None,
            1 => OptimizationLevel::Less,
            2 => OptimizationLevel::Default,
            _ => OptimizationLevel::Aggressive,
        };
        // The runtime functions that kernels call are this process's own.
        let runtime_functions: Vec<_> = ptxr_runtime::cooperative::runtime_symbols()
            .into_iter()
            .filter_map(|(name, address)| module.get_function(name).map(|function| (function, address)))
            .collect();
        let engine = if low_addresses {
            module.create_mcjit_execution_engine_with_memory_manager(
                LowSectionManager(LowSections::new()),
                optimization,
                CodeModel::JITDefault,
                false,
                false,
            )
        } else {
            module.create_jit_execution_engine(optimization)
        }
        .map_err(|message| message.to_string())?;
        for (function, address) in runtime_functions {
            engine.add_global_mapping(&function, address);
        }
        Ok(JitModule { engine })
    }

    /// The address of a compiled function.
    pub fn function_address(&self, name: &str) -> Result<usize, String> {
        self.engine.get_function_address(name).map_err(|error| format!("no compiled function `{name}`: {error:?}"))
    }
}

/// MCJIT's section allocator for `.address_size 32` modules: all sections below 4 GiB.
#[derive(Debug)]
struct LowSectionManager(LowSections);

impl McjitMemoryManager for LowSectionManager {
    fn allocate_code_section(&mut self, size: usize, alignment: u32, _section_id: u32, _name: &str) -> *mut u8 {
        self.0.allocate(size, alignment, true)
    }

    fn allocate_data_section(
        &mut self,
        size: usize,
        alignment: u32,
        _section_id: u32,
        _name: &str,
        _is_read_only: bool,
    ) -> *mut u8 {
        self.0.allocate(size, alignment, false)
    }

    fn finalize_memory(&mut self) -> Result<(), String> {
        self.0.finalize()
    }

    fn destroy(&mut self) {
        self.0.release();
    }
}
