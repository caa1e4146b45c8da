//! CUDA's `vprintf` and `__assertfail` on AMDGPU, through the OpenCL printf that LLVM's AMDGPU
//! back end implements: a variadic `printf` whose format (in the constant address space) is a
//! string constant is rewritten during code generation by the `amdgpu-printf-runtime-binding`
//! pass, which stores a format number and the argument values into the printf buffer (space
//! taken by calling `__printf_alloc(bytes)`), and lists every format in the code object's
//! `amdhsa.printf` metadata (`"ID:COUNT:SIZE:...:FORMAT"`), with the kernel's hidden
//! `hidden_printf_buffer` argument; the ROCm runtime prints from the buffer after the kernel.
//! The format and arguments come from `printf_arguments.rs`, shared with SPIR-V.
//!
//! `__printf_alloc` is ROCm's device library's; ptxr links none, so each module that prints
//! defines it (internal, kept until code generation through `llvm.compiler.used`): the printf
//! buffer's address is at byte 72 of the code object v5 implicit arguments, and the buffer is a
//! `u32` write offset and a `u32` size, then the records; a record is taken by advancing the
//! offset with a compare-and-swap, and a full buffer gives null, which `printf` reports as -1.

use inkwell::module::Linkage;
use inkwell::values::{BasicValue, FunctionValue, IntValue};
use inkwell::{AddressSpace, IntPredicate};
use ptxr_frontend::ir::MemoryOrdering;

use crate::atomics::{compare_and_swap, order_access};
use crate::declare::call_intrinsic;
use crate::printf_arguments::{self, constant_global, escape_percent, llvm_error, prepare};
use crate::{DeviceFunctionCall, Site, Unsupported};

/// AMDGPU's address spaces: flat (generic), global, constant.
const FLAT: u16 = 0;
const GLOBAL: u16 = 1;
const CONSTANT: u16 = 4;
/// `hidden_printf_buffer` in the code object v5 implicit kernel arguments.
const PRINTF_BUFFER_OFFSET: u64 = 72;
/// The buffer's header: the write offset and the size, `u32` each.
const BUFFER_HEADER_BYTES: u64 = 8;
/// The allocator that the printf pass calls.
const ALLOCATOR: &str = "__printf_alloc";
/// LLVM's C calling convention, which `printf` keeps on AMDGPU.
const C_CALLING_CONVENTION: u32 = 0;

/// Calls `printf` with a constant format and already read arguments; returns its status.
fn call_printf<'ctx>(
    site: &Site<'_, 'ctx>,
    text: &[u8],
    arguments: Vec<inkwell::values::BasicMetadataValueEnum<'ctx>>,
) -> Result<IntValue<'ctx>, Unsupported> {
    define_allocator(site)?;
    let constant = AddressSpace::from(CONSTANT);
    let format = constant_global(site, text, constant, "printf_format").as_pointer_value();
    let mut values = vec![format.into()];
    values.extend(arguments);
    printf_arguments::call_printf(site, constant, &values, C_CALLING_CONVENTION)
}

/// Lowers one `vprintf` call; the result is CUDA's, an `i32`.
pub fn call<'ctx>(site: &Site<'_, 'ctx>, call: &DeviceFunctionCall<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let flat = AddressSpace::from(FLAT);
    // LLVM 22's printf pass sizes a `%s` constant with its NUL in the metadata but stores it
    // without, so the runtime misreads every later argument of a string whose length is a
    // multiple of 4; the strings are written into the format instead (`printf_strings.rs`),
    // and one read at run time goes through a variant per string or `%c`.
    let prepared = prepare(site, call, flat)?;
    let print = |text: &[u8], arguments| call_printf(site, text, arguments);
    crate::printf_strings::lower(site, &prepared, flat, &print)
}

/// `__assertfail(message, file, line, function, char_size)`: prints CUDA's assertion message
/// through `printf`, then traps. The strings are those lowering traced (`?` where it could not),
/// written into the format, as `%s` arguments are (see `call`).
pub fn assert_fail<'ctx>(site: &Site<'_, 'ctx>, call: &DeviceFunctionCall<'ctx>) -> Result<(), Unsupported> {
    let [_, _, line, _, _] = call.arguments[..] else {
        return Err(Unsupported { what: "`__assertfail` without its five arguments".into() });
    };
    let text = |index: usize| escape_percent(call.strings.get(index).cloned().flatten().as_deref().unwrap_or(b"?"));
    let (message, file, function) = (text(0), text(1), text(3));
    let format = [
        &file[..],
        b":%u: ",
        &function,
        b": block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `",
        &message,
        b"` failed.\n",
    ]
    .concat();
    let mut arguments: Vec<inkwell::values::BasicMetadataValueEnum<'ctx>> =
        vec![crate::declare::to_i32(site, line)?.into()];
    for register in ["workgroup", "workitem"] {
        for dimension in ["x", "y", "z"] {
            arguments.push(call_intrinsic(site, &format!("llvm.amdgcn.{register}.id.{dimension}"), &[], &[])?.into());
        }
    }
    call_printf(site, &format, arguments)?;
    crate::declare::call_intrinsic_or_void(site, "llvm.trap", &[])?;
    Ok(())
}

/// Defines `__printf_alloc` once per module (see the module's documentation).
fn define_allocator<'ctx>(site: &Site<'_, 'ctx>) -> Result<FunctionValue<'ctx>, Unsupported> {
    if let Some(allocator) = site.module.get_function(ALLOCATOR) {
        return Ok(allocator);
    }
    let context = site.context;
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let i8_type = context.i8_type();
    let global = context.ptr_type(AddressSpace::from(GLOBAL));
    let allocator =
        site.module.add_function(ALLOCATOR, global.fn_type(&[i32_type.into()], false), Some(Linkage::Internal));
    keep_until_code_generation(site, allocator);

    let builder = context.create_builder();
    let inner = Site { context, module: site.module, builder: &builder, function: allocator, launch_arguments: None };
    let entry = context.append_basic_block(allocator, "entry");
    let retry = context.append_basic_block(allocator, "retry");
    let attempt = context.append_basic_block(allocator, "attempt");
    let taken = context.append_basic_block(allocator, "taken");
    let full = context.append_basic_block(allocator, "full");
    builder.position_at_end(entry);
    let bytes = allocator.get_first_param().ok_or_else(|| llvm_error("no size parameter"))?.into_int_value();
    let implicit = call_intrinsic(&inner, "llvm.amdgcn.implicitarg.ptr", &[], &[])?.into_pointer_value();
    // SAFETY: byte 72 of the implicit arguments, inside their v5 layout.
    let slot = unsafe {
        builder.build_in_bounds_gep(i8_type, implicit, &[i64_type.const_int(PRINTF_BUFFER_OFFSET, false)], "")
    }
    .map_err(llvm_error)?;
    let buffer = builder.build_load(global, slot, "printf_buffer").map_err(llvm_error)?;
    if let Some(instruction) = buffer.as_instruction_value() {
        instruction.set_alignment(8).map_err(llvm_error)?;
    }
    let buffer = buffer.into_pointer_value();
    let no_buffer = builder.build_is_null(buffer, "").map_err(llvm_error)?;
    let header = context.append_basic_block(allocator, "header");
    builder.build_conditional_branch(no_buffer, full, header).map_err(llvm_error)?;
    builder.position_at_end(header);
    // SAFETY: the size field, bytes 4 to 8 of the buffer's header.
    let size_field = unsafe { builder.build_in_bounds_gep(i8_type, buffer, &[i64_type.const_int(4, false)], "") }
        .map_err(llvm_error)?;
    let size = builder.build_load(i32_type, size_field, "size").map_err(llvm_error)?.into_int_value();
    let initial = builder.build_load(i32_type, buffer, "offset").map_err(llvm_error)?;
    if let Some(instruction) = initial.as_instruction_value() {
        instruction.set_alignment(4).map_err(llvm_error)?;
        order_access(&inner, instruction, MemoryOrdering::Relaxed, "agent");
    }
    builder.build_unconditional_branch(retry).map_err(llvm_error)?;

    builder.position_at_end(retry);
    let offset = builder.build_phi(i32_type, "offset").map_err(llvm_error)?;
    let offset_value = offset.as_basic_value().into_int_value();
    // In 64 bits, so that no size wraps around.
    let wide = |value: IntValue<'ctx>| builder.build_int_z_extend(value, i64_type, "").map_err(llvm_error);
    let end = builder.build_int_add(wide(offset_value)?, wide(bytes)?, "").map_err(llvm_error)?;
    let needed = builder.build_int_add(end, i64_type.const_int(BUFFER_HEADER_BYTES, false), "").map_err(llvm_error)?;
    let fits = builder.build_int_compare(IntPredicate::ULE, needed, wide(size)?, "fits").map_err(llvm_error)?;
    builder.build_conditional_branch(fits, attempt, full).map_err(llvm_error)?;

    builder.position_at_end(attempt);
    let next = builder.build_int_add(offset_value, bytes, "").map_err(llvm_error)?;
    let seen = compare_and_swap(&inner, buffer, offset_value.into(), next.into(), MemoryOrdering::Relaxed, "agent", 4)?
        .into_int_value();
    let swapped = builder.build_int_compare(IntPredicate::EQ, seen, offset_value, "").map_err(llvm_error)?;
    builder.build_conditional_branch(swapped, taken, retry).map_err(llvm_error)?;
    offset.add_incoming(&[(&initial, header), (&seen, attempt)]);

    builder.position_at_end(taken);
    let start = builder
        .build_int_add(wide(offset_value)?, i64_type.const_int(BUFFER_HEADER_BYTES, false), "")
        .map_err(llvm_error)?;
    // SAFETY: the record lies inside the buffer, as the size check said.
    let record = unsafe { builder.build_in_bounds_gep(i8_type, buffer, &[start], "record") }.map_err(llvm_error)?;
    builder.build_return(Some(&record)).map_err(llvm_error)?;

    builder.position_at_end(full);
    builder.build_return(Some(&global.const_null())).map_err(llvm_error)?;
    Ok(allocator)
}

/// Lists `function` in `llvm.compiler.used`, so that the optimiser keeps it although nothing
/// calls it until the printf pass runs in code generation.
fn keep_until_code_generation<'ctx>(site: &Site<'_, 'ctx>, function: FunctionValue<'ctx>) {
    let pointer = site.context.ptr_type(AddressSpace::from(FLAT));
    let list = pointer.const_array(&[function.as_global_value().as_pointer_value()]);
    let used = site.module.add_global(list.get_type(), None, "llvm.compiler.used");
    used.set_initializer(&list);
    used.set_linkage(Linkage::Appending);
    used.set_section(Some("llvm.metadata"));
}
