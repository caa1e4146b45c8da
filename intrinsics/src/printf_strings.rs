//! `%s` of an address known only at run time, for the targets whose `printf` takes its strings
//! at compile time (OpenCL's, on SPIR-V and AMDGPU): CUDA's `printf("%s", odd ? "odd" : "even")`.
//!
//! Most such addresses are one of the module's own string constants, so the address is compared
//! with theirs (`PrintfCall::strings`: the constants lowering traced the slot to, through `selp`,
//! or else the module's, with null as `(null)`, as CUDA prints it) and the call branches to one
//! `printf` per combination of strings (a variant), each with its strings written into the
//! format. Each `vprintf` stays one `printf` call, so its text is never mixed with another
//! thread's. Past `VARIANT_LIMIT` combinations, or for an address that is none of the constants
//! (a string built in memory), the call prints in pieces instead: the format's text up to the
//! `%s` with its arguments, the string a few bytes per `printf` call (`%c`, up to `CHUNK` per
//! call, up to its NUL or its precision, padded to its width), then the rest. Those pieces may
//! interleave with other threads' output, where CUDA's line would be whole.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{BasicMetadataValueEnum, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};

use crate::printf_arguments::{format_string, llvm_error, vprintf_result, PrintfCall, StringArgument, StringField};
use crate::{Site, StringConstant, Unsupported};

/// The most `printf` variants one call branches to.
const VARIANT_LIMIT: usize = 16;
/// The most characters one `printf` of a string printed from memory takes.
const CHUNK: u64 = 8;
/// What CUDA prints for `%s` of a null pointer.
const NULL_TEXT: &[u8] = b"(null)";

/// Calls the target's `printf` with a format text and its arguments; returns its status.
pub type Print<'a, 'ctx> = &'a dyn Fn(&[u8], Vec<BasicMetadataValueEnum<'ctx>>) -> Result<IntValue<'ctx>, Unsupported>;

/// Prints `call` through `print`; the result is CUDA's (`vprintf_result`).
pub fn lower<'ctx>(
    site: &Site<'_, 'ctx>,
    call: &PrintfCall<'ctx>,
    generic: AddressSpace,
    print: Print<'_, 'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let count = call.count();
    let run_time: Vec<(usize, IntValue<'ctx>, Vec<StringConstant<'ctx>>, bool)> = call
        .strings
        .iter()
        .enumerate()
        .filter_map(|(position, string)| match string {
            Some(StringArgument::RunTime { address, choices, exact }) => {
                let mut choices = choices.clone();
                if !exact {
                    let null = address.get_type().const_zero();
                    choices.insert(0, StringConstant { address: null, text: NULL_TEXT.to_vec() });
                }
                Some((position, *address, choices, *exact))
            }
            _ => None,
        })
        .collect();
    if run_time.is_empty() {
        let status = print(&variant_text(call, &[]), arguments(call))?;
        return vprintf_result(site, status, count);
    }
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let variants = run_time.iter().try_fold(1usize, |product, (_, _, choices, _)| product.checked_mul(choices.len()));
    let variants = variants.filter(|&variants| variants <= VARIANT_LIMIT && variants > 0);
    let from_memory_needed = variants.is_none() || run_time.iter().any(|(_, _, _, exact)| !exact);
    let done = context.append_basic_block(site.function, "printf.done");
    let from_memory = from_memory_needed.then(|| context.insert_basic_block_after(done, "printf.from_memory"));
    let mut results: Vec<(IntValue<'ctx>, BasicBlock<'ctx>)> = Vec::new();
    match variants {
        Some(variants) => {
            // The variant number: each address's choice, in mixed radix; `variants` (the default
            // of the switch) when some address is none of its choices.
            let mut selector = i32_type.const_zero();
            let mut missed = context.bool_type().const_zero();
            let mut stride = 1u64;
            for (_, address, choices, exact) in &run_time {
                let mut choice = i32_type.const_int(choices.len() as u64, false);
                let compared = if *exact { &choices[..choices.len() - 1] } else { &choices[..] };
                if *exact {
                    choice = i32_type.const_int(choices.len() as u64 - 1, false);
                }
                for (index, constant) in compared.iter().enumerate().rev() {
                    let equal = builder
                        .build_int_compare(IntPredicate::EQ, *address, constant.address, "")
                        .map_err(llvm_error)?;
                    let index = i32_type.const_int(index as u64, false);
                    choice = builder.build_select(equal, index, choice, "").map_err(llvm_error)?.into_int_value();
                }
                if !exact {
                    let none = i32_type.const_int(choices.len() as u64, false);
                    let miss = builder.build_int_compare(IntPredicate::EQ, choice, none, "").map_err(llvm_error)?;
                    missed = builder.build_or(missed, miss, "").map_err(llvm_error)?;
                }
                let scaled =
                    builder.build_int_mul(choice, i32_type.const_int(stride, false), "").map_err(llvm_error)?;
                selector = builder.build_int_add(selector, scaled, "").map_err(llvm_error)?;
                stride *= choices.len() as u64;
            }
            let outside = i32_type.const_int(variants as u64, false);
            let selector = builder.build_select(missed, outside, selector, "printf.variant").map_err(llvm_error)?;
            let blocks: Vec<BasicBlock<'ctx>> = (0..variants)
                .map(|variant| context.insert_basic_block_after(done, &format!("printf.variant{variant}")))
                .collect();
            let default = from_memory.unwrap_or(blocks[variants - 1]);
            let cases: Vec<(IntValue<'ctx>, BasicBlock<'ctx>)> = blocks
                .iter()
                .enumerate()
                .map(|(index, block)| (i32_type.const_int(index as u64, false), *block))
                .collect();
            builder.build_switch(selector.into_int_value(), default, &cases).map_err(llvm_error)?;
            for (variant, block) in blocks.iter().enumerate() {
                builder.position_at_end(*block);
                let mut remaining = variant;
                let chosen: Vec<(usize, &[u8])> = run_time
                    .iter()
                    .map(|(position, _, choices, _)| {
                        let choice = remaining % choices.len();
                        remaining /= choices.len();
                        (*position, choices[choice].text.as_slice())
                    })
                    .collect();
                let status = print(&variant_text(call, &chosen), arguments(call))?;
                let result = vprintf_result(site, status, count)?;
                results.push((result, current_block(site)?));
                builder.build_unconditional_branch(done).map_err(llvm_error)?;
            }
        }
        None => {
            let from_memory = from_memory.ok_or_else(|| llvm_error("no block to print from memory"))?;
            builder.build_unconditional_branch(from_memory).map_err(llvm_error)?;
        }
    }
    if let Some(from_memory) = from_memory {
        builder.position_at_end(from_memory);
        let failed = print_in_pieces(site, call, generic, print)?;
        let count = i32_type.const_int(count as u64, false);
        let result = builder.build_select(failed, i32_type.const_all_ones(), count, "").map_err(llvm_error)?;
        results.push((result.into_int_value(), current_block(site)?));
        builder.build_unconditional_branch(done).map_err(llvm_error)?;
    }
    builder.position_at_end(done);
    let phi = builder.build_phi(i32_type, "vprintf.result").map_err(llvm_error)?;
    for (value, block) in &results {
        phi.add_incoming(&[(value, *block)]);
    }
    Ok(phi.as_basic_value().into_int_value())
}

fn current_block<'ctx>(site: &Site<'_, 'ctx>) -> Result<BasicBlock<'ctx>, Unsupported> {
    site.builder.get_insert_block().ok_or_else(|| llvm_error("the builder has no block"))
}

/// The values of the arguments other than `%s`, in order.
fn arguments<'ctx>(call: &PrintfCall<'ctx>) -> Vec<BasicMetadataValueEnum<'ctx>> {
    call.values.iter().flatten().copied().collect()
}

/// The format with every `%s` written in: the traced constants, and `chosen` (by argument
/// position) for those read at run time.
fn variant_text(call: &PrintfCall<'_>, chosen: &[(usize, &[u8])]) -> Vec<u8> {
    let mut text = call.text.clone();
    // From the last conversion back, so that earlier ranges stay where they are.
    for (position, range) in call.conversions.iter().enumerate().rev() {
        let string = match &call.strings[position] {
            Some(StringArgument::Constant(string)) => string.as_slice(),
            Some(StringArgument::RunTime { .. }) => {
                chosen.iter().find(|(at, _)| *at == position).map_or(&b""[..], |(_, string)| string)
            }
            None => continue,
        };
        let formatted = format_string(&text[range.clone()], string);
        text.splice(range.clone(), formatted);
    }
    text
}

/// Whether `status` (a `printf` status) is a failure, or'ed into `failed`.
fn note_failure<'ctx>(
    site: &Site<'_, 'ctx>,
    failed: IntValue<'ctx>,
    status: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let negative =
        builder.build_int_compare(IntPredicate::SLT, status, status.get_type().const_zero(), "").map_err(llvm_error)?;
    builder.build_or(failed, negative, "printf.failed").map_err(llvm_error)
}

/// Prints the call a piece at a time: its text between run-time `%s` conversions with their
/// arguments, and each such string from memory. Returns whether some `printf` failed.
fn print_in_pieces<'ctx>(
    site: &Site<'_, 'ctx>,
    call: &PrintfCall<'ctx>,
    generic: AddressSpace,
    print: Print<'_, 'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let mut failed = site.context.bool_type().const_zero();
    let mut text = Vec::new();
    let mut values = Vec::new();
    let mut cursor = 0;
    let flush = |text: &mut Vec<u8>, values: &mut Vec<BasicMetadataValueEnum<'ctx>>, failed| {
        if text.is_empty() {
            return Ok(failed);
        }
        let status = print(&std::mem::take(text), std::mem::take(values))?;
        note_failure(site, failed, status)
    };
    for (position, range) in call.conversions.iter().enumerate() {
        let conversion = &call.text[range.clone()];
        match (&call.strings[position], call.values[position]) {
            (Some(StringArgument::Constant(string)), _) => {
                text.extend_from_slice(&call.text[cursor..range.start]);
                text.extend(format_string(conversion, string));
            }
            (Some(StringArgument::RunTime { address, .. }), _) => {
                text.extend_from_slice(&call.text[cursor..range.start]);
                failed = flush(&mut text, &mut values, failed)?;
                failed = print_from_memory(site, conversion, *address, generic, failed, print)?;
            }
            (None, value) => {
                text.extend_from_slice(&call.text[cursor..range.end]);
                values.extend(value);
            }
        }
        cursor = range.end;
    }
    text.extend_from_slice(&call.text[cursor..]);
    flush(&mut text, &mut values, failed)
}

/// Prints the string at `address` (an integer generic address) as the `%s` conversion
/// `conversion` does; null prints as `(null)`. Returns `failed` or'ed with its failures.
fn print_from_memory<'ctx>(
    site: &Site<'_, 'ctx>,
    conversion: &[u8],
    address: IntValue<'ctx>,
    generic: AddressSpace,
    failed: IntValue<'ctx>,
    print: Print<'_, 'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i64_type = context.i64_type();
    let field = StringField::of(conversion);
    let null = context.append_basic_block(site.function, "printf.null_string");
    let memory = context.append_basic_block(site.function, "printf.string");
    let joined = context.append_basic_block(site.function, "printf.string_done");
    let is_null = builder
        .build_int_compare(IntPredicate::EQ, address, address.get_type().const_zero(), "")
        .map_err(llvm_error)?;
    builder.build_conditional_branch(is_null, null, memory).map_err(llvm_error)?;

    builder.position_at_end(null);
    let status = print(&format_string(conversion, NULL_TEXT), Vec::new())?;
    let failed_null = note_failure(site, failed, status)?;
    let null_end = current_block(site)?;
    builder.build_unconditional_branch(joined).map_err(llvm_error)?;

    builder.position_at_end(memory);
    let pointer = builder.build_int_to_ptr(address, context.ptr_type(generic), "printf.string").map_err(llvm_error)?;
    let length = string_length(site, pointer, field.precision)?;
    let width = i64_type.const_int(field.width as u64, false);
    let mut failed_memory = failed;
    let padding = if field.width > 0 {
        let longer = builder.build_int_compare(IntPredicate::UGT, width, length, "").map_err(llvm_error)?;
        let difference = builder.build_int_sub(width, length, "").map_err(llvm_error)?;
        let zero = i64_type.const_zero();
        Some(builder.build_select(longer, difference, zero, "printf.padding").map_err(llvm_error)?.into_int_value())
    } else {
        None
    };
    if let (Some(padding), false) = (padding, field.left) {
        failed_memory = print_run(site, Run::Spaces, padding, failed_memory, print)?;
    }
    failed_memory = print_run(site, Run::Bytes(pointer), length, failed_memory, print)?;
    if let (Some(padding), true) = (padding, field.left) {
        failed_memory = print_run(site, Run::Spaces, padding, failed_memory, print)?;
    }
    let memory_end = current_block(site)?;
    builder.build_unconditional_branch(joined).map_err(llvm_error)?;

    builder.position_at_end(joined);
    let phi = builder.build_phi(context.bool_type(), "printf.failed").map_err(llvm_error)?;
    phi.add_incoming(&[(&failed_null, null_end), (&failed_memory, memory_end)]);
    Ok(phi.as_basic_value().into_int_value())
}

/// The number of bytes before the NUL at `pointer`, at most `precision`: no byte past either
/// is read, as C's `%s` reads none.
fn string_length<'ctx>(
    site: &Site<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
    precision: Option<usize>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i64_type = context.i64_type();
    let start = current_block(site)?;
    let header = context.append_basic_block(site.function, "printf.length");
    let read = context.append_basic_block(site.function, "printf.length_read");
    let next = context.append_basic_block(site.function, "printf.length_next");
    let done = context.append_basic_block(site.function, "printf.length_done");
    builder.build_unconditional_branch(header).map_err(llvm_error)?;

    builder.position_at_end(header);
    let index = builder.build_phi(i64_type, "printf.index").map_err(llvm_error)?;
    let index_value = index.as_basic_value().into_int_value();
    match precision {
        Some(precision) => {
            let limit = i64_type.const_int(precision as u64, false);
            let within = builder.build_int_compare(IntPredicate::ULT, index_value, limit, "").map_err(llvm_error)?;
            builder.build_conditional_branch(within, read, done).map_err(llvm_error)?;
        }
        None => {
            builder.build_unconditional_branch(read).map_err(llvm_error)?;
        }
    }

    builder.position_at_end(read);
    let byte = load_byte(site, pointer, index_value)?;
    let more =
        builder.build_int_compare(IntPredicate::NE, byte, byte.get_type().const_zero(), "").map_err(llvm_error)?;
    builder.build_conditional_branch(more, next, done).map_err(llvm_error)?;

    builder.position_at_end(next);
    let following = builder.build_int_add(index_value, i64_type.const_int(1, false), "").map_err(llvm_error)?;
    builder.build_unconditional_branch(header).map_err(llvm_error)?;
    index.add_incoming(&[(&i64_type.const_zero(), start), (&following, next)]);

    builder.position_at_end(done);
    Ok(index_value)
}

/// The byte at `pointer + index`.
fn load_byte<'ctx>(
    site: &Site<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
    index: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let i8_type = site.context.i8_type();
    // SAFETY: a byte of the string, before its NUL (the caller's loop bounds it).
    let address = unsafe { site.builder.build_in_bounds_gep(i8_type, pointer, &[index], "") }.map_err(llvm_error)?;
    Ok(site.builder.build_load(i8_type, address, "printf.byte").map_err(llvm_error)?.into_int_value())
}

/// What `print_run` prints.
#[derive(Clone, Copy)]
enum Run<'ctx> {
    /// Spaces (padding).
    Spaces,
    /// The bytes from this address on.
    Bytes(PointerValue<'ctx>),
}

/// Prints `count` bytes of `run`, up to `CHUNK` per `printf` call. Returns `failed` or'ed with
/// the calls' failures.
fn print_run<'ctx>(
    site: &Site<'_, 'ctx>,
    run: Run<'ctx>,
    count: IntValue<'ctx>,
    failed: IntValue<'ctx>,
    print: Print<'_, 'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i64_type = context.i64_type();
    let start = current_block(site)?;
    let header = context.append_basic_block(site.function, "printf.run");
    let body = context.append_basic_block(site.function, "printf.run_chunk");
    let latch = context.append_basic_block(site.function, "printf.run_next");
    let exit = context.append_basic_block(site.function, "printf.run_done");
    builder.build_unconditional_branch(header).map_err(llvm_error)?;

    builder.position_at_end(header);
    let printed = builder.build_phi(i64_type, "printf.printed").map_err(llvm_error)?;
    let printed_value = printed.as_basic_value().into_int_value();
    let failed_phi = builder.build_phi(context.bool_type(), "printf.failed").map_err(llvm_error)?;
    let failed_value = failed_phi.as_basic_value().into_int_value();
    let more = builder.build_int_compare(IntPredicate::ULT, printed_value, count, "").map_err(llvm_error)?;
    builder.build_conditional_branch(more, body, exit).map_err(llvm_error)?;

    builder.position_at_end(body);
    let remaining = builder.build_int_sub(count, printed_value, "").map_err(llvm_error)?;
    let chunk_limit = i64_type.const_int(CHUNK, false);
    let small = builder.build_int_compare(IntPredicate::ULT, remaining, chunk_limit, "").map_err(llvm_error)?;
    let chunk =
        builder.build_select(small, remaining, chunk_limit, "printf.chunk").map_err(llvm_error)?.into_int_value();
    let blocks: Vec<BasicBlock<'ctx>> =
        (1..=CHUNK).map(|size| context.insert_basic_block_after(body, &format!("printf.chunk{size}"))).collect();
    let cases: Vec<(IntValue<'ctx>, BasicBlock<'ctx>)> = blocks[..blocks.len() - 1]
        .iter()
        .enumerate()
        .map(|(index, block)| (i64_type.const_int(index as u64 + 1, false), *block))
        .collect();
    builder.build_switch(chunk, blocks[blocks.len() - 1], &cases).map_err(llvm_error)?;
    let mut incoming = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        let size = index as u64 + 1;
        builder.position_at_end(*block);
        let status = match run {
            Run::Spaces => print(&vec![b' '; size as usize], Vec::new())?,
            Run::Bytes(pointer) => {
                let mut values = Vec::new();
                for offset in 0..size {
                    let at = builder
                        .build_int_add(printed_value, i64_type.const_int(offset, false), "")
                        .map_err(llvm_error)?;
                    let byte = load_byte(site, pointer, at)?;
                    // `%c` takes an `int` and prints it as an `unsigned char`.
                    let value = builder.build_int_z_extend(byte, context.i32_type(), "").map_err(llvm_error)?;
                    values.push(value.into());
                }
                print(&b"%c".repeat(size as usize), values)?
            }
        };
        let failed_here = note_failure(site, failed_value, status)?;
        incoming.push((failed_here, current_block(site)?));
        builder.build_unconditional_branch(latch).map_err(llvm_error)?;
    }

    builder.position_at_end(latch);
    let failed_next = builder.build_phi(context.bool_type(), "printf.failed").map_err(llvm_error)?;
    for (value, block) in &incoming {
        failed_next.add_incoming(&[(value, *block)]);
    }
    let printed_next = builder.build_int_add(printed_value, chunk, "").map_err(llvm_error)?;
    builder.build_unconditional_branch(header).map_err(llvm_error)?;
    printed.add_incoming(&[(&i64_type.const_zero(), start), (&printed_next, latch)]);
    failed_phi.add_incoming(&[(&failed, start), (&failed_next.as_basic_value(), latch)]);

    builder.position_at_end(exit);
    Ok(failed_value)
}
