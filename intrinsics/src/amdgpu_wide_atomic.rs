//! `atom.cas.b128` and `atom.exch.b128` on AMDGPU, under a lock: AMDGPU has no 16-byte atomic
//! instruction, and LLVM would expand an `i128` `cmpxchg` to a `__atomic_*_16` library call that
//! no code object can link.
//!
//! The PTX ISA manual (section "atom", ISA 8.3, sm_90) defines `.b128` only for `.cas` and
//! `.exch` and requires the address to be aligned to 16 bytes. Here the 16-byte word is read and
//! written with plain accesses while a lock word is held; the lock is one of [`LOCKS`] words of a
//! module-wide table, chosen by the word's address. So the update is atomic against every other
//! 128-bit atomic of the same code object, which takes the same lock for the same address, but
//! not against a plain 16-byte `st` (not atomic in PTX either), nor against the 128-bit atomics
//! of another code object, which has a table of its own.
//!
//! A wave runs its lanes in lock step, so a lane that waits for a lock that another lane of its
//! own wave holds must not keep that lane from running. The loop is therefore built so that each
//! lane takes and releases its lock inside one iteration and leaves the loop only after its
//! update: every iteration each waiting lane tries the lock once, the lanes that got it update
//! and release it, and the others try again. The loop's exit test goes through an opaque,
//! convergent `asm` so that no pass can thread the lanes that succeeded straight to the exit
//! (which would leave the critical section, and the release, after the loop, where those lanes
//! would wait for the losers that wait for their locks).

use inkwell::module::Linkage;
use inkwell::values::{BasicValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use ptxr_frontend::ir::MemoryOrdering;

use crate::atomics::{compare_and_swap, order_access, WideUpdate};
use crate::{Site, Unsupported};

/// The number of lock words; a power of two, so that the address picks one by a mask.
pub const LOCKS: u32 = 1024;

/// The name of the module's table of lock words.
const TABLE: &str = "ptxr.wide_atomic_locks";

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("a locked 128-bit atomic ({error})") }
}

/// The lock's ordering when it is taken: at least acquire, so that the plain read of the word
/// sees what the last holder wrote, plus the release part of the instruction's own `.sem`.
fn taking_ordering(ordering: MemoryOrdering) -> MemoryOrdering {
    match ordering {
        MemoryOrdering::Relaxed | MemoryOrdering::Acquire => MemoryOrdering::Acquire,
        MemoryOrdering::Release | MemoryOrdering::AcquireRelease => MemoryOrdering::AcquireRelease,
        MemoryOrdering::SequentiallyConsistent => MemoryOrdering::SequentiallyConsistent,
    }
}

/// The lock's ordering when it is given back: release, so that the next holder sees the write.
fn releasing_ordering(ordering: MemoryOrdering) -> MemoryOrdering {
    match ordering {
        MemoryOrdering::SequentiallyConsistent => MemoryOrdering::SequentiallyConsistent,
        _ => MemoryOrdering::Release,
    }
}

/// The table of lock words in `global_space`, declared on first use.
fn lock_table<'ctx>(site: &Site<'_, 'ctx>, global_space: AddressSpace) -> PointerValue<'ctx> {
    if let Some(table) = site.module.get_global(TABLE) {
        return table.as_pointer_value();
    }
    let table_type = site.context.i32_type().array_type(LOCKS);
    let table = site.module.add_global(table_type, Some(global_space), TABLE);
    table.set_initializer(&table_type.const_zero());
    table.set_linkage(Linkage::Internal);
    table.set_alignment(4);
    table.as_pointer_value()
}

/// Updates the 16-byte word at `pointer` under its lock (see the module's documentation) and
/// returns the value it held. `scope` is the LLVM sync scope of the instruction, which the lock
/// is taken and released in; `global_space` is where the lock table lives.
pub fn update_under_lock<'ctx>(
    site: &Site<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
    update: WideUpdate<'ctx>,
    ordering: MemoryOrdering,
    scope: &str,
    global_space: AddressSpace,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let context = site.context;
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let wide_type = context.i128_type();
    // The word's address, in units of 16 bytes, picks the lock.
    let address = builder.build_ptr_to_int(pointer, i64_type, "wide.address").map_err(failed)?;
    let unit = builder.build_right_shift(address, i64_type.const_int(4, false), false, "").map_err(failed)?;
    let index = builder.build_and(unit, i64_type.const_int(u64::from(LOCKS - 1), false), "").map_err(failed)?;
    let table = lock_table(site, global_space);
    // SAFETY: `index` is below `LOCKS`, the table's length.
    let lock = unsafe {
        builder.build_in_bounds_gep(i32_type.array_type(LOCKS), table, &[i32_type.const_zero(), index], "wide.lock")
    }
    .map_err(failed)?;

    let attempt = context.append_basic_block(site.function, "wide.try");
    let critical = context.append_basic_block(site.function, "wide.critical");
    let next = context.append_basic_block(site.function, "wide.next");
    let done = context.append_basic_block(site.function, "wide.done");
    builder.build_unconditional_branch(attempt).map_err(failed)?;

    builder.position_at_end(attempt);
    let seen = compare_and_swap(
        site,
        lock,
        i32_type.const_zero().into(),
        i32_type.const_int(1, false).into(),
        taking_ordering(ordering),
        scope,
        4,
    )?
    .into_int_value();
    let taken =
        builder.build_int_compare(IntPredicate::EQ, seen, i32_type.const_zero(), "wide.taken").map_err(failed)?;
    builder.build_conditional_branch(taken, critical, next).map_err(failed)?;

    builder.position_at_end(critical);
    let old = builder.build_load(wide_type, pointer, "wide.old").map_err(failed)?;
    set_alignment(old, 16)?;
    let old = old.into_int_value();
    let new = match update {
        WideUpdate::Exchange { replacement } => replacement,
        WideUpdate::CompareAndSwap { expected, replacement } => {
            let matches = builder.build_int_compare(IntPredicate::EQ, old, expected, "").map_err(failed)?;
            builder.build_select(matches, replacement, old, "wide.new").map_err(failed)?.into_int_value()
        }
    };
    let store = builder.build_store(pointer, new).map_err(failed)?;
    store.set_alignment(16).map_err(|error| Unsupported { what: format!("a 16-byte store ({error})") })?;
    let release = builder.build_store(lock, i32_type.const_zero()).map_err(failed)?;
    release.set_alignment(4).map_err(|error| Unsupported { what: format!("a lock release ({error})") })?;
    order_access(site, release, releasing_ordering(ordering), scope);
    builder.build_unconditional_branch(next).map_err(failed)?;

    builder.position_at_end(next);
    let finished = builder.build_phi(context.bool_type(), "wide.finished").map_err(failed)?;
    finished.add_incoming(&[
        (&context.bool_type().const_zero(), attempt),
        (&context.bool_type().const_all_ones(), critical),
    ]);
    let result = builder.build_phi(wide_type, "wide.result").map_err(failed)?;
    result.add_incoming(&[(&wide_type.get_poison(), attempt), (&old, critical)]);
    let finished = opaque_flag(site, finished.as_basic_value().into_int_value())?;
    builder.build_conditional_branch(finished, done, attempt).map_err(failed)?;

    builder.position_at_end(done);
    Ok(result.as_basic_value().into_int_value())
}

fn set_alignment(load: inkwell::values::BasicValueEnum<'_>, alignment: u32) -> Result<(), Unsupported> {
    if let Some(instruction) = load.as_instruction_value() {
        instruction
            .set_alignment(alignment)
            .map_err(|error| Unsupported { what: format!("a 16-byte load ({error})") })?;
    }
    Ok(())
}

/// `flag` passed through an empty, convergent `asm` with side effects: the same bit, which no
/// pass can see through, so that the loop's exit test cannot be threaded into its predecessors.
fn opaque_flag<'ctx>(site: &Site<'_, 'ctx>, flag: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i32_type = site.context.i32_type();
    let widened = builder.build_int_z_extend(flag, i32_type, "").map_err(failed)?;
    let function_type = i32_type.fn_type(&[i32_type.into()], false);
    let assembly = site.context.create_inline_asm(
        function_type,
        "; ptxr: 128-bit atomic lock released".to_string(),
        "=v,0".to_string(),
        true,
        false,
        None,
        false,
    );
    let call = builder.build_indirect_call(function_type, assembly, &[widened.into()], "wide.leave").map_err(failed)?;
    let convergent = inkwell::attributes::Attribute::get_named_enum_kind_id("convergent");
    call.add_attribute(inkwell::attributes::AttributeLoc::Function, site.context.create_enum_attribute(convergent, 0));
    let value = call
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| Unsupported { what: "an `asm` without a value".into() })?
        .into_int_value();
    builder.build_int_compare(IntPredicate::NE, value, i32_type.const_zero(), "").map_err(failed)
}
