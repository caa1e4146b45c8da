//! NVPTX (`nvptx64-nvidia-cuda`): PTX state spaces are NVPTX's own address spaces and special
//! registers are the `llvm.nvvm.read.ptx.sreg.*` intrinsics, so this target is a near identity.

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::IntValue;
use inkwell::AddressSpace;
use ptxr_frontend::vocabulary::{SpecialRegister, StateSpace};

use crate::declare::call_intrinsic;
use crate::{KernelParameters, Site, Target, TargetKind, Unsupported};

/// LLVM's `ptx_kernel` calling convention.
const PTX_KERNEL: u32 = 71;

pub struct Nvptx;

impl Target for Nvptx {
    fn kind(&self) -> TargetKind {
        TargetKind::Nvptx
    }

    fn address_space(&self, state_space: StateSpace) -> AddressSpace {
        let number: u16 = match state_space {
            StateSpace::Global => 1,
            StateSpace::Shared => 3,
            StateSpace::Const => 4,
            StateSpace::Local => 5,
            StateSpace::Param => 101,
            StateSpace::Generic | StateSpace::Reg | StateSpace::SpecialReg | StateSpace::Tex => 0,
        };
        AddressSpace::from(number)
    }

    fn configure_module<'ctx>(&self, _context: &'ctx Context, _module: &Module<'ctx>) {}

    fn hidden_parameter_types<'ctx>(&self, _context: &'ctx Context) -> Vec<BasicMetadataTypeEnum<'ctx>> {
        Vec::new()
    }

    fn finish_kernel<'ctx>(&self, site: &Site<'_, 'ctx>, _parameters: &KernelParameters<'ctx>) -> Result<(), Unsupported> {
        site.function.set_call_conventions(PTX_KERNEL);
        Ok(())
    }

    fn special_register<'ctx>(&self, site: &Site<'_, 'ctx>, register: SpecialRegister) -> Result<IntValue<'ctx>, Unsupported> {
        let name = match register {
            SpecialRegister::ThreadId(dimension) => format!("llvm.nvvm.read.ptx.sreg.tid.{dimension}"),
            SpecialRegister::ThreadCount(dimension) => format!("llvm.nvvm.read.ptx.sreg.ntid.{dimension}"),
            SpecialRegister::CtaId(dimension) => format!("llvm.nvvm.read.ptx.sreg.ctaid.{dimension}"),
            SpecialRegister::CtaCount(dimension) => format!("llvm.nvvm.read.ptx.sreg.nctaid.{dimension}"),
            SpecialRegister::LaneId => "llvm.nvvm.read.ptx.sreg.laneid".to_string(),
            SpecialRegister::WarpId => "llvm.nvvm.read.ptx.sreg.warpid".to_string(),
            SpecialRegister::WarpCount => "llvm.nvvm.read.ptx.sreg.nwarpid".to_string(),
            SpecialRegister::Clock => "llvm.nvvm.read.ptx.sreg.clock".to_string(),
            SpecialRegister::Clock64 => "llvm.nvvm.read.ptx.sreg.clock64".to_string(),
        };
        Ok(call_intrinsic(site, &name, &[], &[])?.into_int_value())
    }
}
