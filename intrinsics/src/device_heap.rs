//! CUDA's device heap (`malloc` and `free`, ptx-abi.md section 4.3) for the GPU targets whose
//! platforms give ptxr none to call: AMDGPU (ROCm's heap is run by its device library, whose
//! structures are no documented interface) and SPIR-V (OpenCL has no device heap). The module
//! gets its own heap and allocator, built here once for both targets from what the `Target`
//! says about them: the global and generic address spaces, the device-wide atomic scope and
//! the calling convention of functions.
//!
//! The heap is CUDA's default `cudaLimitMallocHeapSize`, 8 MiB, as the CPU runtime's: a
//! zero-initialised module variable in the global address space (`ptxr.heap`), beside its state:
//! the bytes carved from it so far (`ptxr.heap.carved`) and one free list per size class
//! (`ptxr.heap.free.N`).
//! Blocks are powers of two from 32 bytes to the whole heap, each with a 16-byte header (its
//! size class, and the free list's link while it is free) before the memory `malloc` returns,
//! which is therefore 16-byte aligned, as CUDA guarantees.
//!
//! Everything is lock-free: the lanes of a GPU wave or sub-group run in lockstep, and Intel's
//! CPU OpenCL runs a group's work-items as SIMD lanes or one after another, so a lane spinning
//! on a lock that another lane of its own wave holds would never see it released. Every loop
//! here is a compare-and-swap retry in which some contender always succeeds:
//! - `malloc` takes a block of its class from the class's free list (a Treiber stack whose
//!   head carries a 32-bit tag, advanced by every push and pop, against ABA: a head popped,
//!   reused and pushed back in between no longer matches), or else carves one from the bump
//!   offset; when fresh memory has run out, it takes a block of a larger class (whole: blocks
//!   are neither split nor merged), and returns null when none is free either, as CUDA's does.
//! - `free` pushes the block onto the list of the class its header records. Null, and
//!   addresses outside the heap or not at a block's start, are ignored (freeing those is
//!   undefined in CUDA).
//!
//! `malloc(0)` returns null: CUDA's programming guide does not say what a size of 0 gives, C
//! allows null or a unique pointer, and null is what ptxr's CPU runtime returns.

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::IntType;
use inkwell::values::{BasicValue, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use ptxr_frontend::ir::{MemoryOrdering, MemoryScope};
use ptxr_frontend::vocabulary::StateSpace;

use crate::atomics::{compare_and_swap, order_access};
use crate::compare_and_swap_loop::{CompareAndSwapLoop, LoopNames};
use crate::{DeviceFunction, DeviceFunctionCall, DeviceFunctionLowering, Site, Target, Unsupported};

/// CUDA's default heap size, as the CPU runtime's (`cudaLimitMallocHeapSize`).
const HEAP_BYTES: u64 = 8 << 20;
/// The header before each block's memory: its size class (`u32` at 0), the free list's link
/// (`u32` at 4) while it is free. 16 bytes keep the memory 16-byte aligned.
const HEADER_BYTES: u64 = 16;
/// Blocks (header included) are `2^n` bytes for `n` in this range: 32 bytes up to the heap.
const SMALLEST_BLOCK_LOG2: u64 = 5;
const LARGEST_BLOCK_LOG2: u64 = 23;
/// The number of size classes, and of free lists.
const CLASSES: u64 = LARGEST_BLOCK_LOG2 - SMALLEST_BLOCK_LOG2 + 1;
/// A free list's head is one 32-bit word (SPIR-V for OpenCL has no 64-bit atomics without
/// the Int64Atomics capability, which OpenCL grants only through an extension): the low
/// `UNIT_BITS` bits are the first block's memory offset in 16-byte units (0: the list is
/// empty; offsets are 16 to 8 MiB - 16), the rest a tag counting the list's pops, against ABA.
const UNIT_LOG2: u64 = 4;
const UNIT_BITS: u64 = LARGEST_BLOCK_LOG2 - UNIT_LOG2;
const UNIT_MASK: u64 = (1 << UNIT_BITS) - 1;

/// The names of the heap's variables and functions; the dots keep them apart from every PTX
/// identifier.
const HEAP: &str = "ptxr.heap";
const CARVED: &str = "ptxr.heap.carved";
/// The free lists' heads, `ptxr.heap.free.0` and on.
const LIST: &str = "ptxr.heap.free.";
const MALLOC: &str = "ptxr.heap.malloc";
const FREE: &str = "ptxr.heap.free";
const POP: &str = "ptxr.heap.pop";
const PUSH: &str = "ptxr.heap.push";

/// A builder operation that LLVM refused.
fn failed(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("the device heap ({error})") }
}

fn internal(what: &str) -> Unsupported {
    Unsupported { what: format!("the device heap ({what})") }
}

/// What the allocator needs to know of its target.
struct HeapTarget {
    global: AddressSpace,
    generic: AddressSpace,
    /// The LLVM `syncscope` of the whole device: allocations are shared by the grid.
    scope: &'static str,
    calling_convention: u32,
}

fn heap_target(target: &dyn Target) -> HeapTarget {
    HeapTarget {
        global: target.address_space(StateSpace::Global),
        generic: target.address_space(StateSpace::Generic),
        scope: target.sync_scope(MemoryScope::Gpu),
        calling_convention: target.function_calling_convention(),
    }
}

/// The heap's region, where every block `malloc` returns lies (`isspacep.global`), defining
/// the heap and its functions if the module has none yet: `isspacep` may be lowered before
/// the module's first `malloc` is.
pub fn region<'ctx>(
    site: &Site<'_, 'ctx>,
    target: &dyn Target,
) -> Result<crate::address_ranges::AddressRange<'ctx>, Unsupported> {
    let region = match site.module.get_global(HEAP) {
        Some(region) => region,
        None => {
            define_functions(site.context, site.module, &heap_target(target))?;
            site.module.get_global(HEAP).ok_or_else(|| internal("its region"))?
        }
    };
    Ok(crate::address_ranges::AddressRange {
        start: region.as_pointer_value(),
        bytes: site.context.i64_type().const_int(HEAP_BYTES, false),
    })
}

/// A call of `malloc` or `free` (the other device functions are not the heap's).
pub fn call<'ctx>(
    site: &Site<'_, 'ctx>,
    call: &DeviceFunctionCall<'ctx>,
    target: &dyn Target,
) -> Result<DeviceFunctionLowering<'ctx>, Unsupported> {
    if call.pointer_bits != 64 {
        // The heap is a module variable, and those have 64-bit addresses on the GPU targets.
        return Err(Unsupported { what: format!("`{}` with `.address_size 32`", call.function.name()) });
    }
    let heap = heap_target(target);
    let argument = call.arguments.first().copied().ok_or_else(|| Unsupported {
        what: format!("`{}` without the argument ptx-abi.md gives it", call.function.name()),
    })?;
    // `size_t` is unsigned.
    let argument =
        site.builder.build_int_z_extend_or_bit_cast(argument, site.context.i64_type(), "").map_err(failed)?;
    let (name, returns) = match call.function {
        DeviceFunction::Malloc => (MALLOC, true),
        DeviceFunction::Free => (FREE, false),
        DeviceFunction::Printf | DeviceFunction::AssertFail => {
            return Err(Unsupported { what: format!("`{}` as a heap function", call.function.name()) })
        }
    };
    let function = match site.module.get_function(name) {
        Some(function) => function,
        None => {
            define_functions(site.context, site.module, &heap)?;
            site.module.get_function(name).ok_or_else(|| internal("its functions"))?
        }
    };
    let called = site.builder.build_call(function, &[argument.into()], "").map_err(failed)?;
    called.set_call_convention(heap.calling_convention);
    let result = called.try_as_basic_value().basic().map(|value| value.into_int_value());
    Ok(DeviceFunctionLowering::Lowered(if returns { result } else { None }))
}

/// The heap's variables: the region, the bytes carved from it so far, and the head of each
/// class's free list (see `UNIT_BITS`).
///
/// Each word is a variable of its own, so that every atomic names one directly (a class's head
/// is chosen by `select`s where the class is not a constant): LLVM 22's SPIR-V back end
/// addressed a `cmpxchg` on a constant offset into an array variable in units of the
/// instruction's result type instead of bytes, which swapped the wrong word.
struct Variables<'ctx> {
    region: PointerValue<'ctx>,
    carved: PointerValue<'ctx>,
    lists: Vec<PointerValue<'ctx>>,
}

fn variables<'ctx>(context: &'ctx Context, module: &Module<'ctx>, space: AddressSpace) -> Variables<'ctx> {
    let global = |value_type: inkwell::types::BasicTypeEnum<'ctx>, name: &str, alignment: u32| {
        let variable = module.add_global(value_type, Some(space), name);
        variable.set_initializer(&value_type.const_zero());
        variable.set_linkage(Linkage::Internal);
        variable.set_alignment(alignment);
        variable.as_pointer_value()
    };
    let i32_type = context.i32_type();
    Variables {
        region: global(context.i8_type().array_type(HEAP_BYTES as u32).into(), HEAP, 16),
        carved: global(i32_type.into(), CARVED, 4),
        lists: (0..CLASSES).map(|class| global(i32_type.into(), &format!("{LIST}{class}"), 4)).collect(),
    }
}

/// Defines `ptxr.heap.malloc(i64 size) -> i64` and `ptxr.heap.free(i64 address)`, which take
/// and give generic addresses as integers, and the two list operations they share.
fn define_functions<'ctx>(context: &'ctx Context, module: &Module<'ctx>, heap: &HeapTarget) -> Result<(), Unsupported> {
    let allocator = Allocator {
        context,
        module,
        builder: context.create_builder(),
        variables: variables(context, module, heap.global),
        heap,
    };
    let pop = allocator.define_pop()?;
    let push = allocator.define_push()?;
    allocator.define_malloc(pop)?;
    allocator.define_free(push)?;
    Ok(())
}

struct Allocator<'a, 'ctx> {
    context: &'ctx Context,
    module: &'a Module<'ctx>,
    builder: Builder<'ctx>,
    variables: Variables<'ctx>,
    heap: &'a HeapTarget,
}

impl<'ctx> Allocator<'_, 'ctx> {
    fn i32(&self) -> IntType<'ctx> {
        self.context.i32_type()
    }

    fn i64(&self) -> IntType<'ctx> {
        self.context.i64_type()
    }

    fn function(&self, name: &str, function_type: inkwell::types::FunctionType<'ctx>) -> FunctionValue<'ctx> {
        let function = self.module.add_function(name, function_type, Some(Linkage::Internal));
        function.set_call_conventions(self.heap.calling_convention);
        self.builder.position_at_end(self.context.append_basic_block(function, "entry"));
        function
    }

    fn site(&self, function: FunctionValue<'ctx>) -> Site<'_, 'ctx> {
        Site { context: self.context, module: self.module, builder: &self.builder, function, launch_arguments: None }
    }

    /// A byte of the heap at `offset`, in the global address space.
    fn byte(&self, offset: IntValue<'ctx>) -> Result<PointerValue<'ctx>, Unsupported> {
        // SAFETY: the offsets lie inside the heap by the allocator's construction.
        unsafe { self.builder.build_in_bounds_gep(self.context.i8_type(), self.variables.region, &[offset], "") }
            .map_err(failed)
    }

    /// The head of free list `class` (an `i32`).
    fn list_head(&self, class: IntValue<'ctx>) -> Result<PointerValue<'ctx>, Unsupported> {
        let mut lists = self.variables.lists.iter().enumerate().rev();
        let (_, &last) = lists.next().ok_or_else(|| internal("the free lists"))?;
        let mut head = last;
        for (index, &list) in lists {
            let is_class = self
                .builder
                .build_int_compare(IntPredicate::EQ, class, self.i32().const_int(index as u64, false), "")
                .map_err(failed)?;
            head = self.builder.build_select(is_class, list, head, "list").map_err(failed)?.into_pointer_value();
        }
        Ok(head)
    }

    /// The free-list link in the header of the block whose memory starts at `offset`.
    fn link(&self, offset: IntValue<'ctx>) -> Result<PointerValue<'ctx>, Unsupported> {
        let at =
            self.builder.build_int_sub(offset, self.i64().const_int(HEADER_BYTES - 4, false), "").map_err(failed)?;
        self.byte(at)
    }

    /// An atomic load of `pointer` with `ordering` at device scope.
    fn load(
        &self,
        function: FunctionValue<'ctx>,
        value_type: IntType<'ctx>,
        pointer: PointerValue<'ctx>,
        ordering: MemoryOrdering,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let value = self.builder.build_load(value_type, pointer, "").map_err(failed)?.into_int_value();
        let instruction = value.as_instruction_value().ok_or_else(|| internal("a load"))?;
        instruction.set_alignment(value_type.get_bit_width() / 8).map_err(failed)?;
        order_access(&self.site(function), instruction, ordering, self.heap.scope);
        Ok(value)
    }

    /// The 16-byte unit of a list head (0: the list is empty), as an `i32`.
    fn unit(&self, head: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        self.builder.build_and(head, self.i32().const_int(UNIT_MASK, false), "unit").map_err(failed)
    }

    /// The memory offset of a unit, as an `i64`.
    fn unit_offset(&self, unit: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        let unit = self.builder.build_int_z_extend(unit, self.i64(), "").map_err(failed)?;
        self.builder.build_left_shift(unit, self.i64().const_int(UNIT_LOG2, false), "offset").map_err(failed)
    }
    /// `i64 pop(i32 class)`: the offset of the memory of a block taken from the class's free
    /// list, or 0 when the list is empty.
    fn define_pop(&self) -> Result<FunctionValue<'ctx>, Unsupported> {
        let (builder, i32_type, i64_type) = (&self.builder, self.i32(), self.i64());
        let function = self.function(POP, i64_type.fn_type(&[i32_type.into()], false));
        let class = function.get_nth_param(0).ok_or_else(|| internal("pop's class"))?.into_int_value();
        let head = self.list_head(class)?;
        // Acquire: the link in the first block's header was written before its push released it.
        let first = self.load(function, i32_type, head, MemoryOrdering::Acquire)?;
        let entry = builder.get_insert_block().ok_or_else(|| internal("a block"))?;
        let retry = self.context.append_basic_block(function, "pop.retry");
        let take = self.context.append_basic_block(function, "pop.take");
        let empty = self.context.append_basic_block(function, "pop.empty");
        let taken = self.context.append_basic_block(function, "pop.taken");
        builder.build_unconditional_branch(retry).map_err(failed)?;

        builder.position_at_end(retry);
        let old = builder.build_phi(i32_type, "old").map_err(failed)?;
        let old_value = old.as_basic_value().into_int_value();
        let unit = self.unit(old_value)?;
        let is_empty = builder.build_int_compare(IntPredicate::EQ, unit, i32_type.const_zero(), "").map_err(failed)?;
        builder.build_conditional_branch(is_empty, empty, take).map_err(failed)?;

        builder.position_at_end(take);
        let offset = self.unit_offset(unit)?;
        // Another lane may take this block first and reuse it, so the link read may be stale;
        // the tag then makes the swap fail. The read is atomic, as the pushes' writes are.
        let next = self.load(function, i32_type, self.link(offset)?, MemoryOrdering::Relaxed)?;
        // The tag counts pops: a head that was popped and pushed back differs from `old`.
        let tag = builder
            .build_and(old_value, i32_type.const_int(!UNIT_MASK & u64::from(u32::MAX), false), "")
            .map_err(failed)?;
        let tag = builder.build_int_add(tag, i32_type.const_int(UNIT_MASK + 1, false), "tag").map_err(failed)?;
        let replacement = builder.build_or(tag, next, "").map_err(failed)?;
        let seen = compare_and_swap(
            &self.site(function),
            head,
            old_value.into(),
            replacement.into(),
            MemoryOrdering::AcquireRelease,
            self.heap.scope,
            4,
        )?
        .into_int_value();
        let swapped = builder.build_int_compare(IntPredicate::EQ, seen, old_value, "").map_err(failed)?;
        builder.build_conditional_branch(swapped, taken, retry).map_err(failed)?;
        old.add_incoming(&[(&first, entry), (&seen, take)]);

        builder.position_at_end(taken);
        builder.build_return(Some(&offset)).map_err(failed)?;
        builder.position_at_end(empty);
        builder.build_return(Some(&i64_type.const_zero())).map_err(failed)?;
        Ok(function)
    }

    /// `void push(i32 class, i64 offset)`: puts the block whose memory is at `offset` on the
    /// class's free list.
    fn define_push(&self) -> Result<FunctionValue<'ctx>, Unsupported> {
        let (builder, i32_type, i64_type) = (&self.builder, self.i32(), self.i64());
        let function =
            self.function(PUSH, self.context.void_type().fn_type(&[i32_type.into(), i64_type.into()], false));
        let missing = || internal("push's parameters");
        let class = function.get_nth_param(0).ok_or_else(missing)?.into_int_value();
        let offset = function.get_nth_param(1).ok_or_else(missing)?.into_int_value();
        let head = self.list_head(class)?;
        let link = self.link(offset)?;
        let unit =
            builder.build_right_shift(offset, i64_type.const_int(UNIT_LOG2, false), false, "").map_err(failed)?;
        let unit = builder.build_int_truncate(unit, i32_type, "unit").map_err(failed)?;
        let first = self.load(function, i32_type, head, MemoryOrdering::Relaxed)?;
        let site = self.site(function);
        let names = LoopNames { retry: "push.retry", done: "push.done", old: "old" };
        let retry_loop = CompareAndSwapLoop::begin(&site, first, names)?;
        let old_value = retry_loop.old;
        let store = builder.build_store(link, self.unit(old_value)?).map_err(failed)?;
        store.set_alignment(4).map_err(failed)?;
        order_access(&site, store, MemoryOrdering::Relaxed, self.heap.scope);
        let tag = builder
            .build_and(old_value, i32_type.const_int(!UNIT_MASK & u64::from(u32::MAX), false), "tag")
            .map_err(failed)?;
        let replacement = builder.build_or(tag, unit, "").map_err(failed)?;
        // Release: the link, and the freeing thread's writes to the block, reach the next owner.
        retry_loop.finish(&site, head, replacement, MemoryOrdering::Release, self.heap.scope, 4)?;
        builder.build_return(None).map_err(failed)?;
        Ok(function)
    }

    /// `i64 malloc(i64 size)`: the generic address of at least `size` bytes, or 0.
    fn define_malloc(&self, pop: FunctionValue<'ctx>) -> Result<(), Unsupported> {
        let (context, builder, i32_type, i64_type) = (self.context, &self.builder, self.i32(), self.i64());
        let function = self.function(MALLOC, i64_type.fn_type(&[i64_type.into()], false));
        let size = function.get_nth_param(0).ok_or_else(|| internal("malloc's size"))?.into_int_value();
        let block = |name: &str| context.append_basic_block(function, name);
        let (classify, bump, bump_swap, carved, larger, larger_loop, larger_pop, larger_next, found, none) = (
            block("classify"),
            block("bump"),
            block("bump.swap"),
            block("carved"),
            block("larger"),
            block("larger.loop"),
            block("larger.pop"),
            block("larger.next"),
            block("found"),
            block("none"),
        );
        let constant = |value: u64| i64_type.const_int(value, false);
        let call_pop = |class: IntValue<'ctx>| -> Result<IntValue<'ctx>, Unsupported> {
            let called = builder.build_call(pop, &[class.into()], "taken").map_err(failed)?;
            called.set_call_convention(self.heap.calling_convention);
            called.try_as_basic_value().basic().map(|value| value.into_int_value()).ok_or_else(|| internal("pop"))
        };

        // Sizes of 0 and beyond the heap get null.
        let zero = builder.build_int_compare(IntPredicate::EQ, size, constant(0), "").map_err(failed)?;
        let too_large = builder
            .build_int_compare(IntPredicate::UGT, size, constant(HEAP_BYTES - HEADER_BYTES), "")
            .map_err(failed)?;
        let refused = builder.build_or(zero, too_large, "").map_err(failed)?;
        builder.build_conditional_branch(refused, none, classify).map_err(failed)?;

        // The class: the block is the smallest power of two of at least 32 bytes that holds
        // the header and `size` bytes, 2^(64 - clz(needed - 1)) (needed - 1 >= 16).
        builder.position_at_end(classify);
        let needed_less_one = builder.build_int_add(size, constant(HEADER_BYTES - 1), "").map_err(failed)?;
        let ctlz = crate::declare::call_intrinsic(
            &self.site(function),
            "llvm.ctlz",
            &[i64_type.into()],
            &[needed_less_one.into(), context.bool_type().const_zero().into()],
        )?
        .into_int_value();
        let log2 = builder.build_int_sub(constant(64), ctlz, "log2").map_err(failed)?;
        let block_bytes = builder.build_left_shift(constant(1), log2, "").map_err(failed)?;
        let block_bytes = builder.build_int_truncate(block_bytes, i32_type, "block_bytes").map_err(failed)?;
        let class = builder.build_int_sub(log2, constant(SMALLEST_BLOCK_LOG2), "").map_err(failed)?;
        let class = builder.build_int_truncate(class, i32_type, "class").map_err(failed)?;
        let own = call_pop(class)?;
        let has_own = builder.build_int_compare(IntPredicate::NE, own, constant(0), "").map_err(failed)?;
        let classify_end = builder.get_insert_block().unwrap_or(classify);
        builder.build_conditional_branch(has_own, found, bump).map_err(failed)?;

        // Fresh memory: advance the bump offset if the block fits.
        builder.position_at_end(bump);
        let carved_so_far = self.load(function, i32_type, self.variables.carved, MemoryOrdering::Relaxed)?;
        let bump_entry = builder.get_insert_block().unwrap_or(bump);
        let bump_try = block("bump.try");
        builder.build_unconditional_branch(bump_try).map_err(failed)?;
        builder.position_at_end(bump_try);
        let top = builder.build_phi(i32_type, "top").map_err(failed)?;
        let top_value = top.as_basic_value().into_int_value();
        let end = builder.build_int_add(top_value, block_bytes, "end").map_err(failed)?;
        let fits = builder
            .build_int_compare(IntPredicate::ULE, end, i32_type.const_int(HEAP_BYTES, false), "")
            .map_err(failed)?;
        builder.build_conditional_branch(fits, bump_swap, larger).map_err(failed)?;
        builder.position_at_end(bump_swap);
        let seen = compare_and_swap(
            &self.site(function),
            self.variables.carved,
            top_value.into(),
            end.into(),
            MemoryOrdering::Relaxed,
            self.heap.scope,
            4,
        )?
        .into_int_value();
        let swapped = builder.build_int_compare(IntPredicate::EQ, seen, top_value, "").map_err(failed)?;
        let swap_end = builder.get_insert_block().unwrap_or(bump_swap);
        builder.build_conditional_branch(swapped, carved, bump_try).map_err(failed)?;
        top.add_incoming(&[(&carved_so_far, bump_entry), (&seen, swap_end)]);

        // A carved block records its class once; it keeps it through every reuse.
        builder.position_at_end(carved);
        let start = builder.build_int_z_extend(top_value, i64_type, "start").map_err(failed)?;
        let store = builder.build_store(self.byte(start)?, class).map_err(failed)?;
        store.set_alignment(16).map_err(failed)?;
        let fresh = builder.build_int_add(start, constant(HEADER_BYTES), "fresh").map_err(failed)?;
        builder.build_unconditional_branch(found).map_err(failed)?;

        // No fresh memory: a free block of a larger class, whole.
        builder.position_at_end(larger);
        let above = builder.build_int_add(class, i32_type.const_int(1, false), "").map_err(failed)?;
        builder.build_unconditional_branch(larger_loop).map_err(failed)?;
        builder.position_at_end(larger_loop);
        let candidate = builder.build_phi(i32_type, "candidate").map_err(failed)?;
        let candidate_value = candidate.as_basic_value().into_int_value();
        let more = builder
            .build_int_compare(IntPredicate::ULT, candidate_value, i32_type.const_int(CLASSES, false), "")
            .map_err(failed)?;
        builder.build_conditional_branch(more, larger_pop, none).map_err(failed)?;
        builder.position_at_end(larger_pop);
        let other = call_pop(candidate_value)?;
        let has_other = builder.build_int_compare(IntPredicate::NE, other, constant(0), "").map_err(failed)?;
        let larger_pop_end = builder.get_insert_block().unwrap_or(larger_pop);
        builder.build_conditional_branch(has_other, found, larger_next).map_err(failed)?;
        builder.position_at_end(larger_next);
        let following = builder.build_int_add(candidate_value, i32_type.const_int(1, false), "").map_err(failed)?;
        builder.build_unconditional_branch(larger_loop).map_err(failed)?;
        candidate.add_incoming(&[(&above, larger), (&following, larger_next)]);

        // The block's memory as a generic address.
        builder.position_at_end(found);
        let offset = builder.build_phi(i64_type, "offset").map_err(failed)?;
        offset.add_incoming(&[(&own, classify_end), (&fresh, carved), (&other, larger_pop_end)]);
        let memory = self.byte(offset.as_basic_value().into_int_value())?;
        let generic =
            builder.build_address_space_cast(memory, context.ptr_type(self.heap.generic), "").map_err(failed)?;
        let address = builder.build_ptr_to_int(generic, i64_type, "address").map_err(failed)?;
        builder.build_return(Some(&address)).map_err(failed)?;

        builder.position_at_end(none);
        builder.build_return(Some(&constant(0))).map_err(failed)?;
        Ok(())
    }

    /// `void free(i64 address)`.
    fn define_free(&self, push: FunctionValue<'ctx>) -> Result<(), Unsupported> {
        let (context, builder, i32_type, i64_type) = (self.context, &self.builder, self.i32(), self.i64());
        let function = self.function(FREE, context.void_type().fn_type(&[i64_type.into()], false));
        let address = function.get_nth_param(0).ok_or_else(|| internal("free's address"))?.into_int_value();
        let (read_class, give_back, done) = (
            context.append_basic_block(function, "class"),
            context.append_basic_block(function, "give"),
            context.append_basic_block(function, "done"),
        );
        let constant = |value: u64| i64_type.const_int(value, false);

        // The offset from the heap's generic address: null, and every address outside the
        // heap, wraps or lies past it.
        let generic = builder
            .build_address_space_cast(self.variables.region, context.ptr_type(self.heap.generic), "")
            .map_err(failed)?;
        let base = builder.build_ptr_to_int(generic, i64_type, "base").map_err(failed)?;
        let offset = builder.build_int_sub(address, base, "offset").map_err(failed)?;
        let past_header = builder.build_int_sub(offset, constant(HEADER_BYTES), "").map_err(failed)?;
        let inside = builder
            .build_int_compare(IntPredicate::ULT, past_header, constant(HEAP_BYTES - HEADER_BYTES), "")
            .map_err(failed)?;
        let misaligned = builder.build_and(offset, constant(HEADER_BYTES - 1), "").map_err(failed)?;
        let aligned = builder.build_int_compare(IntPredicate::EQ, misaligned, constant(0), "").map_err(failed)?;
        let plausible = builder.build_and(inside, aligned, "").map_err(failed)?;
        builder.build_conditional_branch(plausible, read_class, done).map_err(failed)?;

        builder.position_at_end(read_class);
        let header = builder.build_load(i32_type, self.byte(past_header)?, "class").map_err(failed)?;
        let header_load = header.as_instruction_value().ok_or_else(|| internal("a load"))?;
        header_load.set_alignment(16).map_err(failed)?;
        let class = header.into_int_value();
        let known = builder
            .build_int_compare(IntPredicate::ULT, class, i32_type.const_int(CLASSES, false), "")
            .map_err(failed)?;
        builder.build_conditional_branch(known, give_back, done).map_err(failed)?;

        builder.position_at_end(give_back);
        let called = builder.build_call(push, &[class.into(), offset.into()], "").map_err(failed)?;
        called.set_call_convention(self.heap.calling_convention);
        builder.build_unconditional_branch(done).map_err(failed)?;

        builder.position_at_end(done);
        builder.build_return(None).map_err(failed)?;
        Ok(())
    }
}
