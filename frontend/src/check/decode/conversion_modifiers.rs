//! Which rounding, `.ftz`, `.sat` and `.relu` modifiers a scalar `cvt.dtype.atype` takes
//! (ISA 7.8 section 9.7.8.18, "cvt"), as ptxas 12.9 reads them. The rules are checked before
//! `cvt` is decoded, for the forms whose modifiers are only these and whose types are the
//! integers, `.f16`, `.bf16`, `.f32` and `.f64`; a sweep of every such combination against
//! ptxas found each rule here:
//! - integer from integer: no rounding; `.sat` only where the source's range does not fit the
//!   destination's ('Illegal modifier '.sat'');
//! - integer from float: an integral rounding (`.rni`, `.rzi`, `.rmi`, `.rpi`) is required;
//!   float from integer: a float rounding (`.rn`, `.rz`, `.rm`, `.rp`) is required;
//! - float from float: narrowing needs a float rounding, widening takes none, the same type
//!   takes an optional integral rounding, and conversions between `.bf16` and the other float
//!   types take an optional float rounding;
//! - `.ftz` only where one of the types is `.f32`; `.sat` nowhere with `.bf16`;
//! - `.relu` only on `.f16`/`.bf16` from `.f32`, with `.rn` or `.rz` and without `.ftz` and `.sat`;
//! - no conversion at all between `.bf16` and the 8-bit integers ('Unexpected instruction
//!   types specified for 'cvt'').

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::RoundingMode;
use crate::span::Span;
use crate::syntax::ast;
use crate::vocabulary::{ScalarKind, ScalarType};

use super::Context;

/// What a type is to these rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Integer { signed: bool, bits: u32 },
    Float(ScalarType),
}

fn class(ty: ScalarType) -> Option<Class> {
    match ty.kind() {
        ScalarKind::Signed => Some(Class::Integer { signed: true, bits: ty.bits() }),
        ScalarKind::Unsigned => Some(Class::Integer { signed: false, bits: ty.bits() }),
        ScalarKind::Float if matches!(ty, ScalarType::F16 | ScalarType::Bf16 | ScalarType::F32 | ScalarType::F64) => {
            Some(Class::Float(ty))
        }
        _ => None,
    }
}

/// The roundings a conversion takes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Roundings {
    None,
    IntegralRequired,
    FloatRequired,
    IntegralOptional,
    FloatOptional,
}

fn roundings(destination: Class, source: Class) -> Roundings {
    match (destination, source) {
        (Class::Integer { .. }, Class::Integer { .. }) => Roundings::None,
        (Class::Integer { .. }, Class::Float(_)) => Roundings::IntegralRequired,
        (Class::Float(_), Class::Integer { .. }) => Roundings::FloatRequired,
        (Class::Float(destination), Class::Float(source)) => {
            if destination == source {
                Roundings::IntegralOptional
            } else if destination == ScalarType::Bf16 && source == ScalarType::F16 || source == ScalarType::Bf16 {
                Roundings::FloatOptional
            } else if destination.bits() < source.bits() || destination == ScalarType::Bf16 {
                Roundings::FloatRequired
            } else {
                Roundings::None
            }
        }
    }
}

/// Whether every value of `source` is a value of `destination` (then `.sat` has nothing to do).
fn fits(destination: Class, source: Class) -> bool {
    match (destination, source) {
        (Class::Integer { signed: destination_signed, bits: destination_bits }, Class::Integer { signed, bits }) => {
            if signed {
                destination_signed && destination_bits >= bits
            } else {
                destination_bits > bits || !destination_signed && destination_bits == bits
            }
        }
        _ => false,
    }
}

fn is_type(class: Class, ty: ScalarType) -> bool {
    class == Class::Float(ty)
}

/// Checks the modifiers of a scalar `cvt`; `false` after reporting one it does not take.
/// Forms with any other modifier (`.satfinite`, packed and 8-bit float types, `.rna`, `.rs`,
/// ...) are left to their decoders.
pub fn check(context: &mut Context, instruction: &ast::Instruction) -> bool {
    let mut rounding = None;
    let (mut flush, mut saturate, mut relu, mut nearest_away) = (None, None, None, None);
    let mut types = Vec::with_capacity(2);
    for modifier in &instruction.modifiers {
        let name = modifier.node.as_str();
        match name {
            "rna" => nearest_away = Some(modifier.span),
            "ftz" => flush = Some(modifier.span),
            "sat" => saturate = Some(modifier.span),
            "relu" => relu = Some(modifier.span),
            _ => {
                if let Some(mode) = RoundingMode::from_ptx(name) {
                    rounding = Some((mode, modifier.span));
                } else if let Some(ty) = ScalarType::from_ptx(name).and_then(class) {
                    types.push((ty, modifier.span));
                } else {
                    return true;
                }
            }
        }
    }
    let [(destination, destination_span), (source, source_span)] = types[..] else { return true };
    let pair = format!("`cvt.{}.{}`", spelling(destination), spelling(source));
    let mut refuse = |span: Span, message: String, label: &str| {
        context.report(Diagnostic::error(Code::InvalidModifier, message).with_primary(span, label.to_string()));
        false
    };
    if let Some(span) = nearest_away {
        // `.rna` is `cvt.rna.tf32.f32`'s (and its `.satfinite` forms'), not any of these types'.
        return refuse(span, format!("{pair} cannot round with `.rna`"), "`.rna` is for `.tf32` destinations");
    }
    let brain = is_type(destination, ScalarType::Bf16) || is_type(source, ScalarType::Bf16);
    let byte = |class: Class| matches!(class, Class::Integer { bits: 8, .. });
    if brain && (byte(destination) || byte(source)) {
        return refuse(
            destination_span.to(source_span),
            format!("{pair} does not exist"),
            "`.bf16` converts to and from 16-, 32- and 64-bit integers only",
        );
    }
    let allowed = roundings(destination, source);
    match (rounding, allowed) {
        (None, Roundings::IntegralRequired) => {
            return refuse(
                destination_span,
                format!("{pair} needs an integral rounding"),
                "add `.rni`, `.rzi`, `.rmi` or `.rpi`",
            )
        }
        (None, Roundings::FloatRequired) => {
            return refuse(destination_span, format!("{pair} needs a rounding"), "add `.rn`, `.rz`, `.rm` or `.rp`")
        }
        (Some((mode, span)), _) => {
            let fits = match allowed {
                Roundings::None => false,
                Roundings::IntegralRequired | Roundings::IntegralOptional => mode.is_integral(),
                Roundings::FloatRequired | Roundings::FloatOptional => !mode.is_integral(),
            };
            if !fits {
                let label = match allowed {
                    Roundings::None => "this conversion is exact or takes no rounding",
                    Roundings::IntegralRequired | Roundings::IntegralOptional => {
                        "expected `.rni`, `.rzi`, `.rmi` or `.rpi`"
                    }
                    Roundings::FloatRequired | Roundings::FloatOptional => "expected `.rn`, `.rz`, `.rm` or `.rp`",
                };
                return refuse(span, format!("{pair} cannot round with `{mode}`"), label);
            }
        }
        _ => {}
    }
    let single = is_type(destination, ScalarType::F32) || is_type(source, ScalarType::F32);
    if let (Some(span), false) = (flush, single) {
        return refuse(span, format!("`.ftz` is not defined for {pair}"), "`.ftz` is for conversions with `.f32`");
    }
    if let (Some(span), true) = (saturate, brain || fits(destination, source)) {
        let label =
            if brain { "`.sat` is not defined with `.bf16`" } else { "every source value fits the destination" };
        return refuse(span, format!("`.sat` is not defined for {pair}"), label);
    }
    if let Some(span) = relu {
        let half_from_single = (is_type(destination, ScalarType::F16) || is_type(destination, ScalarType::Bf16))
            && is_type(source, ScalarType::F32);
        let nearest_or_zero = matches!(rounding, Some((RoundingMode::NearestEven | RoundingMode::TowardZero, _)));
        if !(half_from_single && nearest_or_zero && flush.is_none() && saturate.is_none()) {
            return refuse(
                span,
                format!("`.relu` is not defined for this form of {pair}"),
                "`.relu` is for `.f16`/`.bf16` from `.f32` with `.rn` or `.rz`, without `.ftz` and `.sat`",
            );
        }
    }
    true
}

fn spelling(class: Class) -> String {
    match class {
        Class::Integer { signed, bits } => format!("{}{bits}", if signed { "s" } else { "u" }),
        Class::Float(ty) => ty.to_string().trim_start_matches('.').to_string(),
    }
}
