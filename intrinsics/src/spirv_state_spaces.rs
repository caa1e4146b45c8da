//! `isspacep` on SPIR-V, by the address ranges of each window (ISA 7.8 sections 6.4.1.1 and
//! 9.7.8.16). A generic address on OpenCL carries no mark of its space that a kernel can read:
//! `OpGenericPtrMemSemantics` has no LLVM intrinsic that the SPIR-V back end lowers, and
//! OpenCL's `to_global`/`to_local`/`to_private` (`OpGenericCastToPtrExplicit`) return the
//! pointer for every space on Intel's CPU runtime (2026.2), whose local and private memory are
//! both on the work-item's stack. So each window is what ptxr placed or was told, as on the CPU
//! (`cpu.rs`), assuming addresses from PTX's own sources:
//! - `.shared`: the block's `__local` window, `[base, base + static bytes + dynamic bytes)`.
//! - `.const`: the module's `.const` variables (CrossWorkgroup globals).
//! - `.param`: the kernel's own copies of its parameters, which it keeps in one private frame
//!   and records in the launch arguments (`spirv_launch_arguments.rs`) for its callees.
//! - `.global`: the launch's buffers (a table the host passes through the launch arguments),
//!   the module's `.global` variables, its device heap (`device_heap.rs`), and the `.param`
//!   window, which lies inside the `.global` one.
//! - `.local`: none of `.global`, `.shared` and `.const`: the thread's `.local` variables and a
//!   `.func`'s parameters (section 5.1.6.4 puts those whose address is taken in `.local`).

use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValue, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use ptxr_frontend::vocabulary::StateSpace;

use crate::address_ranges::{in_any, AddressRange};
use crate::{PlacedMemory, Site, Target, Unsupported};

/// `bool ptxr.in_launch_buffers(ulong table, ulong address)`: whether `address` lies in one of
/// the table's ranges (`abi::opencl::launch_arguments::LAUNCH_BUFFERS`); false for a null table.
const IN_LAUNCH_BUFFERS: &str = "ptxr.in_launch_buffers";
/// SPIR-V's CrossWorkgroup address space, where the host's table lies.
const CROSS_WORKGROUP: u16 = 1;
/// LLVM's `spir_func` calling convention.
const SPIR_FUNC: u32 = 75;

fn failed(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("`isspacep` ({error})") }
}

/// `isspacep.space` of the generic `address` on SPIR-V (see the module's documentation).
pub(crate) fn is_in_state_space<'ctx>(
    site: &Site<'_, 'ctx>,
    address: PointerValue<'ctx>,
    state_space: StateSpace,
    placed: &PlacedMemory<'ctx>,
    target: &dyn Target,
) -> Result<IntValue<'ctx>, Unsupported> {
    match state_space {
        StateSpace::Const => in_any(site, address, &placed.constants),
        StateSpace::Shared => in_shared_window(site, address, placed),
        StateSpace::Param => in_kernel_parameters(site, address),
        StateSpace::Global => in_global(site, address, placed, target),
        StateSpace::Local => {
            let builder = site.builder;
            let mut elsewhere = in_global(site, address, placed, target)?;
            for inside in [in_shared_window(site, address, placed)?, in_any(site, address, &placed.constants)?] {
                elsewhere = builder.build_or(elsewhere, inside, "").map_err(failed)?;
            }
            builder.build_not(elsewhere, "is.local").map_err(failed)
        }
        other => Err(Unsupported { what: format!("`isspacep{other}`") }),
    }
}

/// In the block's shared window, whose end the launch arguments give where the launch sizes
/// its dynamic part; false in a module without `.shared` variables, which has no window.
fn in_shared_window<'ctx>(
    site: &Site<'_, 'ctx>,
    address: PointerValue<'ctx>,
    placed: &PlacedMemory<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let Some(window) = &placed.shared_window else {
        return Ok(site.context.bool_type().const_zero());
    };
    let bytes = if window.has_dynamic {
        crate::spirv_launch_arguments::window_bytes(site, window.static_bytes)?
    } else {
        site.context.i64_type().const_int(window.static_bytes, false)
    };
    in_any(site, address, &[AddressRange { start: window.base, bytes }])
}

/// In the kernel's own copies of its parameters, as the launch arguments give them.
fn in_kernel_parameters<'ctx>(
    site: &Site<'_, 'ctx>,
    address: PointerValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let (start, bytes) = crate::spirv_launch_arguments::kernel_parameter_window(site)?;
    let start = site.builder.build_int_to_ptr(start, address.get_type(), "").map_err(failed)?;
    in_any(site, address, &[AddressRange { start, bytes }])
}

/// In the launch's buffers, the module's `.global` variables and heap, or the kernel's
/// parameters (the `.param` window lies inside the `.global` one).
fn in_global<'ctx>(
    site: &Site<'_, 'ctx>,
    address: PointerValue<'ctx>,
    placed: &PlacedMemory<'ctx>,
    target: &dyn Target,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let mut ranges = placed.globals.clone();
    if placed.device_heap {
        ranges.push(crate::device_heap::region(site, target)?);
    }
    let in_module = in_any(site, address, &ranges)?;
    let table = crate::spirv_launch_arguments::launch_buffers(site)?;
    let integer = builder.build_ptr_to_int(address, site.context.i64_type(), "").map_err(failed)?;
    let lookup = launch_buffers_function(site.context, site.module)?;
    let call = builder.build_call(lookup, &[table.into(), integer.into()], "").map_err(failed)?;
    call.set_call_convention(SPIR_FUNC);
    let in_launch = call
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| failed(format!("{IN_LAUNCH_BUFFERS} returned nothing")))?
        .into_int_value();
    let in_parameters = in_kernel_parameters(site, address)?;
    let inside = builder.build_or(in_module, in_launch, "").map_err(failed)?;
    builder.build_or(inside, in_parameters, "is.global").map_err(failed)
}

/// [`IN_LAUNCH_BUFFERS`], defined on first use: a loop over the table's pairs, since the launch
/// decides how many buffers it has.
fn launch_buffers_function<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
) -> Result<FunctionValue<'ctx>, Unsupported> {
    if let Some(function) = module.get_function(IN_LAUNCH_BUFFERS) {
        return Ok(function);
    }
    let i64_type = context.i64_type();
    let bool_type = context.bool_type();
    let function = module.add_function(
        IN_LAUNCH_BUFFERS,
        bool_type.fn_type(&[i64_type.into(), i64_type.into()], false),
        Some(Linkage::Internal),
    );
    function.set_call_conventions(SPIR_FUNC);
    let (Some(table), Some(address)) = (function.get_nth_param(0), function.get_nth_param(1)) else {
        return Err(failed(format!("{IN_LAUNCH_BUFFERS} without its parameters")));
    };
    let (table, address) = (table.into_int_value(), address.into_int_value());
    table.set_name("table");
    address.set_name("address");
    let builder = context.create_builder();
    let block = |name: &str| context.append_basic_block(function, name);
    let (entry, read, test, check, next, found, absent) =
        (block("entry"), block("read"), block("test"), block("check"), block("next"), block("found"), block("absent"));
    let global = context.ptr_type(AddressSpace::from(CROSS_WORKGROUP));
    let word = |index: IntValue<'ctx>| -> Result<IntValue<'ctx>, Unsupported> {
        let base = builder.build_int_to_ptr(table, global, "").map_err(failed)?;
        // SAFETY: the host's table holds `1 + 2 n` words, and `index` stays below that.
        let pointer = unsafe { builder.build_in_bounds_gep(i64_type, base, &[index], "") }.map_err(failed)?;
        let load = builder.build_load(i64_type, pointer, "").map_err(failed)?;
        load.as_instruction_value()
            .ok_or_else(|| failed("a load that is no instruction"))?
            .set_alignment(8)
            .map_err(failed)?;
        Ok(load.into_int_value())
    };

    builder.position_at_end(entry);
    let null = builder.build_int_compare(IntPredicate::EQ, table, i64_type.const_zero(), "").map_err(failed)?;
    builder.build_conditional_branch(null, absent, read).map_err(failed)?;

    builder.position_at_end(read);
    let count = word(i64_type.const_zero())?;
    builder.build_unconditional_branch(test).map_err(failed)?;

    // `range` counts the pairs tested so far.
    builder.position_at_end(test);
    let range = builder.build_phi(i64_type, "range").map_err(failed)?;
    let range_value = range.as_basic_value().into_int_value();
    let more = builder.build_int_compare(IntPredicate::ULT, range_value, count, "").map_err(failed)?;
    builder.build_conditional_branch(more, check, absent).map_err(failed)?;

    builder.position_at_end(check);
    let pair = builder.build_int_mul(range_value, i64_type.const_int(2, false), "").map_err(failed)?;
    let begin_index = builder.build_int_add(pair, i64_type.const_int(1, false), "").map_err(failed)?;
    let end_index = builder.build_int_add(pair, i64_type.const_int(2, false), "").map_err(failed)?;
    let begin = word(begin_index)?;
    let end = word(end_index)?;
    // `begin <= address < end`, as one unsigned comparison of offsets.
    let offset = builder.build_int_sub(address, begin, "").map_err(failed)?;
    let bytes = builder.build_int_sub(end, begin, "").map_err(failed)?;
    let inside = builder.build_int_compare(IntPredicate::ULT, offset, bytes, "").map_err(failed)?;
    builder.build_conditional_branch(inside, found, next).map_err(failed)?;

    builder.position_at_end(next);
    let following = builder.build_int_add(range_value, i64_type.const_int(1, false), "").map_err(failed)?;
    builder.build_unconditional_branch(test).map_err(failed)?;
    range.add_incoming(&[(&i64_type.const_zero(), read), (&following, next)]);

    builder.position_at_end(found);
    builder.build_return(Some(&bool_type.const_all_ones())).map_err(failed)?;
    builder.position_at_end(absent);
    builder.build_return(Some(&bool_type.const_zero())).map_err(failed)?;
    Ok(function)
}
