//! Variable declarations, at module scope and inside functions, into checked `Variable`s.

use super::name_map::NameMap;

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{AddressInitializer, AddressTarget, FunctionId, Variable, VariableId};
use crate::span::Span;
use crate::syntax::ast::{self, Directive, Expression, Initializer, Linkage, Word};
use crate::vocabulary::{OpaqueType, ScalarType, StateSpace};

/// The module's globals and the map from their names to ids.
pub struct Globals {
    pub variables: Vec<Variable>,
    pub names: NameMap<String, VariableId>,
}

pub fn module_variables(module: &ast::Module, diagnostics: &mut Vec<Diagnostic>) -> Globals {
    let mut globals = Globals { variables: Vec::new(), names: NameMap::default() };
    // Initializers may hold the address of any module variable, declared before or after them:
    // the ids each name will get (exact whenever the declarations have no errors, and a module
    // with errors is never lowered).
    let mut future_ids = NameMap::default();
    for directive in &module.directives {
        let Directive::Variable(declaration) = directive else { continue };
        if matches!(declaration.state_space.node, StateSpace::Reg | StateSpace::Param) {
            continue;
        }
        for name in &declaration.names {
            let next = VariableId::Global(future_ids.len() as u32);
            future_ids.entry(name.name.node.clone()).or_insert(next);
        }
    }
    // ... and the address of a function (nvcc's tables of function pointers), declared before
    // or after them: the ids `collect_signatures` gives, in order of first declaration.
    let mut future_functions = NameMap::default();
    for directive in &module.directives {
        let Directive::Function(function) = directive else { continue };
        let name = &function.name.node;
        if !future_ids.contains_key(name) {
            let next = FunctionId(future_functions.len() as u32);
            future_functions.entry(name.clone()).or_insert(next);
        }
    }
    let mut resolve = |name: &str| {
        (future_ids.get(name).copied().map(AddressTarget::Variable))
            .or_else(|| future_functions.get(name).copied().map(AddressTarget::Function))
    };
    for directive in &module.directives {
        let Directive::Variable(declaration) = directive else { continue };
        if matches!(declaration.state_space.node, StateSpace::Reg | StateSpace::Param) {
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidDeclaration,
                    format!("{} variables cannot be declared at module scope", declaration.state_space.node),
                )
                .with_primary(declaration.state_space.span, "not allowed outside a function"),
            );
            continue;
        }
        for name in &declaration.names {
            let Some(variable) = variable_from_declaration(declaration, name, &mut resolve, diagnostics) else {
                continue;
            };
            if let Some(VariableId::Global(existing)) = globals.names.get(variable.name.as_str()) {
                diagnostics.push(
                    Diagnostic::error(Code::DuplicateDeclaration, format!("`{}` is declared twice", variable.name))
                        .with_primary(name.name.span, "declared again here")
                        .with_secondary(globals.variables[*existing as usize].span, "first declared here"),
                );
                continue;
            }
            let id = VariableId::Global(globals.variables.len() as u32);
            globals.names.insert(variable.name.to_string(), id);
            globals.variables.push(variable);
        }
    }
    globals
}

/// The shape rules of variables (section 5.4) for a function parameter: a predicate only in
/// `.reg`, `.v2`/`.v4` vectors of at most 128 bits, power-of-two alignments (`.align` and
/// `.ptr .align`). Returns false after reporting a broken rule.
pub fn check_parameter(parameter: &ast::Parameter, diagnostics: &mut Vec<Diagnostic>) -> bool {
    let ty = parameter.ty.node;
    let mut problems = Vec::new();
    if ty == ScalarType::Pred && parameter.state_space.node != StateSpace::Reg {
        problems.push(
            Diagnostic::error(Code::InvalidDeclaration, "`.pred` parameters must be in the `.reg` state space")
                .with_primary(parameter.ty.span, "predicate outside `.reg`"),
        );
    }
    if let Some(lanes) = parameter.vector {
        if !matches!(lanes, 2 | 4) || lanes * ty.bits() > 128 {
            problems.push(
                Diagnostic::error(
                    Code::InvalidDeclaration,
                    format!("a `.v{lanes} {ty}` parameter is not a vector PTX has"),
                )
                .with_primary(parameter.ty.span, format!("{lanes} elements of {} bits", ty.bits()))
                .with_note("section 5.4.2: vectors are `.v2` or `.v4` and at most 128 bits"),
            );
        }
    }
    let pointer_align = parameter.pointer.as_ref().and_then(|pointer| pointer.align);
    for align in [parameter.align, pointer_align].into_iter().flatten() {
        if !align.is_power_of_two() {
            problems.push(
                Diagnostic::error(Code::InvalidDeclaration, format!("alignment {align} is not a power of two"))
                    .with_primary(parameter.span, "`.align` takes a power of two"),
            );
        }
    }
    let ok = problems.is_empty();
    diagnostics.extend(problems);
    ok
}

/// One declared name of a declaration as a variable. Ranges (`%r<10>`) are handled by the
/// caller; here `range` is ignored.
pub fn variable_from_declaration(
    declaration: &ast::VariableDeclaration,
    name: &ast::DeclaredName,
    resolve: &mut dyn FnMut(&str) -> Option<AddressTarget>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Variable> {
    let ty = declaration.ty.node;
    if ty == ScalarType::Pred && declaration.state_space.node != StateSpace::Reg {
        diagnostics.push(
            Diagnostic::error(Code::InvalidDeclaration, "`.pred` variables must be in the `.reg` state space")
                .with_primary(declaration.ty.span, "predicate outside `.reg`"),
        );
        return None;
    }
    if let Some(lanes) = declaration.vector {
        // Section 5.4.2: vector variables are `.v2` or `.v4` of a non-predicate type and at most
        // 128 bits (`.v8` exists only as a modifier of `ld`/`st` and the like).
        if !matches!(lanes, 2 | 4) {
            diagnostics.push(
                Diagnostic::error(Code::InvalidDeclaration, format!("invalid vector width .v{lanes}"))
                    .with_primary(declaration.span, "vector variables are `.v2` or `.v4`")
                    .with_note("section 5.4.2: vectors of length 2 or 4 can be declared"),
            );
            return None;
        }
        let bits = lanes * ty.bits();
        if bits > 128 {
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidDeclaration,
                    format!("a `.v{lanes} {ty}` vector is {bits} bits; vectors are at most 128 bits"),
                )
                .with_primary(declaration.ty.span, format!("{lanes} elements of {} bits", ty.bits()))
                .with_note("section 5.4.2: the total length of a vector may not exceed 128 bits")
                .with_help("use fewer or narrower elements, or an array"),
            );
            return None;
        }
    }
    if let Some(align) = declaration.align {
        if !align.is_power_of_two() {
            diagnostics.push(
                Diagnostic::error(Code::InvalidDeclaration, format!("alignment {align} is not a power of two"))
                    .with_primary(declaration.span, "`.align` takes a power of two"),
            );
            return None;
        }
    }
    let mut array_length: Option<u64> = None;
    for dimension in &name.array_dimensions {
        let length = dimension.map_or(0, u64::from);
        array_length = Some(array_length.unwrap_or(1).saturating_mul(length));
    }
    let state_space = declaration.state_space.node;
    if let Some(linkage) = declaration.linkage.as_ref().filter(|linkage| linkage.node == Linkage::Common) {
        if state_space != StateSpace::Global {
            // Section 11.6.4: `.common` merges `.global` variables of several modules.
            diagnostics.push(
                Diagnostic::error(
                    Code::InvalidDeclaration,
                    format!("`.common` variables are `.global`, not `{state_space}`"),
                )
                .with_primary(linkage.span, format!("`.common` on a `{state_space}` variable"))
                .with_note("section 11.6.4: `.common` applies to `.global` variables"),
            );
            return None;
        }
    }
    let external = declaration.linkage.as_ref().is_some_and(|linkage| linkage.node == Linkage::Extern);
    if array_length == Some(0) && name.initializer.is_none() && !external {
        // Section 5.4.4: `[]` takes its length from an initializer, or from another module
        // for an `.extern` array (dynamic shared memory); otherwise the variable has no size.
        diagnostics.push(
            Diagnostic::error(Code::InvalidDeclaration, format!("`{}` has no size", name.name.node))
                .with_primary(name.span, "an array of length 0 or unsized, without an initializer")
                .with_help("give the array a length, an initializer, or `.extern` linkage"),
        );
        return None;
    }
    if let Some(initializer) = &name.initializer {
        // Section 5.4.4: "variable initialization is supported only for constant and global
        // state spaces", and an `.extern` variable gets its value where it is defined.
        let reason = if external {
            Some("an `.extern` variable is initialised in the module that defines it".to_string())
        } else if !matches!(state_space, StateSpace::Global | StateSpace::Const) {
            Some(format!("`{state_space}` variables cannot have initial values"))
        } else {
            None
        };
        if let Some(reason) = reason {
            diagnostics.push(
                Diagnostic::error(Code::InvalidDeclaration, format!("`{}` cannot have an initializer", name.name.node))
                    .with_primary(initializer_span(initializer), reason)
                    .with_note("section 5.4.4: only `.global` and `.const` variables are initialised"),
            );
            return None;
        }
    }
    let element_bytes = u64::from(ty.bytes()) * u64::from(declaration.vector.unwrap_or(1));
    let initializer = match &name.initializer {
        None => None,
        Some(initializer) => {
            let (mut bytes, mut addresses) = (Vec::new(), Vec::new());
            let mut output = InitializerOutput { bytes: &mut bytes, addresses: &mut addresses, resolve };
            if !initializer_bytes(initializer, ty, &mut output, diagnostics) {
                return None;
            }
            let declared_bytes = element_bytes * array_length.unwrap_or(1);
            if array_length == Some(0) {
                // `.b8 table[] = {1, 2, 3}` takes its length from the initializer.
                array_length = Some(bytes.len() as u64 / element_bytes.max(1));
            } else if bytes.len() as u64 > declared_bytes {
                diagnostics.push(
                    Diagnostic::error(
                        Code::InvalidDeclaration,
                        format!("too many initializers for `{}`", name.name.node),
                    )
                    .with_primary(name.span, format!("the variable holds {declared_bytes} bytes")),
                );
                return None;
            }
            bytes.resize(element_bytes as usize * array_length.unwrap_or(1).max(1) as usize, 0);
            Some(Box::new(crate::ir::Initializer { bytes, addresses }))
        }
    };
    Some(Variable {
        name: Word::new(&name.name.node),
        state_space,
        ty,
        vector: declaration.vector,
        array_length,
        align: declaration.align,
        linkage: declaration.linkage.as_ref().map(|linkage| linkage.node),
        opaque: declaration.opaque.or((state_space == StateSpace::Tex).then_some(OpaqueType::Texture)),
        initializer,
        span: name.span,
    })
}

fn initializer_span(initializer: &Initializer) -> Span {
    match initializer {
        Initializer::Expression(expression) => expression.span,
        Initializer::List(_, span) => *span,
    }
}

/// Where `initializer_bytes` puts what it reads.
struct InitializerOutput<'a> {
    bytes: &'a mut Vec<u8>,
    addresses: &'a mut Vec<AddressInitializer>,
    resolve: &'a mut dyn FnMut(&str) -> Option<AddressTarget>,
}

/// Appends the little-endian bytes of an initializer, and the addresses it stores (as zero
/// bytes plus an `AddressInitializer`); false (with a diagnostic) when it holds something else.
fn initializer_bytes(
    initializer: &Initializer,
    ty: ScalarType,
    output: &mut InitializerOutput,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let bytes = &mut *output.bytes;
    match initializer {
        Initializer::List(items, _) => items.iter().all(|item| initializer_bytes(item, ty, output, diagnostics)),
        Initializer::Expression(expression) => match evaluate(&expression.node) {
            Some(Constant::Integer(value)) => {
                let value = if ty.is_float() { float_bits_of(ty, value as f64) } else { value as u128 };
                bytes.extend_from_slice(&value.to_le_bytes()[..ty.bytes() as usize]);
                true
            }
            Some(Constant::Float { bits, double }) => {
                let value = if double { f64::from_bits(bits) } else { f64::from(f32::from_bits(bits as u32)) };
                let stored = if ty.is_float() { float_bits_of(ty, value) } else { bits as u128 };
                bytes.extend_from_slice(&stored.to_le_bytes()[..ty.bytes() as usize]);
                true
            }
            None => address_initializer(expression, ty, output, diagnostics),
        },
    }
}

/// `name`, `generic(name)`, and either plus or minus a constant: an address to store.
fn address_initializer(
    expression: &crate::span::Spanned<Expression>,
    ty: ScalarType,
    output: &mut InitializerOutput,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    use crate::syntax::ast::BinaryOperator;
    let symbol = |expression: &Expression| match expression {
        Expression::Symbol(name) => Some((name.clone(), false)),
        Expression::Generic(name) => Some((name.clone(), true)),
        _ => None,
    };
    let parts = match &expression.node {
        Expression::Binary { operator: operator @ (BinaryOperator::Add | BinaryOperator::Subtract), left, right } => {
            match (symbol(&left.node), evaluate(&right.node)) {
                (Some(symbol), Some(Constant::Integer(addend))) => {
                    let addend = addend as i64;
                    Some((symbol, if *operator == BinaryOperator::Add { addend } else { addend.wrapping_neg() }))
                }
                _ => None,
            }
        }
        other => symbol(other).map(|symbol| (symbol, 0)),
    };
    let Some(((name, generic), addend)) = parts else {
        diagnostics.push(
            Diagnostic::error(Code::Unsupported, "unsupported: this initializer expression")
                .with_primary(expression.span, "not a constant or an address")
                .with_note("ptxr accepts constants, `name`, `generic(name)` and either plus or minus a constant"),
        );
        return false;
    };
    if !matches!(ty, ScalarType::U32 | ScalarType::U64 | ScalarType::B32 | ScalarType::B64 | ScalarType::S64) {
        diagnostics.push(
            Diagnostic::error(Code::InvalidDeclaration, format!("an address does not fit `{ty}`"))
                .with_primary(expression.span, "address stored here")
                .with_note("variables holding addresses are `.u32` or `.u64`"),
        );
        return false;
    }
    let Some(target) = (output.resolve)(&name) else {
        diagnostics.push(
            Diagnostic::error(Code::UndeclaredName, format!("`{name}` is not declared"))
                .with_primary(expression.span, "undeclared name"),
        );
        return false;
    };
    output.addresses.push(AddressInitializer {
        offset: output.bytes.len() as u64,
        bytes: ty.bytes(),
        target,
        addend,
        generic,
        span: expression.span,
    });
    output.bytes.extend(std::iter::repeat_n(0, ty.bytes() as usize));
    true
}

fn float_bits_of(ty: ScalarType, value: f64) -> u128 {
    match ty {
        ScalarType::F64 => u128::from(value.to_bits()),
        ScalarType::F32 => u128::from((value as f32).to_bits()),
        ScalarType::F16 => u128::from(f16_bits_of(value as f32)),
        ScalarType::Bf16 => u128::from(((value as f32).to_bits() >> 16) as u16),
        _ => u128::from(value.to_bits()),
    }
}

/// IEEE binary16 bits of an f32, rounding to nearest even.
fn f16_bits_of(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exponent = ((bits >> 23) & 0xff) as i32;
    let mantissa = bits & 0x7f_ffff;
    if exponent == 0xff {
        return sign | 0x7c00 | if mantissa != 0 { 0x200 } else { 0 };
    }
    let unbiased = exponent - 127 + 15;
    if unbiased >= 0x1f {
        return sign | 0x7c00;
    }
    if unbiased <= 0 {
        if unbiased < -10 {
            return sign;
        }
        let full = mantissa | 0x80_0000;
        let shift = (14 - unbiased) as u32;
        let half = full >> shift;
        let remainder = full & ((1 << shift) - 1);
        let midpoint = 1 << (shift - 1);
        let rounded = if remainder > midpoint || (remainder == midpoint && half & 1 == 1) { half + 1 } else { half };
        return sign | rounded as u16;
    }
    let half = ((unbiased as u32) << 10) | (mantissa >> 13);
    let remainder = mantissa & 0x1fff;
    let rounded = if remainder > 0x1000 || (remainder == 0x1000 && half & 1 == 1) { half + 1 } else { half };
    sign | rounded as u16
}

pub enum Constant {
    Integer(i128),
    Float { bits: u64, double: bool },
}

/// Evaluates a constant expression (ISA 7.8 section 4.6) with 64-bit wrapping arithmetic.
pub fn evaluate(expression: &Expression) -> Option<Constant> {
    use crate::syntax::ast::{BinaryOperator, UnaryOperator};
    match expression {
        Expression::Integer(value) => Some(Constant::Integer(*value)),
        Expression::Float { bits, double } => Some(Constant::Float { bits: *bits, double: *double }),
        Expression::Unary { operator, operand } => {
            let Constant::Integer(value) = evaluate(&operand.node)? else {
                if let (UnaryOperator::Negate, Some(Constant::Float { bits, double })) =
                    (operator, evaluate(&operand.node))
                {
                    let sign = if double { 1 << 63 } else { 1 << 31 };
                    return Some(Constant::Float { bits: bits ^ sign, double });
                }
                return None;
            };
            Some(Constant::Integer(match operator {
                UnaryOperator::Negate => (value as i64).wrapping_neg() as i128,
                UnaryOperator::BitNot => !(value as i64) as i128,
                UnaryOperator::LogicalNot => i128::from(value == 0),
                UnaryOperator::CastSigned => i128::from(value as i64),
                UnaryOperator::CastUnsigned => i128::from(value as u64),
            }))
        }
        Expression::Binary { operator, left, right } => {
            let (Constant::Integer(left), Constant::Integer(right)) = (evaluate(&left.node)?, evaluate(&right.node)?)
            else {
                return None;
            };
            let (left, right) = (left as i64, right as i64);
            Some(Constant::Integer(i128::from(match operator {
                BinaryOperator::Add => left.wrapping_add(right),
                BinaryOperator::Subtract => left.wrapping_sub(right),
                BinaryOperator::Multiply => left.wrapping_mul(right),
                BinaryOperator::Divide => left.checked_div(right)?,
                BinaryOperator::Remainder => left.checked_rem(right)?,
                BinaryOperator::ShiftLeft => left.wrapping_shl(right as u32),
                BinaryOperator::ShiftRight => left.wrapping_shr(right as u32),
                BinaryOperator::BitAnd => left & right,
                BinaryOperator::BitOr => left | right,
                BinaryOperator::BitXor => left ^ right,
                BinaryOperator::Less => i64::from(left < right),
                BinaryOperator::Greater => i64::from(left > right),
                BinaryOperator::LessEqual => i64::from(left <= right),
                BinaryOperator::GreaterEqual => i64::from(left >= right),
                BinaryOperator::Equal => i64::from(left == right),
                BinaryOperator::NotEqual => i64::from(left != right),
                BinaryOperator::LogicalAnd => i64::from(left != 0 && right != 0),
                BinaryOperator::LogicalOr => i64::from(left != 0 || right != 0),
            })))
        }
        Expression::Conditional { condition, if_true, if_false } => {
            let Constant::Integer(condition) = evaluate(&condition.node)? else {
                return None;
            };
            evaluate(if condition != 0 { &if_true.node } else { &if_false.node })
        }
        Expression::Symbol(_) | Expression::Generic(_) | Expression::Call { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::f16_bits_of;

    #[test]
    fn converts_to_f16_bits() {
        assert_eq!(f16_bits_of(1.0), 0x3c00);
        assert_eq!(f16_bits_of(-2.0), 0xc000);
        assert_eq!(f16_bits_of(65504.0), 0x7bff);
        assert_eq!(f16_bits_of(1.0e6), 0x7c00);
        assert_eq!(f16_bits_of(5.960_464_5e-8), 0x0001);
    }
}
