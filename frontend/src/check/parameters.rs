//! Which way a function's parameters may be accessed (ISA 7.8 section 5.1.6 and the ABI's
//! calling sequence): a kernel's or function's input parameters are read-only, and a function's
//! return parameters are written, never read. ptxas rejects both ("Illegal to write to function
//! input parameter", "Illegal to read function return parameter").

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{AddressBase, Function, Instruction, Statement, VariableId};
use crate::syntax::ast::FunctionKind;
use crate::vocabulary::StateSpace;

/// Reports every `st.param` to an input parameter and every `ld.param` of a return parameter
/// of `function`, addressed by name.
pub fn check_parameter_access(function: &Function, diagnostics: &mut Vec<Diagnostic>) {
    let what = if function.kind == FunctionKind::Entry { "kernel" } else { "function" };
    for statement in function.body.iter().flatten() {
        let Statement::Instruction(guarded) = statement else { continue };
        let (address, store) = match &guarded.instruction {
            Instruction::Store { state_space: StateSpace::Param, address, .. }
            | Instruction::StoreVector { state_space: StateSpace::Param, address, .. } => (address, true),
            Instruction::Load { state_space: StateSpace::Param, address, .. }
            | Instruction::LoadVector { state_space: StateSpace::Param, address, .. } => (address, false),
            _ => continue,
        };
        let AddressBase::Variable(VariableId::Local(index)) = address.base else { continue };
        let forbidden = if store { &function.parameters } else { &function.return_parameters };
        if !forbidden.contains(&index) {
            continue;
        }
        let parameter = function.variable(index);
        let diagnostic = if store {
            Diagnostic::error(
                Code::OperandKind,
                format!(
                    "`{}` is an input parameter of {what} `{}` and cannot be written",
                    parameter.name, function.name
                ),
            )
            .with_primary(address.span, "`st.param` to an input parameter")
            .with_secondary(parameter.span, "declared as an input parameter here")
            .with_help("copy it into a register or a local variable and change that")
        } else {
            Diagnostic::error(
                Code::OperandKind,
                format!("`{}` is a return parameter of `{}` and cannot be read", parameter.name, function.name),
            )
            .with_primary(address.span, "`ld.param` of a return parameter")
            .with_secondary(parameter.span, "declared as a return parameter here")
            .with_help("keep the value in a register, and only store it into the return parameter")
        };
        diagnostics.push(diagnostic);
    }
}
