//! Calls against their callees, once every function is known: as many results and arguments as
//! the callee has return and ordinary parameters, each variable of the parameter's size (ISA
//! 7.8 section 9.7.12.6: arguments are passed by value, so sizes must agree).

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{CallOperand, Function, FunctionId, Instruction, Statement, Variable, VariableId};
use crate::syntax::ast::FunctionKind;

/// Where a `call` of a known function is: its caller and its index in the caller's body,
/// recorded while the bodies are checked. The calls are few, and walking every checked
/// statement of the module again to find them read the whole checked IR back from memory.
#[derive(Clone, Copy)]
pub struct CallSite {
    pub caller: FunctionId,
    pub statement: u32,
}

/// Checks every call, in the order of `call_sites` (the order of the source); returns nothing,
/// reports into `diagnostics`.
pub fn check_calls(
    functions: &[Function],
    call_sites: &[CallSite],
    globals: &[Variable],
    diagnostics: &mut Vec<Diagnostic>,
) {
    for site in call_sites {
        let caller = &functions[site.caller.0 as usize];
        let statement = caller.body.as_deref().and_then(|body| body.get(site.statement as usize));
        let Some(Statement::Instruction(instruction)) = statement else { continue };
        let Instruction::Call { callee, results, arguments } = &instruction.instruction else { continue };
        let callee = &functions[callee.0 as usize];
        if callee.kind == FunctionKind::Entry {
            // Section 9.7.11.5: `call` invokes a `.func`; kernels are launched, not called
            // (ptxas: "Illegal call target, device function expected").
            diagnostics.push(
                Diagnostic::error(Code::OperandKind, format!("`{}` is a kernel and cannot be called", callee.name))
                    .with_primary(instruction.span, "`call` of an `.entry`")
                    .with_secondary(callee.span, "declared as `.entry` here")
                    .with_help("call a `.func`; move the shared code into one that the kernel calls"),
            );
            continue;
        }
        let variable = |id: VariableId| match id {
            VariableId::Global(index) => &globals[index as usize],
            VariableId::Local(index) => caller.variable(index),
        };
        let lists = [("result", results, &callee.return_parameters), ("argument", arguments, &callee.parameters)];
        for (what, given, expected) in lists {
            if given.len() != expected.len() {
                diagnostics.push(
                    Diagnostic::error(
                        Code::OperandCount,
                        format!(
                            "`{}` takes {} {what}{} but the call gives {}",
                            callee.name,
                            expected.len(),
                            if expected.len() == 1 { "" } else { "s" },
                            given.len()
                        ),
                    )
                    .with_primary(instruction.span, format!("{} {what}(s) here", given.len()))
                    .with_secondary(callee.span, "declared here"),
                );
                continue;
            }
            for (operand, &parameter) in given.iter().zip(expected.iter()) {
                let CallOperand::Variable { variable: id, span } = operand else { continue };
                let parameter = callee.variable(parameter);
                let given_variable = variable(*id);
                if given_variable.size_bytes() != parameter.size_bytes() {
                    diagnostics.push(
                        Diagnostic::error(
                            Code::OperandType,
                            format!(
                                "{what} `{}` is {} bytes but parameter `{}` of `{}` is {} bytes",
                                given_variable.name,
                                given_variable.size_bytes(),
                                parameter.name,
                                callee.name,
                                parameter.size_bytes()
                            ),
                        )
                        .with_primary(*span, "a different size")
                        .with_secondary(parameter.span, "the parameter"),
                    );
                }
            }
        }
    }
}
