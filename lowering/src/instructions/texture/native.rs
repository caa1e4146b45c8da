//! Texture and surface instructions as PTX's own, for targets whose `Target::textures` is
//! `InlinePtx` (NVPTX): the instruction as written, its operands bound to LLVM values through
//! inline PTX, so that ptxas assembles it for the texture units. Handles are texture and surface
//! objects (`.u64` registers) or the target's own `.texref`/`.surfref` variables, named; the
//! residency predicate `|p` goes through a scratch predicate.

use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};
use ptxr_frontend::ir::{
    surface_element_type, Destination, GuardedInstruction, Operand, TextureGeometry, TextureInstruction, Value,
    VariableId,
};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// The inline PTX being built: its outputs (destination, type, constraint letter) and inputs.
struct InlinePtx<'ctx> {
    outputs: Vec<(Destination, ScalarType, &'static str)>,
    inputs: Vec<(BasicMetadataValueEnum<'ctx>, BasicTypeEnum<'ctx>, &'static str)>,
}

/// The constraint letter of a register of `ty` (NVPTX's inline assembly constraints).
fn letter(ty: ScalarType) -> &'static str {
    match ty.bits() {
        64 => "l",
        32 if ty == ScalarType::F32 => "f",
        32 => "r",
        _ => "h",
    }
}

/// The type an operand is bound at: at least 16 bits (`.b8` surface data is in `h` registers).
fn bound_type(ty: ScalarType) -> ScalarType {
    match ty {
        ScalarType::B8 => ScalarType::B16,
        other => other,
    }
}

impl<'ctx> InlinePtx<'ctx> {
    /// Binds an output; gives its placeholder (outputs come first).
    fn output(&mut self, destination: &Destination, ty: ScalarType) -> String {
        let ty = bound_type(ty);
        self.outputs.push((*destination, ty, letter(ty)));
        format!("${}", self.outputs.len() - 1)
    }

    /// Binds an input; gives a marker that `placeholders` turns into its number.
    fn input(
        &mut self,
        lowering: &FunctionLowering<'_, 'ctx>,
        operand: &Operand,
        ty: ScalarType,
    ) -> LoweringResult<String> {
        let ty = bound_type(ty);
        let value = lowering.read(operand, ty)?;
        self.inputs.push((value.into(), value.get_type(), letter(ty)));
        Ok(format!("@{}@", self.inputs.len() - 1))
    }

    /// Binds a lookup's coordinates: an array's layer index is `.u32`, the others `ty`.
    fn coordinates(
        &mut self,
        lowering: &FunctionLowering<'_, 'ctx>,
        geometry: TextureGeometry,
        coordinates: &[Operand],
        ty: ScalarType,
    ) -> LoweringResult<Vec<String>> {
        let mut items = Vec::with_capacity(coordinates.len());
        for (index, operand) in coordinates.iter().enumerate() {
            let ty = if geometry.is_array() && index == 0 { ScalarType::U32 } else { ty };
            items.push(self.input(lowering, operand, ty)?);
        }
        Ok(items)
    }

    fn vector(items: &[String]) -> String {
        format!("{{{}}}", items.join(", "))
    }
}

/// The handle: a texture or surface object, or a module-scope `.texref`/`.surfref` variable,
/// which the target declares as its own (`module.rs`) and the instruction names: bound as a
/// symbol (`s`), its name is what the inline PTX prints.
fn handle<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    ptx: &mut InlinePtx<'ctx>,
    handle: &Operand,
) -> LoweringResult<String> {
    let Value::AddressOf(id) = handle.value else {
        return ptx.input(lowering, handle, ScalarType::U64);
    };
    let global = match id {
        VariableId::Global(index) if lowering.variable(id).state_space == StateSpace::Tex => {
            lowering.shared.globals.get(&index).copied()
        }
        _ => None,
    };
    let Some(global) = global else {
        return Err(LoweringError::unsupported(
            "a texture, sampler or surface parameter (`.param .texref`); pass a `.u64` texture object or use a module-scope `.texref`",
            lowering.target_name(),
            handle.span,
        ));
    };
    let pointer = global.as_pointer_value();
    ptx.inputs.push((pointer.into(), pointer.get_type().into(), "s"));
    Ok(format!("@{}@", ptx.inputs.len() - 1))
}

/// What `tex` and `tld4` share: the results, the residency marker and the object.
struct SampleOperands {
    results: Vec<String>,
    residency: Option<String>,
    object: String,
}

/// The operands of a `tex` or `tld4`; an independent-mode sampler is refused.
#[allow(clippy::too_many_arguments)]
fn sample_operands<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    ptx: &mut InlinePtx<'ctx>,
    guarded: &GuardedInstruction,
    spelling: &str,
    sampler: Option<&Operand>,
    (destinations, result): (&[Destination], ScalarType),
    predicate: Option<Destination>,
    object: &Operand,
) -> LoweringResult<SampleOperands> {
    if sampler.is_some() {
        return Err(LoweringError::unsupported(
            &format!("`{spelling}` with an independent-mode sampler"),
            lowering.target_name(),
            guarded.span,
        ));
    }
    let results = destinations.iter().map(|destination| ptx.output(destination, result)).collect();
    let residency = predicate.map(|predicate| {
        let marker = format!("${}", ptx.outputs.len());
        ptx.outputs.push((predicate, ScalarType::U32, "r"));
        marker
    });
    let object = handle(lowering, ptx, object)?;
    Ok(SampleOperands { results, residency, object })
}

pub fn lower<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    instruction: &TextureInstruction,
) -> LoweringResult<()> {
    let spelling = lowering.spelling(guarded);
    let mut ptx = InlinePtx { outputs: Vec::new(), inputs: Vec::new() };
    let mut predicate_output = None;
    let text = match instruction {
        TextureInstruction::Sample {
            geometry,
            result,
            coordinate,
            destinations,
            predicate,
            handle: object,
            sampler,
            coordinates,
            level,
            gradients,
        } => {
            let SampleOperands { results, residency, object } = sample_operands(
                lowering,
                &mut ptx,
                guarded,
                &spelling,
                sampler.as_ref(),
                (destinations, *result),
                *predicate,
                object,
            )?;
            predicate_output = predicate_output.or(*predicate);
            let items = ptx.coordinates(lowering, *geometry, coordinates, *coordinate)?;
            let mut level = match level {
                Some(level) => format!(", {}", ptx.input(lowering, level, ScalarType::F32)?),
                None => String::new(),
            };
            for gradient in gradients.iter().flatten() {
                let mut elements = Vec::with_capacity(gradient.len());
                for element in gradient {
                    elements.push(ptx.input(lowering, element, ScalarType::F32)?);
                }
                level.push_str(&format!(", {{{}}}", elements.join(", ")));
            }
            sample_text(&spelling, &results, residency.as_deref(), &object, &items, &level)
        }
        TextureInstruction::Gather {
            geometry,
            result,
            destinations,
            predicate,
            handle: object,
            sampler,
            coordinates,
            ..
        } => {
            let SampleOperands { results, residency, object } = sample_operands(
                lowering,
                &mut ptx,
                guarded,
                &spelling,
                sampler.as_ref(),
                (destinations, *result),
                *predicate,
                object,
            )?;
            predicate_output = predicate_output.or(*predicate);
            let items = ptx.coordinates(lowering, *geometry, coordinates, ScalarType::F32)?;
            sample_text(&spelling, &results, residency.as_deref(), &object, &items, "")
        }
        TextureInstruction::QueryTexture { destination, handle: object, level: Some(level), .. } => {
            let result = ptx.output(destination, ScalarType::B32);
            let object = handle(lowering, &mut ptx, object)?;
            let level = ptx.input(lowering, level, ScalarType::B32)?;
            format!("{spelling} {result}, [{object}], {level};")
        }
        TextureInstruction::QueryTexture { destination, handle: object, .. }
        | TextureInstruction::QuerySurface { destination, handle: object, .. } => {
            let result = ptx.output(destination, ScalarType::B32);
            let object = handle(lowering, &mut ptx, object)?;
            format!("{spelling} {result}, [{object}];")
        }
        TextureInstruction::SurfaceLoad { bits, destinations, handle: object, coordinates, .. } => {
            let ty = surface_element_type(*bits);
            let results: Vec<String> = destinations.iter().map(|destination| ptx.output(destination, ty)).collect();
            let object = handle(lowering, &mut ptx, object)?;
            let items = coordinates
                .iter()
                .map(|operand| ptx.input(lowering, operand, ScalarType::B32))
                .collect::<LoweringResult<Vec<_>>>()?;
            format!("{spelling} {}, [{object}, {}];", InlinePtx::vector(&results), InlinePtx::vector(&items))
        }
        TextureInstruction::SurfaceStore { bits, handle: object, coordinates, sources, .. } => {
            let ty = surface_element_type(*bits);
            let object = handle(lowering, &mut ptx, object)?;
            let items = coordinates
                .iter()
                .map(|operand| ptx.input(lowering, operand, ScalarType::B32))
                .collect::<LoweringResult<Vec<_>>>()?;
            let values =
                sources.iter().map(|operand| ptx.input(lowering, operand, ty)).collect::<LoweringResult<Vec<_>>>()?;
            format!("{spelling} [{object}, {}], {};", InlinePtx::vector(&items), InlinePtx::vector(&values))
        }
        TextureInstruction::SurfaceReduce { ty, handle: object, coordinates, source, .. } => {
            let object = handle(lowering, &mut ptx, object)?;
            let items = coordinates
                .iter()
                .map(|operand| ptx.input(lowering, operand, ScalarType::B32))
                .collect::<LoweringResult<Vec<_>>>()?;
            let value = ptx.input(lowering, source, *ty)?;
            format!("{spelling} [{object}, {}], {value};", InlinePtx::vector(&items))
        }
    };
    emit(lowering, &ptx, &text, predicate_output)
}

/// `tex`/`tld4`'s text; with a residency output, the predicate goes through `%ptxr_resident`.
fn sample_text(
    spelling: &str,
    results: &[String],
    residency: Option<&str>,
    object: &str,
    items: &[String],
    level: &str,
) -> String {
    let coordinates = InlinePtx::vector(items);
    let results = InlinePtx::vector(results);
    match residency {
        None => format!("{spelling} {results}, [{object}, {coordinates}]{level};"),
        Some(output) => format!(
            "{{\n\t.reg .pred %ptxr_resident;\n\t{spelling} {results}|%ptxr_resident, [{object}, {coordinates}]{level};\n\tselp.u32 {output}, 1, 0, %ptxr_resident;\n\t}}"
        ),
    }
}

/// Emits the inline PTX (with side effects: surfaces are memory that other instructions write)
/// and writes its outputs.
fn emit<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    ptx: &InlinePtx<'ctx>,
    text: &str,
    predicate: Option<Destination>,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    // Inputs are numbered after the outputs.
    let mut text = text.to_string();
    for index in (0..ptx.inputs.len()).rev() {
        text = text.replace(&format!("@{index}@"), &format!("${}", ptx.outputs.len() + index));
    }
    let output_types: Vec<BasicTypeEnum<'ctx>> =
        ptx.outputs.iter().map(|(_, ty, _)| lowering.shared.value_type(*ty)).collect();
    let input_types: Vec<BasicMetadataTypeEnum<'ctx>> = ptx.inputs.iter().map(|(_, ty, _)| (*ty).into()).collect();
    let mut constraints: Vec<String> = ptx.outputs.iter().map(|(_, _, letter)| format!("={letter}")).collect();
    constraints.extend(ptx.inputs.iter().map(|(_, _, letter)| letter.to_string()));
    let function_type = match output_types.as_slice() {
        [] => context.void_type().fn_type(&input_types, false),
        [single] => single.fn_type(&input_types, false),
        many => context.struct_type(many, false).fn_type(&input_types, false),
    };
    let assembly = context.create_inline_asm(function_type, text, constraints.join(","), true, false, None, false);
    let arguments: Vec<BasicMetadataValueEnum<'ctx>> = ptx.inputs.iter().map(|(value, _, _)| *value).collect();
    let call = builder.build_indirect_call(function_type, assembly, &arguments, "")?;
    let Some(result) = call.try_as_basic_value().basic() else { return Ok(()) };
    let values: Vec<BasicValueEnum<'ctx>> = if ptx.outputs.len() == 1 {
        vec![result]
    } else {
        (0..ptx.outputs.len() as u32)
            .map(|index| builder.build_extract_value(result.into_struct_value(), index, ""))
            .collect::<Result<_, _>>()?
    };
    for ((destination, ty, _), value) in ptx.outputs.iter().zip(values) {
        if predicate.is_some_and(|predicate| predicate == *destination) {
            let resident = builder.build_int_compare(
                inkwell::IntPredicate::NE,
                value.into_int_value(),
                context.i32_type().const_zero(),
                "",
            )?;
            lowering.write(destination, resident.into(), ScalarType::Pred)?;
        } else {
            lowering.write(destination, value, *ty)?;
        }
    }
    Ok(())
}
