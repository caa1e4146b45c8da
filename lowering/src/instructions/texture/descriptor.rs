//! The texture descriptor a handle points to, and its fields at the offsets the runtime's
//! `#[repr(C)]` struct has (`ptxr_runtime::texture::TextureField`). A descriptor viewed at a
//! mipmap level (`mipmap::at_level`) answers that level's size, pitches and texels instead of
//! level 0's, so the addressing and filtering code serves every level unchanged.

use inkwell::values::{BasicValue, IntValue, PointerValue};
use ptxr_frontend::ir::{Operand, Value};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};
use ptxr_runtime::texture::TextureField;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// A descriptor in global memory.
#[derive(Clone, Copy)]
pub struct Descriptor<'ctx> {
    pointer: PointerValue<'ctx>,
    /// Where the instruction names the handle, for diagnostics about its lowering.
    pub span: ptxr_frontend::Span,
    /// The mipmap level this view reads; `None`: level 0, straight from the fields.
    level: Option<LevelFields<'ctx>>,
}

/// The fields that differ from one mipmap level to the next.
#[derive(Clone, Copy)]
pub struct LevelFields<'ctx> {
    /// `i32`s.
    pub width: IntValue<'ctx>,
    pub height: IntValue<'ctx>,
    pub depth: IntValue<'ctx>,
    /// `i64`s.
    pub row_pitch: IntValue<'ctx>,
    pub slice_pitch: IntValue<'ctx>,
    pub data: IntValue<'ctx>,
}

impl<'ctx> Descriptor<'ctx> {
    /// The descriptor of a handle: a `.u64` texture or surface object, or a `.texref`/`.surfref`
    /// variable, whose storage is the descriptor itself.
    pub fn of(lowering: &FunctionLowering<'_, 'ctx>, handle: &Operand) -> LoweringResult<Descriptor<'ctx>> {
        if let Value::AddressOf(id) = &handle.value {
            if lowering.variable(*id).state_space != StateSpace::Tex
                || !matches!(id, ptxr_frontend::ir::VariableId::Global(_))
            {
                return Err(LoweringError::unsupported(
                    "a texture, sampler or surface parameter (`.param .texref`); pass a `.u64` texture object or use a module-scope `.texref`",
                    lowering.target_name(),
                    handle.span,
                ));
            }
        }
        let address = lowering.read_int(handle, ScalarType::U64)?;
        let global = lowering.shared.context.ptr_type(lowering.shared.target.address_space(StateSpace::Global));
        let pointer = lowering.shared.builder.build_int_to_ptr(address, global, "texture")?;
        Ok(Descriptor { pointer, span: handle.span, level: None })
    }

    /// A field, as an `i32` or (pointers and pitches) an `i64`.
    pub fn field(&self, lowering: &FunctionLowering<'_, 'ctx>, field: TextureField) -> LoweringResult<IntValue<'ctx>> {
        if let Some(level) = &self.level {
            match field {
                TextureField::Width => return Ok(level.width),
                TextureField::Height => return Ok(level.height),
                TextureField::Depth => return Ok(level.depth),
                TextureField::RowPitch => return Ok(level.row_pitch),
                TextureField::SlicePitch => return Ok(level.slice_pitch),
                TextureField::Data => return Ok(level.data),
                _ => {}
            }
        }
        self.load_field(lowering, field, None)
    }

    /// The same descriptor read at a mipmap level.
    pub fn with_level(&self, level: LevelFields<'ctx>) -> Descriptor<'ctx> {
        Descriptor { level: Some(level), ..*self }
    }

    /// Level 0's fields, whatever level this view reads.
    pub fn base_field(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        field: TextureField,
    ) -> LoweringResult<IntValue<'ctx>> {
        self.load_field(lowering, field, None)
    }

    /// Element `index` (an `i64`) of the `i64` array field `field`.
    pub fn array_element(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        field: TextureField,
        index: IntValue<'ctx>,
    ) -> LoweringResult<IntValue<'ctx>> {
        self.load_field(lowering, field, Some(index))
    }

    fn load_field(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        field: TextureField,
        index: Option<IntValue<'ctx>>,
    ) -> LoweringResult<IntValue<'ctx>> {
        let context = lowering.shared.context;
        let builder = lowering.shared.builder;
        let mut offset = context.i64_type().const_int(u64::from(field.offset()), false);
        if let Some(index) = index {
            let stride = context.i64_type().const_int(8, false);
            offset = builder.build_int_add(offset, builder.build_int_mul(index, stride, "")?, "")?;
        }
        // SAFETY: the offset is inside the descriptor the handle points to.
        let pointer = unsafe { builder.build_gep(context.i8_type(), self.pointer, &[offset], "") }?;
        let ty = if field.is_wide() { context.i64_type() } else { context.i32_type() };
        let load = builder.build_load(ty, pointer, "")?;
        if let Some(instruction) = load.as_instruction_value() {
            let _ = instruction.set_alignment(if field.is_wide() { 8 } else { 4 });
        }
        Ok(load.into_int_value())
    }

    /// A field widened to `i64` (sizes, for index arithmetic).
    pub fn wide_field(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        field: TextureField,
    ) -> LoweringResult<IntValue<'ctx>> {
        let value = self.field(lowering, field)?;
        if field.is_wide() {
            return Ok(value);
        }
        Ok(lowering.shared.builder.build_int_z_extend(value, lowering.shared.context.i64_type(), "")?)
    }

    /// The pointer to the texel data plus `offset` bytes.
    pub fn data_at(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        offset: IntValue<'ctx>,
    ) -> LoweringResult<PointerValue<'ctx>> {
        let context = lowering.shared.context;
        let builder = lowering.shared.builder;
        let data = self.field(lowering, TextureField::Data)?;
        let global = context.ptr_type(lowering.shared.target.address_space(StateSpace::Global));
        let base = builder.build_int_to_ptr(data, global, "texels")?;
        // SAFETY: the callers keep `offset` inside the texture (address modes, boundaries).
        Ok(unsafe { builder.build_gep(context.i8_type(), base, &[offset], "") }?)
    }
}
