//! One channel of one texel in its stored format: its size, reading it as a `tex` result
//! (with `cudaReadModeNormalizedFloat`'s conversion of 8- and 16-bit integers), and writing a
//! `sust.p` channel value in the format.

use inkwell::values::{BasicValue, BasicValueEnum, FloatValue, IntValue, PointerValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_runtime::texture::{ChannelType, ReadMode, TextureField};

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

use super::descriptor::Descriptor;
use super::integer_type;

/// The format fields of a descriptor, loaded once per instruction.
#[derive(Clone, Copy)]
pub struct Format<'ctx> {
    pub channels: IntValue<'ctx>,
    pub channel_type: IntValue<'ctx>,
    /// Bytes per channel, `i32`.
    pub channel_bytes: IntValue<'ctx>,
    /// Bytes per texel, `i64`.
    pub texel_bytes: IntValue<'ctx>,
    pub normalized_read: IntValue<'ctx>,
    /// The handle's span, for internal errors.
    span: ptxr_frontend::Span,
}

impl<'ctx> Format<'ctx> {
    pub fn of(lowering: &FunctionLowering<'_, 'ctx>, descriptor: &Descriptor<'ctx>) -> LoweringResult<Format<'ctx>> {
        let context = lowering.shared.context;
        let builder = lowering.shared.builder;
        let i32_type = context.i32_type();
        let channels = descriptor.field(lowering, TextureField::Channels)?;
        let channel_type = descriptor.field(lowering, TextureField::ChannelType)?;
        let read_mode = descriptor.field(lowering, TextureField::ReadMode)?;
        let normalized_read = builder.build_int_compare(
            IntPredicate::EQ,
            read_mode,
            i32_type.const_int(ReadMode::NormalizedFloat as u64, false),
            "",
        )?;
        // 1 byte up to S8, 2 up to S16 and for F16, 4 otherwise.
        let below = |limit: ChannelType| {
            builder.build_int_compare(IntPredicate::ULE, channel_type, i32_type.const_int(limit as u64, false), "")
        };
        let is_half = builder.build_int_compare(
            IntPredicate::EQ,
            channel_type,
            i32_type.const_int(ChannelType::F16 as u64, false),
            "",
        )?;
        let two_or_four =
            builder.build_select(is_half, i32_type.const_int(2, false), i32_type.const_int(4, false), "")?;
        let at_most_two = builder.build_select(
            below(ChannelType::S16)?,
            i32_type.const_int(2, false),
            two_or_four.into_int_value(),
            "",
        )?;
        let channel_bytes = builder
            .build_select(below(ChannelType::S8)?, i32_type.const_int(1, false), at_most_two.into_int_value(), "")?
            .into_int_value();
        let texel_bytes = builder.build_int_mul(channel_bytes, channels, "")?;
        let texel_bytes = builder.build_int_z_extend(texel_bytes, context.i64_type(), "")?;
        Ok(Format { channels, channel_type, channel_bytes, texel_bytes, normalized_read, span: descriptor.span })
    }

    pub fn is(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        channel_type: ChannelType,
    ) -> LoweringResult<IntValue<'ctx>> {
        let i32_type = lowering.shared.context.i32_type();
        Ok(lowering.shared.builder.build_int_compare(
            IntPredicate::EQ,
            self.channel_type,
            i32_type.const_int(channel_type as u64, false),
            "",
        )?)
    }

    fn is_signed(&self, lowering: &FunctionLowering<'_, 'ctx>) -> LoweringResult<IntValue<'ctx>> {
        let builder = lowering.shared.builder;
        let s8 = self.is(lowering, ChannelType::S8)?;
        let s16 = self.is(lowering, ChannelType::S16)?;
        let s32 = self.is(lowering, ChannelType::S32)?;
        Ok(builder.build_or(builder.build_or(s8, s16, "")?, s32, "")?)
    }

    /// Channel `channel` of the texel at `texel`, sign- or zero-extended to `i32` by the
    /// channel type (float channels give their bits), or `None`'s stand-in when the texture
    /// has fewer channels: 0, or 1 for the fourth (alpha). The second value says whether the
    /// channel is missing.
    fn raw(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        texel: PointerValue<'ctx>,
        channel: u32,
    ) -> LoweringResult<(IntValue<'ctx>, IntValue<'ctx>)> {
        let context = lowering.shared.context;
        let builder = lowering.shared.builder;
        let i32_type = context.i32_type();
        let function = lowering.llvm_function;
        let present = builder.build_int_compare(
            IntPredicate::ULT,
            i32_type.const_int(u64::from(channel), false),
            self.channels,
            "",
        )?;
        let size = builder.build_select(present, self.channel_bytes, i32_type.const_zero(), "")?.into_int_value();
        let signed = self.is_signed(lowering)?;
        let offset = builder.build_int_mul(self.channel_bytes, i32_type.const_int(u64::from(channel), false), "")?;
        let merge = context.append_basic_block(function, "channel.merge");
        let missing = context.append_basic_block(function, "channel.missing");
        let mut incoming: Vec<(IntValue<'ctx>, inkwell::basic_block::BasicBlock<'ctx>)> = Vec::new();
        let cases: Vec<_> = [1u64, 2, 4]
            .iter()
            .map(|bytes| (i32_type.const_int(*bytes, false), context.append_basic_block(function, "channel.load")))
            .collect();
        builder.build_switch(size, missing, &cases)?;
        for (bytes, block) in &cases {
            builder.position_at_end(*block);
            let width = bytes.get_zero_extended_constant().unwrap_or(4) as u32;
            // SAFETY: the channel is one of the texel's (`present`).
            let pointer = unsafe { builder.build_gep(context.i8_type(), texel, &[offset], "") }?;
            let load = builder.build_load(integer_type(context, width * 8), pointer, "")?;
            if let Some(instruction) = load.as_instruction_value() {
                let _ = instruction.set_alignment(1);
            }
            let value = load.into_int_value();
            let value = if width == 4 {
                value
            } else {
                let extended_sign = builder.build_int_s_extend(value, i32_type, "")?;
                let extended_zero = builder.build_int_z_extend(value, i32_type, "")?;
                builder.build_select(signed, extended_sign, extended_zero, "")?.into_int_value()
            };
            builder.build_unconditional_branch(merge)?;
            incoming.push((value, *block));
        }
        builder.position_at_end(missing);
        builder.build_unconditional_branch(merge)?;
        incoming.push((i32_type.const_zero(), missing));
        builder.position_at_end(merge);
        let phi = builder.build_phi(i32_type, "channel")?;
        for (value, block) in &incoming {
            phi.add_incoming(&[(value, *block)]);
        }
        let absent = builder.build_not(present, "")?;
        Ok((phi.as_basic_value().into_int_value(), absent))
    }

    /// A channel as an integer result (`.s32`/`.u32`).
    pub fn read_integer(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        texel: PointerValue<'ctx>,
        channel: u32,
    ) -> LoweringResult<IntValue<'ctx>> {
        let (raw, absent) = self.raw(lowering, texel, channel)?;
        let i32_type = lowering.shared.context.i32_type();
        let stand_in = i32_type.const_int(u64::from(channel == 3), false);
        Ok(lowering.shared.builder.build_select(absent, stand_in, raw, "")?.into_int_value())
    }

    /// A channel as an `.f32` result: floats as stored (f16 widened), 8- and 16-bit integers
    /// divided by their largest value in normalized-float read mode (signed ones clamped at
    /// -1.0, as the Programming Guide says), other integers converted.
    pub fn read_float(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        texel: PointerValue<'ctx>,
        channel: u32,
    ) -> LoweringResult<FloatValue<'ctx>> {
        let context = lowering.shared.context;
        let builder = lowering.shared.builder;
        let f32_type = context.f32_type();
        let (raw, absent) = self.raw(lowering, texel, channel)?;
        let signed = self.is_signed(lowering)?;
        let as_f32 = builder.build_bit_cast(raw, f32_type, "")?.into_float_value();
        let half_bits = builder.build_int_truncate(raw, context.i16_type(), "")?;
        // Widened with integer operations, as `half/` does: LLVM's `half` would need SPIR-V's
        // Float16 capability, which OpenCL has only with `cl_khr_fp16`.
        let span = self.span;
        let half = crate::instructions::half::widen_to_double(lowering, half_bits, false, span)?;
        let from_half = builder.build_float_trunc(half, f32_type, "")?;
        let from_signed = builder.build_signed_int_to_float(raw, f32_type, "")?;
        let from_unsigned = builder.build_unsigned_int_to_float(raw, f32_type, "")?;
        let integer = builder.build_select(signed, from_signed, from_unsigned, "")?.into_float_value();
        // The largest value of the 8- and 16-bit types, which normalized reads divide by.
        let mut largest = f32_type.const_float(1.0);
        let mut normalizes = context.bool_type().const_zero();
        for (channel_type, value) in [
            (ChannelType::U8, 255.0),
            (ChannelType::S8, 127.0),
            (ChannelType::U16, 65535.0),
            (ChannelType::S16, 32767.0),
        ] {
            let is = self.is(lowering, channel_type)?;
            largest = builder.build_select(is, f32_type.const_float(value), largest, "")?.into_float_value();
            normalizes = builder.build_or(normalizes, is, "")?;
        }
        let normalizes = builder.build_and(normalizes, self.normalized_read, "")?;
        let divided = builder.build_float_div(integer, largest, "")?;
        let below = builder.build_float_compare(FloatPredicate::OLT, divided, f32_type.const_float(-1.0), "")?;
        let normalized = builder.build_select(below, f32_type.const_float(-1.0), divided, "")?.into_float_value();
        let mut value = builder.build_select(normalizes, normalized, integer, "")?.into_float_value();
        value = builder.build_select(self.is(lowering, ChannelType::F16)?, from_half, value, "")?.into_float_value();
        value = builder.build_select(self.is(lowering, ChannelType::F32)?, as_f32, value, "")?.into_float_value();
        let stand_in = f32_type.const_float(if channel == 3 { 1.0 } else { 0.0 });
        Ok(builder.build_select(absent, stand_in, value, "")?.into_float_value())
    }

    /// Writes a `sust.p` channel value (`.b32`: float bits for float and normalized formats,
    /// an integer otherwise) in the channel's format; a channel the texture lacks is skipped.
    pub fn write(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        texel: PointerValue<'ctx>,
        channel: u32,
        value: IntValue<'ctx>,
    ) -> LoweringResult<()> {
        let context = lowering.shared.context;
        let builder = lowering.shared.builder;
        let i32_type = context.i32_type();
        let f32_type = context.f32_type();
        let function = lowering.llvm_function;
        let as_float = builder.build_bit_cast(value, f32_type, "")?.into_float_value();
        // Normalized formats: the float clamped to [0, 1] (or [-1, 1]), scaled and rounded.
        let signed = self.is_signed(lowering)?;
        let low =
            builder.build_select(signed, f32_type.const_float(-1.0), f32_type.const_zero(), "")?.into_float_value();
        let clamped = crate::instructions::support::intrinsic(
            lowering,
            "llvm.maxnum",
            &[f32_type.into()],
            &[as_float.into(), low.into()],
            self.span,
        )?
        .into_float_value();
        let clamped = crate::instructions::support::intrinsic(
            lowering,
            "llvm.minnum",
            &[f32_type.into()],
            &[clamped.into(), f32_type.const_float(1.0).into()],
            self.span,
        )?
        .into_float_value();
        let mut largest = f32_type.const_float(1.0);
        for (channel_type, limit) in [
            (ChannelType::U8, 255.0),
            (ChannelType::S8, 127.0),
            (ChannelType::U16, 65535.0),
            (ChannelType::S16, 32767.0),
        ] {
            largest = builder
                .build_select(self.is(lowering, channel_type)?, f32_type.const_float(limit), largest, "")?
                .into_float_value();
        }
        let scaled = builder.build_float_mul(clamped, largest, "")?;
        let rounded = crate::instructions::support::intrinsic(
            lowering,
            "llvm.rint",
            &[f32_type.into()],
            &[scaled.into()],
            self.span,
        )?
        .into_float_value();
        let normalized = builder.build_float_to_signed_int(rounded, i32_type, "")?;
        let integer = builder.build_select(self.normalized_read, normalized, value, "")?.into_int_value();
        let wide = builder.build_float_ext(as_float, context.f64_type(), "")?;
        let span = self.span;
        let half_bits = crate::instructions::half::round_to_half(lowering, wide, span)?;
        let half_bits = builder.build_int_z_extend(half_bits, i32_type, "")?;
        let is_half = self.is(lowering, ChannelType::F16)?;
        let bits = builder.build_select(is_half, half_bits, integer, "")?.into_int_value();
        let is_float = self.is(lowering, ChannelType::F32)?;
        let bits = builder.build_select(is_float, value, bits, "")?.into_int_value();
        let present = builder.build_int_compare(
            IntPredicate::ULT,
            i32_type.const_int(u64::from(channel), false),
            self.channels,
            "",
        )?;
        let size = builder.build_select(present, self.channel_bytes, i32_type.const_zero(), "")?.into_int_value();
        let offset = builder.build_int_mul(self.channel_bytes, i32_type.const_int(u64::from(channel), false), "")?;
        let done = context.append_basic_block(function, "channel.stored");
        let cases: Vec<_> = [1u64, 2, 4]
            .iter()
            .map(|bytes| (i32_type.const_int(*bytes, false), context.append_basic_block(function, "channel.store")))
            .collect();
        builder.build_switch(size, done, &cases)?;
        for (bytes, block) in &cases {
            builder.position_at_end(*block);
            let width = bytes.get_zero_extended_constant().unwrap_or(4) as u32;
            let narrow = if width == 4 {
                bits
            } else {
                builder.build_int_truncate(bits, integer_type(context, width * 8), "")?
            };
            // SAFETY: the channel is one of the texel's (`present`).
            let pointer = unsafe { builder.build_gep(context.i8_type(), texel, &[offset], "") }?;
            let store = builder.build_store(pointer, BasicValueEnum::from(narrow))?;
            let _ = store.set_alignment(1);
            builder.build_unconditional_branch(done)?;
        }
        builder.position_at_end(done);
        Ok(())
    }
}
