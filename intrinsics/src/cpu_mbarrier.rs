//! `mbarrier` on the CPU: the object is atomics in host memory (blocks run on several cores,
//! so the atomics are system-wide), and a thread whose test finds the phase incomplete waits in
//! the runtime (`ptxr_mbarrier_wait`), which runs the block's other threads meanwhile:
//! `try_wait` until the phase completes (PTX lets it suspend up to a time limit; waiting for
//! the completion itself is the limit's longest choice, and a phase nobody can complete is
//! reported as a deadlock), `test_wait` for one round of the others, after which it tests
//! again and answers. So a loop spinning on `test_wait` lets the arrivals it waits for happen.

use inkwell::values::IntValue;
use ptxr_frontend::ir::MbarrierWait;
use ptxr_runtime::abi::runtime_function;

use crate::declare::call_function;
use crate::mbarrier::{wait_operands, Mbarrier, ObjectInMemory};
use crate::{Site, Unsupported};

/// Blocks run on the host's cores in parallel: only system-wide atomics are coherent.
const OBJECT: ObjectInMemory<'static> = ObjectInMemory { scope: "" };

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("an mbarrier wait ({error})") }
}

pub fn lower<'ctx>(site: &Site<'_, 'ctx>, operation: &Mbarrier<'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
    let Mbarrier::TestWait { object, wait, parity, phase, .. } = operation else {
        return OBJECT.lower(site, operation);
    };
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let first = OBJECT.is_complete(site, *object, *parity, *phase)?;
    let tested = builder.get_insert_block().ok_or_else(|| Unsupported { what: "an unpositioned builder".into() })?;
    let waiting = context.append_basic_block(site.function, "mbarrier.wait");
    let done = context.append_basic_block(site.function, "mbarrier.tested");
    builder.build_conditional_branch(first, done, waiting).map_err(failed)?;
    builder.position_at_end(waiting);
    let (waited, mask) = wait_operands(site, *parity, *phase)?;
    // `test_wait` only gives way (mask 0); `try_wait` waits for the phase.
    let mask = if *wait == MbarrierWait::Test { i32_type.const_zero() } else { mask };
    let address = builder.build_ptr_to_int(*object, i64_type, "").map_err(failed)?;
    let wait_type = i32_type.fn_type(&[i64_type.into(), i32_type.into(), i32_type.into()], false);
    call_function(site, runtime_function::MBARRIER_WAIT, wait_type, &[address.into(), waited.into(), mask.into()])?;
    let second = OBJECT.is_complete(site, *object, *parity, *phase)?;
    let retested = builder.get_insert_block().unwrap_or(waiting);
    builder.build_unconditional_branch(done).map_err(failed)?;
    builder.position_at_end(done);
    let result = builder.build_phi(context.bool_type(), "mbarrier.complete").map_err(failed)?;
    result.add_incoming(&[(&first, tested), (&second, retested)]);
    Ok(Some(result.as_basic_value().into_int_value()))
}
