//! `atom.cas.b128` and `atom.exch.b128` under a lock, on targets without a 16-byte atomic:
//! AMDGPU, where LLVM would expand an `i128` `cmpxchg` to a `__atomic_*_16` library call that no
//! code object can link, and SPIR-V, as OpenCL has no 16-byte atomic (nor, there, an `i128`).
//!
//! The PTX ISA manual (section "atom", ISA 8.3, sm_90) defines `.b128` only for `.cas` and
//! `.exch` and requires the address to be aligned to 16 bytes. Here the 16-byte word is read and
//! written with plain accesses while a lock word is held; the lock is one of [`LOCKS`] words of a
//! module-wide table in global memory, chosen by the word's generic address (so that `.shared`
//! and generic accesses to one word take one lock). So the update is atomic against every other
//! 128-bit atomic of the same module, which takes the same lock for the same address, but not
//! against a plain 16-byte `st` (not atomic in PTX either), nor against the 128-bit atomics of
//! another module, which has a table of its own. One table in global memory serves `.shared`
//! words too: a `.shared` table (OpenCL's `Workgroup` storage) could not start zeroed, as
//! OpenCL's SPIR-V gives such variables no initialiser, and a word reached through a `.shared`
//! and through a generic address must find the same lock.
//!
//! On `i128`s a compare-and-swap writes back a `select` of the new and the old value; on two
//! `i64` halves it writes only where both halves match, as LLVM may fold a vector `select`'s
//! condition to a scalar, which SPIR-V before 1.4 refuses.
//!
//! A wave or sub-group runs its lanes in lock step, so a lane that waits for a lock that another
//! lane of its own wave holds must not keep that lane from running. The loop is therefore built
//! so that each lane takes and releases its lock inside one iteration and leaves the loop only
//! after its update: every iteration each waiting lane tries the lock once, the lanes that got
//! it update and release it, and the others try again. The loop's exit test goes through a
//! value that no pass can see through ([`ExitTest`]) so that no pass can thread the lanes that
//! succeeded straight to the exit (which would leave the critical section, and the release,
//! after the loop, where those lanes would wait for the losers that wait for their locks).

use inkwell::module::Linkage;
use inkwell::types::BasicType;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use ptxr_frontend::ir::MemoryOrdering;

use crate::atomics::{compare_and_swap, order_access, WideUpdate};
use crate::{Site, Unsupported};

/// How the loop's exit test is hidden from the optimiser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitTest {
    /// Through an empty, convergent `asm` (AMDGPU).
    Assembly,
    /// Through a volatile store and load of a private slot, for targets without inline assembly
    /// (SPIR-V): LLVM keeps both and cannot know the value loaded.
    VolatileSlot,
}

/// Where the lock table lives and how the exit test is hidden, for one target.
#[derive(Clone, Copy, Debug)]
pub struct LockPlacement {
    /// The address space of the table: global memory.
    pub table_space: AddressSpace,
    /// The generic address space, where the word's address is taken to choose its lock.
    pub generic_space: AddressSpace,
    pub exit_test: ExitTest,
}

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
/// returns the value it held, of the update's type (`i128` or `<2 x i64>`). `scope` is the LLVM
/// sync scope that the lock is taken and released in.
pub fn update_under_lock<'ctx>(
    site: &Site<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
    update: WideUpdate<'ctx>,
    ordering: MemoryOrdering,
    scope: &str,
    placement: LockPlacement,
) -> Result<BasicValueEnum<'ctx>, Unsupported> {
    let builder = site.builder;
    let context = site.context;
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let wide_type = update.replacement().get_type();
    let global_space = placement.table_space;
    // The word's generic address, in units of 16 bytes, picks the lock.
    let generic = if pointer.get_type().get_address_space() == placement.generic_space {
        pointer
    } else {
        let generic_type = context.ptr_type(placement.generic_space);
        builder.build_address_space_cast(pointer, generic_type, "wide.generic").map_err(failed)?
    };
    let address = builder.build_ptr_to_int(generic, i64_type, "wide.address").map_err(failed)?;
    let unit = builder.build_right_shift(address, i64_type.const_int(4, false), false, "").map_err(failed)?;
    let index = builder.build_and(unit, i64_type.const_int(u64::from(LOCKS - 1), false), "").map_err(failed)?;
    let table = lock_table(site, global_space);
    // SAFETY: `index` is below `LOCKS`, the table's length.
    let lock = unsafe {
        builder.build_in_bounds_gep(i32_type.array_type(LOCKS), table, &[i32_type.const_zero(), index], "wide.lock")
    }
    .map_err(failed)?;

    // The private slot of the exit test, in the entry block so that it is allocated once.
    let slot = match placement.exit_test {
        ExitTest::Assembly => None,
        ExitTest::VolatileSlot => Some(entry_alloca(site, context.i8_type().as_basic_type_enum())?),
    };
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
    let store_16_bytes = |value: BasicValueEnum<'ctx>| -> Result<(), Unsupported> {
        let store = builder.build_store(pointer, value).map_err(failed)?;
        store.set_alignment(16).map_err(|error| Unsupported { what: format!("a 16-byte store ({error})") })
    };
    match update {
        WideUpdate::Exchange { replacement } => store_16_bytes(replacement)?,
        WideUpdate::CompareAndSwap { expected, replacement } if wide_type.is_vector_type() => {
            // Two halves: the swap is a store only where both match, rather than a `select` of
            // vectors, which LLVM may give a scalar condition that SPIR-V before 1.4 refuses.
            let matches = equal(site, old, expected)?;
            let write = context.append_basic_block(site.function, "wide.write");
            let release = context.append_basic_block(site.function, "wide.release");
            builder.build_conditional_branch(matches, write, release).map_err(failed)?;
            builder.position_at_end(write);
            store_16_bytes(replacement)?;
            builder.build_unconditional_branch(release).map_err(failed)?;
            builder.position_at_end(release);
        }
        WideUpdate::CompareAndSwap { expected, replacement } => {
            let matches = equal(site, old, expected)?;
            store_16_bytes(builder.build_select(matches, replacement, old, "wide.new").map_err(failed)?)?;
        }
    }
    let critical_end = builder
        .get_insert_block()
        .ok_or_else(|| Unsupported { what: "a locked 128-bit atomic outside a block".to_string() })?;
    let release = builder.build_store(lock, i32_type.const_zero()).map_err(failed)?;
    release.set_alignment(4).map_err(|error| Unsupported { what: format!("a lock release ({error})") })?;
    order_access(site, release, releasing_ordering(ordering), scope);
    builder.build_unconditional_branch(next).map_err(failed)?;

    builder.position_at_end(next);
    let finished = builder.build_phi(context.bool_type(), "wide.finished").map_err(failed)?;
    finished.add_incoming(&[
        (&context.bool_type().const_zero(), attempt),
        (&context.bool_type().const_all_ones(), critical_end),
    ]);
    let result = builder.build_phi(wide_type, "wide.result").map_err(failed)?;
    result.add_incoming(&[(&poison(wide_type), attempt), (&old, critical_end)]);
    let finished = finished.as_basic_value().into_int_value();
    let finished = match placement.exit_test {
        ExitTest::Assembly => opaque_flag(site, finished)?,
        ExitTest::VolatileSlot => through_volatile_slot(site, finished, slot)?,
    };
    builder.build_conditional_branch(finished, done, attempt).map_err(failed)?;

    builder.position_at_end(done);
    Ok(result.as_basic_value())
}

/// Whether two 128-bit values are equal: one comparison of `i128`s, or of both halves.
fn equal<'ctx>(
    site: &Site<'_, 'ctx>,
    a: BasicValueEnum<'ctx>,
    b: BasicValueEnum<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    match (a, b) {
        (BasicValueEnum::IntValue(a), BasicValueEnum::IntValue(b)) => {
            builder.build_int_compare(IntPredicate::EQ, a, b, "").map_err(failed)
        }
        (BasicValueEnum::VectorValue(a), BasicValueEnum::VectorValue(b)) => {
            let each = builder.build_int_compare(IntPredicate::EQ, a, b, "").map_err(failed)?;
            let i32_type = site.context.i32_type();
            let low = builder.build_extract_element(each, i32_type.const_zero(), "").map_err(failed)?;
            let high = builder.build_extract_element(each, i32_type.const_int(1, false), "").map_err(failed)?;
            builder.build_and(low.into_int_value(), high.into_int_value(), "wide.equal").map_err(failed)
        }
        _ => Err(Unsupported { what: "a locked 128-bit atomic on values of two types".to_string() }),
    }
}

fn poison(value_type: inkwell::types::BasicTypeEnum<'_>) -> BasicValueEnum<'_> {
    match value_type {
        inkwell::types::BasicTypeEnum::VectorType(vector) => vector.get_poison().into(),
        inkwell::types::BasicTypeEnum::IntType(int) => int.get_poison().into(),
        other => other.const_zero(),
    }
}

/// `flag` stored to and loaded back from a private `i8` slot, both volatile: the same bit,
/// which no pass can see through (the SPIR-V form of [`opaque_flag`]).
fn through_volatile_slot<'ctx>(
    site: &Site<'_, 'ctx>,
    flag: IntValue<'ctx>,
    slot: Option<PointerValue<'ctx>>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let slot = slot.ok_or_else(|| Unsupported { what: "a locked 128-bit atomic without its slot".to_string() })?;
    let i8_type = site.context.i8_type();
    let widened = builder.build_int_z_extend(flag, i8_type, "").map_err(failed)?;
    let store = builder.build_store(slot, widened).map_err(failed)?;
    store.set_volatile(true).map_err(|error| Unsupported { what: format!("a volatile store ({error})") })?;
    let loaded = builder.build_load(i8_type, slot, "wide.leave").map_err(failed)?;
    if let Some(instruction) = loaded.as_instruction_value() {
        instruction.set_volatile(true).map_err(|error| Unsupported { what: format!("a volatile load ({error})") })?;
    }
    builder.build_int_compare(IntPredicate::NE, loaded.into_int_value(), i8_type.const_zero(), "").map_err(failed)
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

/// An `alloca` of `slot_type` at the start of the function's entry block.
fn entry_alloca<'ctx>(
    site: &Site<'_, 'ctx>,
    slot_type: inkwell::types::BasicTypeEnum<'ctx>,
) -> Result<PointerValue<'ctx>, Unsupported> {
    let entry = site
        .function
        .get_first_basic_block()
        .ok_or_else(|| Unsupported { what: "a locked 128-bit atomic outside a function body".to_string() })?;
    let builder = site.context.create_builder();
    match entry.get_first_instruction() {
        Some(first) => builder.position_before(&first),
        None => builder.position_at_end(entry),
    }
    builder.build_alloca(slot_type, "wide.exit").map_err(failed)
}
