//! `.b128` as the type of a declaration (a register, variable or parameter) came with PTX ISA 8.3
//! and needs sm_70: ptxas gates the declaration itself ("Feature 'Type .b128' requires PTX ISA
//! .version 8.3 or later", "... requires .target sm_70 or higher"), apart from the instructions
//! that name the type, which are rows of `requirements.rs`.

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::IsaVersion;
use crate::span::Span;
use crate::syntax::ast::{self, Directive, Statement};
use crate::vocabulary::ScalarType;

use super::super::directives::Header;

const INTRODUCED: IsaVersion = IsaVersion { major: 8, minor: 3 };
const OLDEST_SM: u32 = 70;

/// What a `.b128` declaration is gated against: the module's header, and the architecture it is
/// compiled for where that is older than its `.target` (a driver's `--arch`).
#[derive(Clone, Copy)]
pub struct WideTypeGate<'header> {
    pub header: &'header Header,
    pub compile_sm: Option<u32>,
}

impl WideTypeGate<'_> {
    /// True when the gate does not reach `.b128`: only then are declarations walked.
    pub fn fails(self) -> bool {
        self.header.version < INTRODUCED || self.header.sm.is_some_and(|sm| sm < OLDEST_SM) || self.compiled_below()
    }

    fn compiled_below(self) -> bool {
        self.compile_sm.is_some_and(|sm| sm < OLDEST_SM) && self.header.sm.is_none_or(|sm| sm >= OLDEST_SM)
    }
}

/// Reports every module-scope variable of type `.b128`.
pub fn check_module_variables(module: &ast::Module, gate: WideTypeGate, diagnostics: &mut Vec<Diagnostic>) {
    for directive in &module.directives {
        if let Directive::Variable(variable) = directive {
            check_type(variable.ty.node, variable.ty.span, gate, diagnostics);
        }
    }
}

/// Reports every parameter and declaration of type `.b128` of one function.
pub fn check_function(function: &ast::Function, gate: WideTypeGate, diagnostics: &mut Vec<Diagnostic>) {
    for parameter in function.return_parameters.iter().chain(&function.parameters) {
        check_type(parameter.ty.node, parameter.ty.span, gate, diagnostics);
    }
    if let Some(body) = &function.body {
        check_block(body, gate, diagnostics);
    }
}

fn check_block(block: &ast::Block, gate: WideTypeGate, diagnostics: &mut Vec<Diagnostic>) {
    for statement in &block.statements {
        match statement {
            Statement::Declaration(declaration) => {
                check_type(declaration.ty.node, declaration.ty.span, gate, diagnostics)
            }
            Statement::Block(nested) => check_block(nested, gate, diagnostics),
            _ => {}
        }
    }
}

fn check_type(ty: ScalarType, span: Span, gate: WideTypeGate, diagnostics: &mut Vec<Diagnostic>) {
    if ty != ScalarType::B128 {
        return;
    }
    let header = gate.header;
    if header.version < INTRODUCED {
        let mut diagnostic = Diagnostic::error(Code::NeedsNewerVersion, "`.b128` needs PTX ISA 8.3 or later")
            .with_primary(span, format!("the `.b128` type was introduced in PTX ISA {INTRODUCED}"));
        if let Some(directive) = header.version_span {
            diagnostic =
                diagnostic.with_secondary(directive, format!("the module declares PTX ISA {}", header.version));
        }
        diagnostics.push(
            diagnostic
                .with_note("PTX ISA notes of section 5.2.2 (ISA 8.3)")
                .with_help(format!("raise `.version` to {INTRODUCED} or later, or use a `.v2 .b64` pair")),
        );
    }
    if let Some(declared) = header.sm.filter(|&sm| sm < OLDEST_SM) {
        let mut diagnostic =
            Diagnostic::error(Code::NeedsNewerTarget, format!("`.b128` needs sm_{OLDEST_SM} or later"))
                .with_primary(span, format!("the `.b128` type requires sm_{OLDEST_SM} or higher"));
        if let Some(directive) = header.target_span {
            diagnostic = diagnostic.with_secondary(directive, format!("the module targets sm_{declared}"));
        }
        diagnostics.push(
            diagnostic
                .with_note("Target ISA notes of section 5.2.2 (ISA 8.3)")
                .with_help(format!("raise `.target` to sm_{OLDEST_SM} or later, or use a `.v2 .b64` pair")),
        );
    }
    if let Some(compiled) = gate.compile_sm.filter(|_| gate.compiled_below()) {
        diagnostics.push(
            Diagnostic::error(
                Code::NeedsNewerTarget,
                format!("`.b128` needs sm_{OLDEST_SM} or later, but the module is compiled for sm_{compiled}"),
            )
            .with_primary(span, format!("the `.b128` type requires sm_{OLDEST_SM} or higher"))
            .with_note("Target ISA notes of section 5.2.2 (ISA 8.3)")
            .with_help(format!(
                "compile for sm_{OLDEST_SM} or later (`--arch sm_{OLDEST_SM}`), or use a `.v2 .b64` pair"
            )),
        );
    }
}
