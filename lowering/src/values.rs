//! Reading operands and writing destinations with PTX's size rules: registers keep their
//! declared LLVM type, and values are bit-cast, truncated or extended at each use so that a
//! `.b32` register can feed `fma.rn.f32` and `ld.u8` can fill a `.u32` register.

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::AddressSpace;
use ptxr_frontend::ir::{Address, AddressBase, Destination, Operand, Value, VariableId};
use ptxr_frontend::vocabulary::{ScalarKind, ScalarType, StateSpace};
use ptxr_frontend::Span;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;
use crate::types::llvm_type;

impl<'ctx> FunctionLowering<'_, 'ctx> {
    /// Reads an operand as a value of the instruction type `ty`.
    pub fn read(&self, operand: &Operand, ty: ScalarType) -> LoweringResult<BasicValueEnum<'ctx>> {
        let context = self.shared.context;
        let wanted = self.shared.value_type(ty);
        match &operand.value {
            Value::Register(id) => {
                let register_type = self.variable(*id).ty;
                let value = self.load_register(*id, operand.span)?;
                self.resize(value, register_type, ty)
            }
            Value::Integer(immediate) => integer_constant(immediate.get(), wanted, operand.span),
            Value::WideInteger(value) => integer_constant(**value, wanted, operand.span),
            Value::Float { bits, double } => {
                let value = if *double { f64::from_bits(*bits) } else { f64::from(f32::from_bits(*bits as u32)) };
                if ty == ScalarType::F16 {
                    // `.f16` registers hold the bits: the literal rounded to half, whose bit
                    // cast LLVM folds into an i16 constant.
                    let half = context.f16_type().const_float(value);
                    return Ok(self.shared.builder.build_bit_cast(half, wanted, "")?);
                }
                Ok(match wanted {
                    BasicTypeEnum::FloatType(float_type) => match ty {
                        // Keep the exact bits (NaN payloads included) when widths agree.
                        ScalarType::F32 if !double => {
                            let bits = context.i32_type().const_int(*bits & 0xffff_ffff, false);
                            self.shared.builder.build_bit_cast(bits, float_type, "")?
                        }
                        ScalarType::F64 if *double => {
                            let bits = context.i64_type().const_int(*bits, false);
                            self.shared.builder.build_bit_cast(bits, float_type, "")?
                        }
                        _ => float_type.const_float(value).into(),
                    },
                    BasicTypeEnum::IntType(int_type) => int_type.const_int(*bits, false).into(),
                    _ => return Err(LoweringError::internal("immediate of a non-scalar type", operand.span)),
                })
            }
            Value::SpecialRegister(register) => {
                let value = self.shared.target.special_register(&self.site(), *register).map_err(|unsupported| {
                    LoweringError::unsupported(&unsupported.what, self.target_name(), operand.span)
                })?;
                let register_type = match register.bits() {
                    64 => ScalarType::U64,
                    1 => ScalarType::Pred,
                    _ => ScalarType::U32,
                };
                self.resize(value.into(), register_type, ty)
            }
            Value::Member { register, index } => {
                let register_type = self.variable(*register).ty;
                let pointer = self.register_pointer(*register, Some(*index), operand.span)?;
                let value = self.shared.builder.build_load(self.shared.value_type(register_type), pointer, "")?;
                self.resize(value, register_type, ty)
            }
            Value::Offset(offset) => {
                let base = Operand { value: offset.base.clone(), span: operand.span };
                let base = self.read_int(&base, ty)?;
                let offset = const_int(base.get_type(), i128::from(offset.offset));
                Ok(self.shared.builder.build_int_add(base, offset, "")?.into())
            }
            Value::FunctionAddress(function) => {
                let function_id = *function;
                let function = self.shared.ptx.function(function_id);
                let name = &function.name;
                let device_function = ptxr_intrinsics::DeviceFunction::from_declaration(
                    name,
                    function.parameters.len(),
                    function.return_parameters.len(),
                );
                if function.body.is_none() && device_function.is_some() {
                    // Its calls are lowered in place (`instructions/call.rs`); there is no
                    // function of that signature to point at.
                    return Err(LoweringError::unsupported(
                        &format!("the address of `{name}`"),
                        self.target_name(),
                        operand.span,
                    ));
                }
                let int_type = crate::types::integer_type(context, ty.bits());
                if self.shared.target.function_addresses() == ptxr_intrinsics::FunctionAddresses::Identifiers {
                    // Its index plus one (`instructions/call.rs` calls it by a `switch`).
                    return Ok(int_type.const_int(u64::from(function_id.0) + 1, false).into());
                }
                let callee = self
                    .shared
                    .module
                    .get_function(name)
                    .ok_or_else(|| LoweringError::internal(format!("`{name}` was not declared"), operand.span))?;
                let pointer = callee.as_global_value().as_pointer_value();
                Ok(self.shared.builder.build_ptr_to_int(pointer, int_type, "")?.into())
            }
            Value::AddressOf(id) => {
                if let Some(offset) = self.shared_window_offset(*id) {
                    // A shared-space address is the offset into the block's window.
                    let int_type = crate::types::integer_type(context, ty.bits());
                    return Ok(int_type.const_int(offset, false).into());
                }
                let pointer = self.taken_address(*id, operand.span)?;
                let variable = self.variable(*id);
                if let (StateSpace::Local, Some(origin)) = (variable.state_space, self.local_window()) {
                    // An offset into the function's `.local` window (`FunctionLowering::local_window`).
                    let offset = self.local_window_offset(pointer, origin, operand.span)?;
                    let int_type = crate::types::integer_type(context, ty.bits());
                    return Ok(self.shared.builder.build_int_truncate_or_bit_cast(offset, int_type, "")?.into());
                }
                let address_bits = self.pointer_bits(pointer.get_type().get_address_space());
                // A `.shared` variable's own address is an offset into the block's shared
                // window, which is far below 4 GiB on every GPU, so nvcc's and Triton's
                // `mov.u32 %r, sdata;` keeps every bit even where LLVM's shared pointers are
                // 64-bit (NVPTX); `ld.shared [%r]` extends it back (`address`).
                let shared_window_address = ty.bits() == 32
                    && variable.state_space == StateSpace::Shared
                    && pointer.get_type().get_address_space() == self.address_space(StateSpace::Shared);
                let fits_32_bits = shared_window_address
                    || ty.bits() == 32
                        && self.shared.ptx.address_size == 32
                        && matches!(variable.state_space, StateSpace::Global | StateSpace::Const)
                        && self.shared.target.variables_below_4gib_for_32_bit_addresses();
                if ty.bits() < address_bits && !fits_32_bits {
                    // A truncated address would point elsewhere: refuse rather than crash.
                    return Err(LoweringError::unsupported(
                        &format!(
                            "the {}-bit address of `{}` (addresses here are {address_bits}-bit)",
                            ty.bits(),
                            self.variable(*id).name
                        ),
                        self.target_name(),
                        operand.span,
                    ));
                }
                let int_type = crate::types::integer_type(context, ty.bits());
                Ok(self.shared.builder.build_ptr_to_int(pointer, int_type, "")?.into())
            }
        }
    }

    /// Reads an operand as an integer of the instruction type.
    pub fn read_int(&self, operand: &Operand, ty: ScalarType) -> LoweringResult<IntValue<'ctx>> {
        match self.read(operand, ty)? {
            BasicValueEnum::IntValue(value) => Ok(value),
            // Two halves (`WideValues::Halves`) serve `ld`, `st`, `mov` and `atom`, the only
            // instructions of ISA 8.3 on `.b128`; the checker rejects `.b128` on any other
            // (`check/decode/b128_type.rs`), so this guards IR built some other way.
            BasicValueEnum::VectorValue(_) if ty.bits() == 128 => Err(LoweringError::unsupported(
                "128-bit integer operations (`.b128` outside `ld`, `st`, `mov` and `atom`)",
                self.target_name(),
                operand.span,
            )),
            _ => Err(LoweringError::internal("expected an integer operand", operand.span)),
        }
    }

    /// Writes `value`, of instruction type `ty`, into the destination register.
    pub fn write(&self, destination: &Destination, value: BasicValueEnum<'ctx>, ty: ScalarType) -> LoweringResult<()> {
        let register_type = self.variable(destination.register).ty;
        let resized = self.resize(value, ty, register_type)?;
        let pointer =
            self.register_pointer(destination.register, destination.member.map(u32::from), destination.span)?;
        self.shared.builder.build_store(pointer, resized)?;
        Ok(())
    }

    /// Where a register lives, or one element of a vector register (`member`).
    pub fn register_pointer(
        &self,
        register: VariableId,
        member: Option<u32>,
        span: Span,
    ) -> LoweringResult<PointerValue<'ctx>> {
        let storage = self.storage(register, span)?;
        let Some(index) = member else { return Ok(storage) };
        let context = self.shared.context;
        let element_type = self.shared.value_type(self.variable(register).ty);
        let index = context.i64_type().const_int(u64::from(index), false);
        // SAFETY: the checker allowed only members below the vector's element count.
        Ok(unsafe { self.shared.builder.build_gep(element_type, storage, &[index], "") }?)
    }

    /// Converts a value of PTX type `from` to PTX type `to` by the operand size rules: same size
    /// is a bit cast; narrower is a truncation of the bits; wider extends by `from`'s kind
    /// (sign for signed types, zero otherwise).
    pub fn resize(
        &self,
        value: BasicValueEnum<'ctx>,
        from: ScalarType,
        to: ScalarType,
    ) -> LoweringResult<BasicValueEnum<'ctx>> {
        if from == to {
            return Ok(value);
        }
        let context = self.shared.context;
        let builder = self.shared.builder;
        if self.shared.wide_values_in_halves() && (from.bits() == 128 || to.bits() == 128) {
            return self.resize_halves(value, from, to);
        }
        let target_type = llvm_type(context, to);
        if from.bits() == to.bits() {
            return Ok(builder.build_bit_cast(value, target_type, "")?);
        }
        let bits =
            builder.build_bit_cast(value, crate::types::integer_type(context, from.bits()), "")?.into_int_value();
        let to_int_type = crate::types::integer_type(context, to.bits());
        let resized = if from.bits() > to.bits() {
            builder.build_int_truncate(bits, to_int_type, "")?
        } else if from.kind() == ScalarKind::Signed {
            builder.build_int_s_extend(bits, to_int_type, "")?
        } else {
            builder.build_int_z_extend(bits, to_int_type, "")?
        };
        Ok(builder.build_bit_cast(resized, target_type, "")?)
    }

    /// [`Self::resize`] where one side is 128 bits held as `<2 x i64>` (`WideValues::Halves`):
    /// narrowing keeps the low half's bits, widening extends into the high half by `from`'s
    /// kind, without an `i128`.
    fn resize_halves(
        &self,
        value: BasicValueEnum<'ctx>,
        from: ScalarType,
        to: ScalarType,
    ) -> LoweringResult<BasicValueEnum<'ctx>> {
        let builder = self.shared.builder;
        let i32_type = self.shared.context.i32_type();
        match (from.bits() == 128, to.bits() == 128) {
            (true, true) => Ok(value),
            (true, false) => {
                let low = builder.build_extract_element(value.into_vector_value(), i32_type.const_zero(), "")?;
                self.resize(low, ScalarType::B64, to)
            }
            (false, _) => {
                let signed = from.kind() == ScalarKind::Signed;
                let low = self.resize(value, from, if signed { ScalarType::S64 } else { ScalarType::B64 })?;
                let low = low.into_int_value();
                let i64_type = self.shared.context.i64_type();
                let high = if signed {
                    builder.build_right_shift(low, i64_type.const_int(63, false), true, "")?
                } else {
                    i64_type.const_zero()
                };
                Ok(halves(self, low, high)?.into())
            }
        }
    }

    /// The pointer that a memory operand designates in `state_space`.
    pub fn address(&self, address: &Address, state_space: StateSpace) -> LoweringResult<PointerValue<'ctx>> {
        let context = self.shared.context;
        let builder = self.shared.builder;
        // A `.param` address in a register of a kernel is one in the `.param` window where the
        // target keeps the parameters there (`parameter_addresses`); a variable's name is its
        // own storage.
        let space = match (&address.base, state_space) {
            (AddressBase::Variable(_), _) => state_space,
            (_, StateSpace::Param) if self.parameter_addresses() != StateSpace::Local => self.parameter_addresses(),
            _ => state_space,
        };
        let wanted_space = self.shared.target.address_space(space);
        let offset = context.i64_type().const_int(address.offset as u64, true);
        match &address.base {
            AddressBase::Variable(id) => {
                // A generic access through a variable's name goes where its taken address
                // points; a state-space access to its storage.
                let base = if state_space == StateSpace::Generic {
                    self.taken_address(*id, address.span)?
                } else {
                    self.storage(*id, address.span)?
                };
                let base = if state_space == StateSpace::Generic && base.get_type().get_address_space() != wanted_space
                {
                    builder.build_address_space_cast(base, context.ptr_type(wanted_space), "")?
                } else {
                    base
                };
                if address.offset == 0 {
                    return Ok(base);
                }
                // SAFETY: PTX addresses are plain byte offsets; LLVM is told nothing about bounds.
                Ok(unsafe { builder.build_gep(context.i8_type(), base, &[offset], "") }?)
            }
            AddressBase::Register(id) => {
                let variable = self.variable(*id);
                let value = self.load_register(*id, address.span)?;
                let integer = builder
                    .build_bit_cast(value, crate::types::integer_type(context, variable.ty.bits()), "")?
                    .into_int_value();
                let offset = integer.get_type().const_int(address.offset as u64, true);
                let sum = if address.offset == 0 { integer } else { builder.build_int_add(integer, offset, "")? };
                if let (StateSpace::Local, Some(origin)) = (state_space, self.local_window()) {
                    return self.in_local_window(sum, origin, address.span);
                }
                if state_space == StateSpace::Shared && self.shared_window_base().is_some() {
                    // Shared addresses are 32-bit offsets into the window, whatever the register.
                    let offset = builder.build_int_truncate_or_bit_cast(sum, context.i32_type(), "")?;
                    let offset = builder.build_int_z_extend(offset, context.i64_type(), "")?;
                    return self.in_shared_window_at(offset, address.span);
                }
                Ok(builder.build_int_to_ptr(sum, context.ptr_type(wanted_space), "")?)
            }
            AddressBase::Absolute if state_space == StateSpace::Shared && self.shared_window_base().is_some() => {
                self.in_shared_window_at(offset, address.span)
            }
            AddressBase::Absolute => match (state_space, self.local_window()) {
                (StateSpace::Local, Some(origin)) => self.in_local_window(offset, origin, address.span),
                _ => Ok(builder.build_int_to_ptr(offset, context.ptr_type(wanted_space), "")?),
            },
        }
    }

    /// `pointer`'s byte offset from the storage of `origin`, the function's `.local` window
    /// origin, as an `i64`.
    pub fn local_window_offset(
        &self,
        pointer: PointerValue<'ctx>,
        origin: VariableId,
        span: Span,
    ) -> LoweringResult<IntValue<'ctx>> {
        let builder = self.shared.builder;
        let i64_type = self.shared.context.i64_type();
        let origin = builder.build_ptr_to_int(self.storage(origin, span)?, i64_type, "")?;
        let pointer = builder.build_ptr_to_int(pointer, i64_type, "")?;
        Ok(builder.build_int_sub(pointer, origin, "")?)
    }

    /// The `.local` location at a window address (`FunctionLowering::local_window`): its low 32
    /// bits, signed (a variable may lie below the origin), from the origin's storage.
    pub fn in_local_window(
        &self,
        address: IntValue<'ctx>,
        origin: VariableId,
        span: Span,
    ) -> LoweringResult<PointerValue<'ctx>> {
        let context = self.shared.context;
        let builder = self.shared.builder;
        let offset = builder.build_int_truncate_or_bit_cast(address, context.i32_type(), "")?;
        let offset = builder.build_int_s_extend(offset, context.i64_type(), "")?;
        let base = self.storage(origin, span)?;
        let local = self.address_space(StateSpace::Local);
        let base = if base.get_type().get_address_space() == local {
            base
        } else {
            builder.build_address_space_cast(base, context.ptr_type(local), "")?
        };
        // SAFETY: PTX addresses are plain byte offsets; every `.local` variable of a function
        // with a window lies in one allocation (`FunctionLowering::prologue`), so a location
        // reached from the origin is within the object LLVM derives it from.
        Ok(unsafe { builder.build_gep(context.i8_type(), base, &[offset], "") }?)
    }

    /// The width of pointers in an address space, from the module's data layout.
    pub fn pointer_bits(&self, address_space: AddressSpace) -> u32 {
        let layout = self.shared.module.get_data_layout();
        let target_data = inkwell::targets::TargetData::create(&layout.as_str().to_string_lossy());
        target_data.get_pointer_byte_size(Some(address_space)) * 8
    }

    pub fn address_space(&self, state_space: StateSpace) -> AddressSpace {
        self.shared.target.address_space(state_space)
    }
}

/// An LLVM integer constant from a wide PTX immediate, wrapping to the type's width.
/// An integer immediate as a constant of the instruction type `wanted`.
fn integer_constant<'ctx>(
    value: i128,
    wanted: BasicTypeEnum<'ctx>,
    span: Span,
) -> LoweringResult<BasicValueEnum<'ctx>> {
    Ok(match wanted {
        BasicTypeEnum::FloatType(float_type) => float_type.const_float(value as f64).into(),
        BasicTypeEnum::IntType(int_type) => const_int(int_type, value).into(),
        // A 128-bit immediate held as two halves (`WideValues::Halves`), low half first.
        BasicTypeEnum::VectorType(halves_type) if halves_type.get_size() == 2 => {
            let i64_type = halves_type.get_element_type().into_int_type();
            let halves = [i64_type.const_int(value as u64, false), i64_type.const_int((value >> 64) as u64, false)];
            inkwell::types::VectorType::const_vector(&halves).into()
        }
        _ => return Err(LoweringError::internal("immediate of a non-scalar type", span)),
    })
}

pub fn const_int<'ctx>(int_type: inkwell::types::IntType<'ctx>, value: i128) -> IntValue<'ctx> {
    let bits = int_type.get_bit_width();
    if bits <= 64 {
        int_type.const_int(value as u64, false)
    } else {
        let words = [value as u64, (value >> 64) as u64];
        int_type.const_int_arbitrary_precision(&words)
    }
}

/// The `<2 x i64>` of a 128-bit value held as two halves (`WideValues::Halves`).
pub fn halves<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    low: IntValue<'ctx>,
    high: IntValue<'ctx>,
) -> LoweringResult<inkwell::values::VectorValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let poison = lowering.shared.context.i64_type().vec_type(2).get_poison();
    let with_low = builder.build_insert_element(poison, low, i32_type.const_zero(), "")?;
    Ok(builder.build_insert_element(with_low, high, i32_type.const_int(1, false), "")?)
}

/// The low and high halves of a 128-bit value held as `<2 x i64>`.
pub fn split_halves<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: inkwell::values::VectorValue<'ctx>,
) -> LoweringResult<[IntValue<'ctx>; 2]> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let low = builder.build_extract_element(value, i32_type.const_zero(), "")?.into_int_value();
    let high = builder.build_extract_element(value, i32_type.const_int(1, false), "")?.into_int_value();
    Ok([low, high])
}
