//! `mbarrier` on NVPTX: the instructions themselves. LLVM 22's `llvm.nvvm.mbarrier.*`
//! intrinsics cover the ISA 7.0 forms (`init`, `inval`, `arrive` with or without
//! `.noComplete`, `arrive_drop`, `test_wait` on a state, `pending_count`); its intrinsics for
//! `test_wait.parity`, `try_wait` and counted arrivals without `.noComplete` select only on
//! sm_90 with PTX 8.0, so those forms are written as inline PTX on the object's generic address
//! (the generic forms are the `.shared` ones for an object in shared memory).

use inkwell::values::{BasicMetadataValueEnum, IntValue, PointerValue};
use inkwell::AddressSpace;
use ptxr_frontend::ir::MbarrierWait;
use ptxr_frontend::vocabulary::StateSpace;

use crate::declare::{call_intrinsic, call_intrinsic_or_void};
use crate::mbarrier::Mbarrier;
use crate::{Site, Unsupported};

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("an mbarrier instruction ({error})") }
}

/// The intrinsic `base` (`llvm.nvvm.mbarrier.init`), with `.shared` for an object in shared
/// memory.
fn intrinsic(base: &str, state_space: StateSpace) -> String {
    if state_space == StateSpace::Shared {
        format!("{base}.shared")
    } else {
        base.to_string()
    }
}

pub fn lower<'ctx>(site: &Site<'_, 'ctx>, operation: &Mbarrier<'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
    let i32_type = site.context.i32_type();
    let i64_type = site.context.i64_type();
    match operation {
        Mbarrier::Init { state_space, object, count } => {
            let name = intrinsic("llvm.nvvm.mbarrier.init", *state_space);
            call_intrinsic_or_void(site, &name, &[(*object).into(), (*count).into()])?;
            Ok(None)
        }
        Mbarrier::Invalidate { state_space, object } => {
            call_intrinsic_or_void(site, &intrinsic("llvm.nvvm.mbarrier.inval", *state_space), &[(*object).into()])?;
            Ok(None)
        }
        Mbarrier::Arrive { object, drop, transaction_count: Some(transactions), .. } => {
            let opcode = if *drop { "arrive_drop" } else { "arrive" };
            let address = generic_address(site, *object)?;
            let text = format!("mbarrier.{opcode}.expect_tx.b64 $0, [$1], $2;");
            inline_ptx(site, i64_type, &text, "=l,l,r,~{memory}", &[address.into(), (*transactions).into()])
        }
        Mbarrier::Transaction { object, complete, count, .. } => {
            let opcode = if *complete { "complete_tx" } else { "expect_tx" };
            let address = generic_address(site, *object)?;
            let text = format!("mbarrier.{opcode}.b64 [$0], $1;");
            crate::nvptx_inline_ptx::statement(site, &text, &[address.into(), (*count).into()])?;
            Ok(None)
        }
        Mbarrier::Arrive { state_space, object, drop, no_complete, count, transaction_count: None } => {
            let base = if *drop { "llvm.nvvm.mbarrier.arrive.drop" } else { "llvm.nvvm.mbarrier.arrive" };
            match count {
                None => call_intrinsic_or_void(site, &intrinsic(base, *state_space), &[(*object).into()]),
                Some(count) if *no_complete => {
                    let name = intrinsic(&format!("{base}.noComplete"), *state_space);
                    call_intrinsic_or_void(site, &name, &[(*object).into(), (*count).into()])
                }
                Some(count) => {
                    let opcode = if *drop { "arrive_drop" } else { "arrive" };
                    let address = generic_address(site, *object)?;
                    let text = format!("mbarrier.{opcode}.b64 $0, [$1], $2;");
                    inline_ptx(site, i64_type, &text, "=l,l,r,~{memory}", &[address.into(), (*count).into()])
                }
            }
        }
        Mbarrier::TestWait { state_space, object, wait: MbarrierWait::Test, parity: false, phase, .. } => {
            let name = intrinsic("llvm.nvvm.mbarrier.test.wait", *state_space);
            call_intrinsic_or_void(site, &name, &[(*object).into(), (*phase).into()])
        }
        Mbarrier::TestWait { object, wait, parity, phase, suspend_time_hint, .. } => {
            let opcode = if *wait == MbarrierWait::Try { "try_wait" } else { "test_wait" };
            let parity_modifier = if *parity { ".parity" } else { "" };
            let phase_constraint = if *parity { "r" } else { "l" };
            let address = generic_address(site, *object)?;
            let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> = vec![address.into(), (*phase).into()];
            let (hint, hint_constraint) = match suspend_time_hint {
                Some(hint) => {
                    arguments.push((*hint).into());
                    (", $3", ",r")
                }
                None => ("", ""),
            };
            // A predicate cannot leave inline PTX; `selp` turns it into a register.
            let text = format!(
                "{{ .reg .pred complete; mbarrier.{opcode}{parity_modifier}.b64 complete, [$1], $2{hint}; \
                 selp.u32 $0, 1, 0, complete; }}"
            );
            let constraints = format!("=r,l,{phase_constraint}{hint_constraint},~{{memory}}");
            let value = inline_ptx(site, i32_type, &text, &constraints, &arguments)?
                .ok_or_else(|| Unsupported { what: "an mbarrier test's result".into() })?;
            site.builder
                .build_int_compare(inkwell::IntPredicate::NE, value, i32_type.const_zero(), "mbarrier.complete")
                .map_err(failed)
                .map(Some)
        }
        Mbarrier::CopyAsyncArrive { state_space, object, increment } => {
            let base = if *increment {
                "llvm.nvvm.cp.async.mbarrier.arrive"
            } else {
                "llvm.nvvm.cp.async.mbarrier.arrive.noinc"
            };
            call_intrinsic_or_void(site, &intrinsic(base, *state_space), &[(*object).into()])?;
            Ok(None)
        }
        Mbarrier::PendingCount { state } => {
            call_intrinsic(site, "llvm.nvvm.mbarrier.pending.count", &[], &[(*state).into()])
                .map(|value| Some(value.into_int_value()))
        }
    }
}

/// The object's generic address (i64).
fn generic_address<'ctx>(site: &Site<'_, 'ctx>, object: PointerValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let generic = site.context.ptr_type(AddressSpace::default());
    let pointer = if object.get_type() == generic {
        object
    } else {
        site.builder.build_address_space_cast(object, generic, "").map_err(failed)?
    };
    site.builder.build_ptr_to_int(pointer, site.context.i64_type(), "").map_err(failed)
}

/// Calls inline PTX `text` that writes one register of `result_type`.
fn inline_ptx<'ctx>(
    site: &Site<'_, 'ctx>,
    result_type: inkwell::types::IntType<'ctx>,
    text: &str,
    constraints: &str,
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> Result<Option<IntValue<'ctx>>, Unsupported> {
    let parameter_types: Vec<_> = arguments
        .iter()
        .map(|argument| match argument {
            BasicMetadataValueEnum::IntValue(value) => Ok(value.get_type().into()),
            _ => Err(Unsupported { what: "a non-integer mbarrier operand".into() }),
        })
        .collect::<Result<_, _>>()?;
    let function_type = result_type.fn_type(&parameter_types, false);
    let assembly = site.context.create_inline_asm(
        function_type,
        text.to_string(),
        constraints.to_string(),
        true,
        false,
        None,
        false,
    );
    let call = site.builder.build_indirect_call(function_type, assembly, arguments, "").map_err(failed)?;
    Ok(call.try_as_basic_value().basic().map(|value| value.into_int_value()))
}
