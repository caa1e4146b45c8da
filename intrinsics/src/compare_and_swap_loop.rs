//! The retry loop around a compare-and-swap, which every atomic update that no single
//! instruction does is built from (SPIR-V's wrapping increment and decrement, `mbarrier`
//! arrivals, the device heap's free lists, 16-bit and packed float atomics in lowering): read
//! the old value, compute the new one from it, swap it in if the memory still holds the old
//! value, else try again with what the memory holds.
//!
//! The loop is begun and finished in two calls so that what comes between, the new value, is
//! built by the caller with its own error type.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{IntValue, PhiValue, PointerValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::MemoryOrdering;

use crate::atomics::compare_and_swap;
use crate::{Site, Unsupported};

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("an atomic loop ({error})") }
}

/// The names in the IR of a loop's retry block, of the block after it and of the old value.
#[derive(Clone, Copy, Debug)]
pub struct LoopNames {
    pub retry: &'static str,
    pub done: &'static str,
    pub old: &'static str,
}

/// A compare-and-swap loop whose builder stands in the retry block, after [`Self::begin`].
pub struct CompareAndSwapLoop<'ctx> {
    /// The value the memory held when this try began: the caller's `initial` on entry, what
    /// the failed swap saw on a retry.
    pub old: IntValue<'ctx>,
    phi: PhiValue<'ctx>,
    initial: IntValue<'ctx>,
    entry: BasicBlock<'ctx>,
    retry: BasicBlock<'ctx>,
    done: BasicBlock<'ctx>,
}

impl<'ctx> CompareAndSwapLoop<'ctx> {
    /// Ends the current block with a jump into the loop, whose first try starts from
    /// `initial` (loaded by the caller, in the ordering it needs), and leaves the builder in
    /// the loop, where the caller computes the new value from [`Self::old`].
    pub fn begin(
        site: &Site<'_, 'ctx>,
        initial: IntValue<'ctx>,
        names: LoopNames,
    ) -> Result<CompareAndSwapLoop<'ctx>, Unsupported> {
        let builder = site.builder;
        let entry = builder.get_insert_block().ok_or_else(|| Unsupported { what: "an unpositioned builder".into() })?;
        let retry = site.context.append_basic_block(site.function, names.retry);
        let done = site.context.append_basic_block(site.function, names.done);
        builder.build_unconditional_branch(retry).map_err(failed)?;
        builder.position_at_end(retry);
        let phi = builder.build_phi(initial.get_type(), names.old).map_err(failed)?;
        let old = phi.as_basic_value().into_int_value();
        Ok(CompareAndSwapLoop { old, phi, initial, entry, retry, done })
    }

    /// Swaps `replacement` into `pointer` if it still holds [`Self::old`], else tries again;
    /// leaves the builder after the loop and returns the old value that the successful swap
    /// replaced. `alignment` is the value's size.
    pub fn finish(
        self,
        site: &Site<'_, 'ctx>,
        pointer: PointerValue<'ctx>,
        replacement: IntValue<'ctx>,
        ordering: MemoryOrdering,
        scope: &str,
        alignment: u32,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let builder = site.builder;
        let seen = compare_and_swap(site, pointer, self.old.into(), replacement.into(), ordering, scope, alignment)?
            .into_int_value();
        let swapped = builder.build_int_compare(IntPredicate::EQ, seen, self.old, "").map_err(failed)?;
        let retry_end = builder.get_insert_block().unwrap_or(self.retry);
        builder.build_conditional_branch(swapped, self.done, self.retry).map_err(failed)?;
        self.phi.add_incoming(&[(&self.initial, self.entry), (&seen, retry_end)]);
        builder.position_at_end(self.done);
        Ok(self.old)
    }
}
