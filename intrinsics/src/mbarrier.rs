//! `mbarrier` operations as lowering hands them to a target (ISA 7.8 section 9.7.12.13), and
//! the object built from atomics in memory for the targets without `mbarrier` instructions.
//!
//! The object's layout is `ptxr_runtime::abi::mbarrier_object`, which the CPU's runtime reads
//! too when it decides whether a waiting thread may go on. An arrival is a compare-and-swap
//! loop: it subtracts its count from the pending arrivals (and, for `arrive_drop`, from the
//! expected ones) and adds its transactions (`expect_tx`) to the pending transactions, or
//! subtracts them (`complete_tx`); the update that leaves no pending arrivals and no pending
//! transactions completes the phase: it flips the phase bit and resets the pending count to
//! the expected count.

use inkwell::values::{BasicValue, IntValue, PointerValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{MbarrierWait, MemoryOrdering};
use ptxr_frontend::vocabulary::StateSpace;
use ptxr_runtime::abi::mbarrier_object;

use crate::atomics;
use crate::compare_and_swap_loop::{CompareAndSwapLoop, LoopNames};
use crate::{Site, Unsupported};

/// One `mbarrier` instruction with its operands read. `object` points at the 64-bit object in
/// `state_space` (`Shared` or `Generic`); counts and parities are i32, states i64.
pub enum Mbarrier<'ctx> {
    Init {
        state_space: StateSpace,
        object: PointerValue<'ctx>,
        count: IntValue<'ctx>,
    },
    Invalidate {
        state_space: StateSpace,
        object: PointerValue<'ctx>,
    },
    /// Returns the state (i64): the object before the arrival.
    Arrive {
        state_space: StateSpace,
        object: PointerValue<'ctx>,
        drop: bool,
        no_complete: bool,
        /// `None`: one arrival, the forms without a count.
        count: Option<IntValue<'ctx>>,
        /// `.expect_tx`'s count (i32), added to the pending transactions before the arrival.
        transaction_count: Option<IntValue<'ctx>>,
    },
    /// `mbarrier.expect_tx` (`complete` false: adds `count`, i32, to the pending
    /// transactions) and `mbarrier.complete_tx` (subtracts it, which may complete the phase),
    /// and the completion of a bulk copy's bytes. Returns nothing.
    Transaction {
        state_space: StateSpace,
        object: PointerValue<'ctx>,
        complete: bool,
        count: IntValue<'ctx>,
    },
    /// Returns whether the phase has completed (i1). `phase` is a state (i64), or with `parity`
    /// the phase's parity (i32).
    TestWait {
        state_space: StateSpace,
        object: PointerValue<'ctx>,
        wait: MbarrierWait,
        parity: bool,
        phase: IntValue<'ctx>,
        suspend_time_hint: Option<IntValue<'ctx>>,
    },
    /// `cp.async.mbarrier.arrive`: an arrival of one, at once (ptxr's `cp.async` copies are
    /// complete when it returns), after raising the pending count by one when `increment`
    /// (without `.noinc`), which leaves the object as it was. Returns nothing.
    CopyAsyncArrive {
        state_space: StateSpace,
        object: PointerValue<'ctx>,
        increment: bool,
    },
    /// Returns the pending count (i32) recorded in `state`.
    PendingCount {
        state: IntValue<'ctx>,
    },
}

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("an mbarrier operation ({error})") }
}

/// The object as atomics in memory, coherent within `scope` (an LLVM sync scope).
pub struct ObjectInMemory<'s> {
    pub scope: &'s str,
}

impl ObjectInMemory<'_> {
    /// `init`, `inval`, `arrive`, `pending_count`, and `test_wait`'s test (which waits for
    /// nothing): the result as [`Mbarrier`] describes it. The waits of `try_wait` are the
    /// target's; they call [`ObjectInMemory::is_complete`] around their wait.
    pub fn lower<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        operation: &Mbarrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        let builder = site.builder;
        let i64_type = site.context.i64_type();
        match operation {
            Mbarrier::Init { object, count, .. } => {
                let count = self.count(site, *count)?;
                let expected = builder
                    .build_left_shift(count, i64_type.const_int(u64::from(mbarrier_object::EXPECTED_SHIFT), false), "")
                    .map_err(failed)?;
                let initial = builder.build_or(expected, count, "mbarrier.initial").map_err(failed)?;
                self.store(site, *object, initial)?;
                Ok(None)
            }
            Mbarrier::Invalidate { object, .. } => {
                self.store(site, *object, i64_type.const_zero())?;
                Ok(None)
            }
            Mbarrier::Arrive { object, drop, count, transaction_count, .. } => {
                let count = match count {
                    Some(count) => self.count(site, *count)?,
                    None => i64_type.const_int(1, false),
                };
                let transactions = match transaction_count {
                    Some(transactions) => self.count(site, *transactions)?,
                    None => i64_type.const_zero(),
                };
                self.arrive(site, *object, count, transactions, *drop).map(Some)
            }
            Mbarrier::Transaction { object, complete, count, .. } => {
                let mut transactions = self.count(site, *count)?;
                if *complete {
                    transactions = builder.build_int_neg(transactions, "").map_err(failed)?;
                }
                self.arrive(site, *object, i64_type.const_zero(), transactions, false)?;
                Ok(None)
            }
            Mbarrier::CopyAsyncArrive { object, increment: false, .. } => {
                self.arrive(site, *object, i64_type.const_int(1, false), i64_type.const_zero(), false)?;
                Ok(None)
            }
            Mbarrier::CopyAsyncArrive { object, increment: true, .. } => {
                // One more pending arrival, then one arrival: the counts and the phase stay,
                // but the pair is still a release on the object, which the arrival that
                // completes the phase acquires, so that the copies' writes reach the waiters.
                atomics::read_modify_write(
                    site,
                    atomics::ReadModifyWrite::Or,
                    *object,
                    i64_type.const_zero().into(),
                    MemoryOrdering::AcquireRelease,
                    self.scope,
                    8,
                )?;
                Ok(None)
            }
            Mbarrier::TestWait { object, parity, phase, .. } => {
                self.is_complete(site, *object, *parity, *phase).map(Some)
            }
            Mbarrier::PendingCount { state } => {
                let pending = builder
                    .build_and(*state, i64_type.const_int(mbarrier_object::COUNT_MASK, false), "")
                    .map_err(failed)?;
                builder
                    .build_int_truncate(pending, site.context.i32_type(), "mbarrier.pending")
                    .map_err(failed)
                    .map(Some)
            }
        }
    }

    /// A count operand (i32) as the object's 21-bit field, in an i64.
    fn count<'ctx>(&self, site: &Site<'_, 'ctx>, count: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        let i64_type = site.context.i64_type();
        let wide = site.builder.build_int_z_extend(count, i64_type, "").map_err(failed)?;
        site.builder.build_and(wide, i64_type.const_int(mbarrier_object::COUNT_MASK, false), "").map_err(failed)
    }

    fn store<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        object: PointerValue<'ctx>,
        value: IntValue<'ctx>,
    ) -> Result<(), Unsupported> {
        let store = site.builder.build_store(object, value).map_err(failed)?;
        store.set_alignment(8).map_err(|error| Unsupported { what: format!("an mbarrier store ({error})") })?;
        atomics::order_access(site, store, MemoryOrdering::Release, self.scope);
        Ok(())
    }

    /// The object, read with acquire ordering.
    pub fn load<'ctx>(&self, site: &Site<'_, 'ctx>, object: PointerValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        let value = site.builder.build_load(site.context.i64_type(), object, "mbarrier.object").map_err(failed)?;
        if let Some(load) = value.as_instruction_value() {
            load.set_alignment(8).map_err(|error| Unsupported { what: format!("an mbarrier load ({error})") })?;
            atomics::order_access(site, load, MemoryOrdering::Acquire, self.scope);
        }
        Ok(value.into_int_value())
    }

    /// The arrive-on operation of `count` (i64, zero for none) with `transactions` (i64, added
    /// to the pending transactions modulo 2^21: negative for `complete_tx`), after lowering the
    /// expected count by `count` when `drop`; returns the object before it.
    fn arrive<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        object: PointerValue<'ctx>,
        count: IntValue<'ctx>,
        transactions: IntValue<'ctx>,
        drop: bool,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let builder = site.builder;
        let i64_type = site.context.i64_type();
        let constant = |value: u64| i64_type.const_int(value, false);
        let names = LoopNames { retry: "mbarrier.arrive", done: "mbarrier.arrived", old: "mbarrier.old" };
        let retry_loop = CompareAndSwapLoop::begin(site, self.load(site, object)?, names)?;
        let old_value = retry_loop.old;

        let mask = constant(mbarrier_object::COUNT_MASK);
        let pending = builder.build_and(old_value, mask, "").map_err(failed)?;
        let expected_field = builder
            .build_right_shift(old_value, constant(u64::from(mbarrier_object::EXPECTED_SHIFT)), false, "")
            .map_err(failed)?;
        let mut expected = builder.build_and(expected_field, mask, "").map_err(failed)?;
        if drop {
            let lowered = builder.build_int_sub(expected, count, "").map_err(failed)?;
            expected = builder.build_and(lowered, mask, "mbarrier.expected").map_err(failed)?;
        }
        let transaction_shift = constant(u64::from(mbarrier_object::TRANSACTION_SHIFT));
        let transaction_field = builder.build_right_shift(old_value, transaction_shift, false, "").map_err(failed)?;
        let pending_transactions = builder.build_and(transaction_field, mask, "").map_err(failed)?;
        let added = builder.build_int_add(pending_transactions, transactions, "").map_err(failed)?;
        let new_transactions = builder.build_and(added, mask, "mbarrier.transactions").map_err(failed)?;
        let phase_shift = constant(u64::from(mbarrier_object::PHASE_SHIFT));
        let phase = builder.build_right_shift(old_value, phase_shift, false, "").map_err(failed)?;
        // The update that leaves no pending arrivals (or, undefined in PTX, fewer than none)
        // and no pending transactions completes the phase.
        let arrived =
            builder.build_int_compare(IntPredicate::ULE, pending, count, "mbarrier.arrived").map_err(failed)?;
        let transferred = builder
            .build_int_compare(IntPredicate::EQ, new_transactions, constant(0), "mbarrier.transferred")
            .map_err(failed)?;
        let completes = builder.build_and(arrived, transferred, "mbarrier.completes").map_err(failed)?;
        let next_phase = builder.build_int_add(phase, constant(1), "").map_err(failed)?;
        let subtracted = builder.build_int_sub(pending, count, "").map_err(failed)?;
        let remaining = builder.build_and(subtracted, mask, "").map_err(failed)?;
        let new_phase = builder.build_select(completes, next_phase, phase, "").map_err(failed)?.into_int_value();
        let new_pending = builder.build_select(completes, expected, remaining, "").map_err(failed)?.into_int_value();
        let phase_bits = builder.build_left_shift(new_phase, phase_shift, "").map_err(failed)?;
        let expected_bits = builder
            .build_left_shift(expected, constant(u64::from(mbarrier_object::EXPECTED_SHIFT)), "")
            .map_err(failed)?;
        let counts = builder.build_or(expected_bits, new_pending, "").map_err(failed)?;
        let transaction_bits = builder.build_left_shift(new_transactions, transaction_shift, "").map_err(failed)?;
        let counts = builder.build_or(transaction_bits, counts, "").map_err(failed)?;
        let replacement = builder.build_or(phase_bits, counts, "mbarrier.new").map_err(failed)?;

        retry_loop.finish(site, object, replacement, MemoryOrdering::AcquireRelease, self.scope, 8)
    }

    /// Whether the phase that `phase` names has completed (i1): the object's phase differs
    /// from the state's, or with `parity` its parity differs from the operand's.
    pub fn is_complete<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        object: PointerValue<'ctx>,
        parity: bool,
        phase: IntValue<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let current = self.load(site, object)?;
        let current = phase_of(site, current)?;
        let (waited, mask) = wait_operands(site, parity, phase)?;
        let builder = site.builder;
        let current = builder.build_and(current, mask, "").map_err(failed)?;
        let waited = builder.build_and(waited, mask, "").map_err(failed)?;
        builder.build_int_compare(IntPredicate::NE, current, waited, "mbarrier.complete").map_err(failed)
    }
}

/// `try_wait` on targets whose threads cannot suspend in a runtime: it polls the object up to
/// `polls` times, calling `pause` between polls, and answers false when the phase is still
/// incomplete, as PTX allows once a time limit has passed (section 9.7.12.13.11): the
/// program's own loop then tries again. Returns whether the phase has completed (i1).
pub fn poll_try_wait<'ctx>(
    object_in_memory: &ObjectInMemory<'_>,
    site: &Site<'_, 'ctx>,
    object: PointerValue<'ctx>,
    parity: bool,
    phase: IntValue<'ctx>,
    polls: u64,
    pause: &dyn Fn(&Site<'_, 'ctx>) -> Result<(), Unsupported>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let entry = builder.get_insert_block().ok_or_else(|| Unsupported { what: "an unpositioned builder".into() })?;
    let poll = context.append_basic_block(site.function, "mbarrier.poll");
    let pause_block = context.append_basic_block(site.function, "mbarrier.pause");
    let done = context.append_basic_block(site.function, "mbarrier.polled");
    builder.build_unconditional_branch(poll).map_err(failed)?;
    builder.position_at_end(poll);
    let count = builder.build_phi(i32_type, "mbarrier.polls").map_err(failed)?;
    let complete = object_in_memory.is_complete(site, object, parity, phase)?;
    let poll_end = builder.get_insert_block().unwrap_or(poll);
    builder.build_conditional_branch(complete, done, pause_block).map_err(failed)?;
    builder.position_at_end(pause_block);
    pause(site)?;
    let polled = count.as_basic_value().into_int_value();
    let next = builder.build_int_add(polled, i32_type.const_int(1, false), "").map_err(failed)?;
    let more =
        builder.build_int_compare(IntPredicate::ULT, next, i32_type.const_int(polls, false), "").map_err(failed)?;
    let pause_end = builder.get_insert_block().unwrap_or(pause_block);
    builder.build_conditional_branch(more, poll, done).map_err(failed)?;
    count.add_incoming(&[(&i32_type.const_zero(), entry), (&next, pause_end)]);
    builder.position_at_end(done);
    let result = builder.build_phi(context.bool_type(), "mbarrier.complete").map_err(failed)?;
    result.add_incoming(&[(&complete, poll_end), (&context.bool_type().const_zero(), pause_end)]);
    Ok(result.as_basic_value().into_int_value())
}

/// The phase number (i32) of an object or state (i64).
fn phase_of<'ctx>(site: &Site<'_, 'ctx>, object: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let i64_type = site.context.i64_type();
    let shifted = site
        .builder
        .build_right_shift(object, i64_type.const_int(u64::from(mbarrier_object::PHASE_SHIFT), false), false, "")
        .map_err(failed)?;
    site.builder.build_int_truncate(shifted, site.context.i32_type(), "mbarrier.phase").map_err(failed)
}

/// The phase (i32) and the mask of its bits (i32) that a test compares: the state's whole phase
/// number, or with `parity` bit 0 of the operand.
pub fn wait_operands<'ctx>(
    site: &Site<'_, 'ctx>,
    parity: bool,
    phase: IntValue<'ctx>,
) -> Result<(IntValue<'ctx>, IntValue<'ctx>), Unsupported> {
    let i32_type = site.context.i32_type();
    if parity {
        Ok((phase, i32_type.const_int(1, false)))
    } else {
        Ok((phase_of(site, phase)?, i32_type.const_int(u64::from(mbarrier_object::PHASE_MASK), false)))
    }
}
