//! Functions: signatures first (so calls may come before definitions), then each body with its
//! scopes, labels and instructions.

use super::name_map::NameMap;
use std::collections::HashMap;

use super::calls::CallSite;
use super::declarations::{variable_from_declaration, Globals};
use super::decode::{self, Context};
use super::directives::Header;
use super::gating::ModuleGate;
use super::scope::Scopes;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{self, FunctionId, Guard, GuardedInstruction, LabelId, Variable, VariableId};
use crate::span::Span;
use crate::syntax::ast::{self, Directive, Linkage, Statement, Word};
use crate::vocabulary::{ScalarType, StateSpace};

/// A function's checked signature, before its body is checked.
pub struct Signature {
    /// The index of the function's directive in the module.
    directive: usize,
    has_body: bool,
    name_span: Span,
    parameters: Vec<Variable>,
    return_parameters: Vec<Variable>,
}

pub struct Signatures {
    list: Vec<Signature>,
    names: NameMap<String, FunctionId>,
}

pub fn collect_signatures(module: &ast::Module, globals: &Globals, diagnostics: &mut Vec<Diagnostic>) -> Signatures {
    let mut signatures = Signatures { list: Vec::new(), names: NameMap::default() };
    for (index, directive) in module.directives.iter().enumerate() {
        let Directive::Function(function) = directive else { continue };
        let name = function.name.node.as_str();
        if let Some(VariableId::Global(index)) = globals.names.get(name) {
            diagnostics.push(
                Diagnostic::error(Code::DuplicateDeclaration, format!("`{name}` is already a variable"))
                    .with_primary(function.name.span, "function declared with the same name")
                    .with_secondary(globals.variables[*index as usize].span, "variable declared here"),
            );
            continue;
        }
        for parameter in function.parameters.iter().chain(&function.return_parameters) {
            super::declarations::check_parameter(parameter, diagnostics);
        }
        let external = function.linkage.as_ref().is_some_and(|linkage| linkage.node == Linkage::Extern);
        if external && function.body.is_some() {
            // Section 11.6: `.extern` declares a function defined in another module.
            diagnostics.push(
                Diagnostic::error(Code::InvalidDeclaration, format!("`.extern` function `{name}` has a body"))
                    .with_primary(function.name.span, "an `.extern` declaration with a definition")
                    .with_help("drop `.extern` (use `.visible` to export it), or drop the body"),
            );
        }
        let signature = Signature {
            directive: index,
            has_body: function.body.is_some(),
            name_span: function.name.span,
            parameters: function.parameters.iter().map(parameter_variable).collect(),
            return_parameters: function.return_parameters.iter().map(parameter_variable).collect(),
        };
        match signatures.names.get(name) {
            Some(existing) => {
                let earlier = &mut signatures.list[existing.0 as usize];
                match (earlier.has_body, function.body.is_some()) {
                    (true, true) => diagnostics.push(
                        Diagnostic::error(Code::DuplicateDeclaration, format!("`{name}` is defined twice"))
                            .with_primary(function.name.span, "defined again here")
                            .with_secondary(earlier.name_span, "first defined here"),
                    ),
                    // A definition after a prototype replaces it; a prototype after a definition adds nothing.
                    (false, true) => {
                        report_inconsistent_prototypes(name, earlier, &signature, diagnostics);
                        *earlier = signature;
                    }
                    _ => report_inconsistent_prototypes(name, earlier, &signature, diagnostics),
                }
            }
            None => {
                signatures.names.insert(name.to_string(), FunctionId(signatures.list.len() as u32));
                signatures.list.push(signature);
            }
        }
    }
    signatures
}

/// Two declarations of one function must agree on their parameters: as many, each of the same
/// state space and size (ptxas: "Inconsistent prototypes of 'f', parameter types differ").
fn report_inconsistent_prototypes(
    name: &str,
    earlier: &Signature,
    later: &Signature,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let same = |first: &[Variable], second: &[Variable]| {
        first.len() == second.len()
            && first.iter().zip(second).all(|(first, second)| {
                first.state_space == second.state_space && first.size_bytes() == second.size_bytes()
            })
    };
    if same(&earlier.parameters, &later.parameters) && same(&earlier.return_parameters, &later.return_parameters) {
        return;
    }
    diagnostics.push(
        Diagnostic::error(Code::DuplicateDeclaration, format!("the declarations of `{name}` disagree"))
            .with_primary(later.name_span, "declared with other parameters here")
            .with_secondary(earlier.name_span, "first declared here")
            .with_note("every declaration of a function has the same parameters, in number, space and size"),
    );
}

fn parameter_variable(parameter: &ast::Parameter) -> Variable {
    Variable {
        name: Word::new(&parameter.name.node),
        state_space: parameter.state_space.node,
        ty: parameter.ty.node,
        vector: parameter.vector,
        array_length: parameter.array.map(u64::from),
        align: parameter.align,
        linkage: None,
        opaque: None,
        initializer: None,
        span: parameter.span,
    }
}

/// Checks every function, and drops each body from the syntax tree once its checked form is
/// built: the tree and the checked module are each about ten times the size of the source, and
/// this keeps them from being whole at the same time.
/// The module whose bodies are checked (and dropped), and the gating that must read each body
/// first.
pub struct Bodies<'a, 'header> {
    pub module: &'a mut ast::Module,
    pub gate: &'a mut ModuleGate<'header>,
    pub gating_diagnostics: &'a mut Vec<Diagnostic>,
}

pub fn check_bodies(
    header: &Header,
    globals: &Globals,
    signatures: Signatures,
    bodies: Bodies,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<ir::Function>, Vec<CallSite>) {
    let Bodies { module, gate, gating_diagnostics } = bodies;
    // Each signature is moved into its function's check, whose parameters become the
    // function's variables without a copy.
    let Signatures { list, names: function_names } = signatures;
    let mut functions = Vec::with_capacity(list.len());
    let mut call_sites = Vec::new();
    let mut scopes = Scopes::new(&globals.names, 0);
    let mut labels = NameMap::default();
    for signature in list {
        gate.check_through(module, signature.directive + 1, gating_diagnostics);
        let Some(Directive::Function(syntax)) = module.directives.get_mut(signature.directive) else { continue };
        let names = FunctionNames { scopes: &mut scopes, labels: &mut labels, functions: &function_names };
        let (function, call_statements) = check_function(signature, syntax, header, globals, names, diagnostics);
        let caller = FunctionId(functions.len() as u32);
        call_sites.extend(call_statements.into_iter().map(|statement| CallSite { caller, statement }));
        functions.push(function);
        syntax.body = None;
    }
    gate.check_through(module, usize::MAX, gating_diagnostics);
    (functions, call_sites)
}

/// What a body's names resolve through: the scopes and the labels, shared by every function of
/// the module (emptied for each, keeping their room, rather than grown from empty in each),
/// and the module's functions.
struct FunctionNames<'a, 'module> {
    scopes: &'a mut Scopes<'module>,
    labels: &'a mut NameMap<Word, LabelId>,
    functions: &'module NameMap<String, FunctionId>,
}

fn check_function<'module>(
    signature: Signature,
    syntax: &ast::Function,
    header: &Header,
    globals: &'module Globals,
    names: FunctionNames<'_, 'module>,
    diagnostics: &mut Vec<Diagnostic>,
) -> (ir::Function, Vec<u32>) {
    let sizes = syntax.body.as_ref().map_or(BodySizes::default(), BodySizes::of);
    let registers = sizes.registers;
    names.scopes.start_function(registers);
    names.labels.clear();
    // `clear` keeps the table's room: a huge function's is not kept for the small ones after it.
    names.labels.shrink_to(KEPT_LABELS);
    let mut context = Context {
        scopes: names.scopes,
        // Room for the parameters and every register the body declares, once: each becomes a
        // variable (a register at its first use), and growing the list copies it.
        variables: Vec::with_capacity(signature.parameters.len() + signature.return_parameters.len() + registers),
        globals: &globals.variables,
        labels: names.labels,
        branch_targets: HashMap::new(),
        functions: names.functions,
        diagnostics,
        address_size: header.address_size,
        version: header.version,
        sm: header.sm,
        reads_warp_registers: false,
        special_register_isa: None,
        special_registers: std::collections::BTreeSet::new(),
        stores_to_parameters: false,
        call_statements: Vec::new(),
    };
    let declare_parameters = |context: &mut Context, parameters: Vec<Variable>| -> Vec<u32> {
        let mut indices = Vec::with_capacity(parameters.len());
        for parameter in parameters {
            let again = parameter.span;
            match context.scopes.declare(parameter, &mut context.variables) {
                Ok(VariableId::Local(index)) => indices.push(index),
                Ok(VariableId::Global(_)) => {}
                Err(existing) => {
                    // The earlier parameter has the same name.
                    let first = context.variable(existing);
                    let (name, first) = (first.name.to_string(), first.span);
                    context.report(
                        Diagnostic::error(Code::DuplicateDeclaration, format!("parameter `{name}` is declared twice"))
                            .with_primary(again, "declared again here")
                            .with_secondary(first, "first declared here"),
                    );
                }
            }
        }
        indices
    };
    let return_parameters = declare_parameters(&mut context, signature.return_parameters);
    let parameters = declare_parameters(&mut context, signature.parameters);
    if syntax.kind == ast::FunctionKind::Entry && !return_parameters.is_empty() {
        context.report(
            Diagnostic::error(Code::InvalidDeclaration, "a kernel cannot return values")
                .with_primary(syntax.name.span, "`.entry` with return parameters"),
        );
    }
    for parameter in &syntax.parameters {
        if syntax.kind == ast::FunctionKind::Entry && parameter.state_space.node != StateSpace::Param {
            context.report(
                Diagnostic::error(Code::InvalidDeclaration, "kernel parameters must be in the `.param` state space")
                    .with_primary(parameter.state_space.span, format!("{} parameter", parameter.state_space.node)),
            );
        }
    }

    let mut labels = Vec::new();
    let body = syntax.body.as_ref().map(|block| {
        // Sized once: the body is the largest part of the checked module, and a grown vector
        // is up to twice as large as it needs to be.
        let mut statements = Vec::with_capacity(sizes.statements);
        check_block(block, &mut context, &mut statements, &mut labels, false);
        statements
    });
    let function = ir::Function {
        name: syntax.name.node.to_string(),
        kind: syntax.kind,
        linkage: syntax.linkage.as_ref().map(|linkage| linkage.node),
        parameters,
        return_parameters,
        variables: context.variables,
        labels,
        body,
        reads_warp_registers: context.reads_warp_registers,
        special_register_isa: context.special_register_isa,
        special_registers: context.special_registers,
        span: syntax.span,
    };
    // Only a `st.param`, or an `ld.param` in a function with return parameters, can be
    // reported: a kernel that stores to no parameter is not walked again.
    if context.stores_to_parameters || !function.return_parameters.is_empty() {
        super::parameters::check_parameter_access(&function, context.diagnostics);
    }
    (function, context.call_statements)
}

/// The labels whose room the map of labels keeps from one function to the next.
const KEPT_LABELS: usize = 256;

/// What a body's checked form needs room for, counted in one walk of its syntax tree.
#[derive(Default)]
struct BodySizes {
    /// The registers that the ranges (`%r<N>`) of the block and its nested blocks declare, each
    /// range counted up to 4096 (the `reserve` of `declare`), so that a huge declaration of
    /// unused registers costs nothing.
    registers: usize,
    /// The labels and instructions of the block and its nested blocks: what the checked body
    /// holds.
    statements: usize,
}

impl BodySizes {
    fn of(block: &ast::Block) -> BodySizes {
        let mut sizes = BodySizes::default();
        sizes.add(block);
        sizes
    }

    fn add(&mut self, block: &ast::Block) {
        for statement in block.statements.iter() {
            match statement {
                Statement::Label(_) | Statement::Instruction(_) => self.statements += 1,
                Statement::Declaration(declaration) => {
                    let ranges = declaration.names.iter().filter_map(|name| name.range);
                    self.registers += ranges.map(|count| count.min(4096) as usize).sum::<usize>();
                }
                Statement::Block(inner) => self.add(inner),
                Statement::Location { .. } | Statement::Pragma { .. } | Statement::BranchTargets { .. } => {}
            }
        }
    }
}

/// Declares the labels of `block` (not of the blocks nested in it), each visible in the whole
/// block before and after its definition and in the nested blocks, where a label of the same
/// name shadows it: ptxas reads the same label in two blocks, as inlined `asm` blocks write it.
/// So are the block's `.branchtargets` lists, each named by the label just before it.
/// Returns, for a nested block, what each name meant outside it, for `restore_labels`.
fn declare_labels(
    block: &ast::Block,
    labels: &mut Vec<ir::Label>,
    context: &mut Context,
    nested: bool,
) -> Vec<(Word, Option<LabelId>)> {
    let first_of_block = labels.len() as u32;
    let mut shadowed = Vec::new();
    for (index, statement) in block.statements.iter().enumerate() {
        if let Statement::BranchTargets { labels: targets, span } = statement {
            // A `.branchtargets` list is named by the label just before it.
            let named_by = match index.checked_sub(1).map(|previous| &block.statements[previous]) {
                Some(Statement::Label(name)) => context.labels.get(&name.node).copied(),
                _ => None,
            };
            match named_by {
                Some(label) => {
                    context.branch_targets.insert(label, targets.clone());
                }
                None => context.report(
                    Diagnostic::error(Code::InvalidDeclaration, "`.branchtargets` needs a label to name the list")
                        .with_primary(*span, "no label before this list")
                        .with_help("write `targets: .branchtargets L1, L2;` and branch with `brx.idx %r, targets`"),
                ),
            }
            continue;
        }
        let Statement::Label(name) = statement else { continue };
        let id = LabelId(labels.len() as u32);
        match context.labels.insert(name.node.clone(), id) {
            Some(existing) if existing.0 >= first_of_block => {
                context.labels.insert(name.node.clone(), existing);
                let first = labels[existing.0 as usize].span;
                context.report(
                    Diagnostic::error(Code::DuplicateDeclaration, format!("label `{}` is defined twice", name.node))
                        .with_primary(name.span, "defined again here")
                        .with_secondary(first, "first defined here"),
                );
                continue;
            }
            outer => {
                if nested {
                    shadowed.push((name.node.clone(), outer));
                }
            }
        }
        labels.push(ir::Label { name: name.node.clone(), span: name.span });
    }
    shadowed
}

/// Puts back the labels that a nested block's own labels hid.
fn restore_labels(shadowed: Vec<(Word, Option<LabelId>)>, context: &mut Context) {
    for (name, outer) in shadowed.into_iter().rev() {
        match outer {
            Some(outer) => context.labels.insert(name, outer),
            None => context.labels.remove(&name),
        };
    }
}

fn check_block(
    block: &ast::Block,
    context: &mut Context,
    statements: &mut Vec<ir::Statement>,
    labels: &mut Vec<ir::Label>,
    nested: bool,
) {
    if nested {
        context.scopes.enter();
    }
    let shadowed = declare_labels(block, labels, context, nested);
    for statement in &block.statements {
        match statement {
            Statement::Declaration(declaration) => declare(declaration, context),
            Statement::Label(name) => {
                if let Some(label) = context.labels.get(name.node.as_str()) {
                    statements.push(ir::Statement::Label(*label));
                }
            }
            Statement::Instruction(instruction) => check_instruction(instruction, context, statements),
            Statement::Block(inner) => check_block(inner, context, statements, labels, true),
            Statement::Location { .. } | Statement::Pragma { .. } | Statement::BranchTargets { .. } => {}
        }
    }
    if nested {
        restore_labels(shadowed, context);
        context.scopes.leave();
    }
}

fn declare(declaration: &ast::VariableDeclaration, context: &mut Context) {
    if declaration.state_space.node == StateSpace::SpecialReg {
        context.report(
            Diagnostic::error(Code::InvalidDeclaration, "special registers are predefined and cannot be declared")
                .with_primary(declaration.state_space.span, "`.sreg` declaration"),
        );
        return;
    }
    for name in &declaration.names {
        let (scopes, variables) = (&mut context.scopes, &mut context.variables);
        let mut resolve = |name: &str| scopes.lookup(name, variables).map(ir::AddressTarget::Variable);
        let Some(variable) = variable_from_declaration(declaration, name, &mut resolve, context.diagnostics) else {
            continue;
        };
        if let Some(count) = name.range {
            // Compilers use about as many registers as they declare, and each becomes a
            // variable at its first use: room for them up front saves growing (copying) the
            // list, whose entries are large, a dozen times per function. Capped like the
            // scope's table, so that a huge declaration of unused registers costs nothing.
            context.variables.reserve(count.min(4096) as usize);
            if let Err(first) = context.scopes.declare_range(variable, count) {
                context.report(
                    Diagnostic::error(
                        Code::DuplicateDeclaration,
                        format!("`{}<N>` is declared twice in this scope", name.name.node),
                    )
                    .with_primary(name.span, "declared again here")
                    .with_secondary(first, "first declared here"),
                );
            }
            continue;
        }
        if let Err(existing) = context.scopes.declare(variable, &mut context.variables) {
            let first = context.variable(existing).span;
            context.report(
                Diagnostic::error(
                    Code::DuplicateDeclaration,
                    format!("`{}` is declared twice in this scope", name.name.node),
                )
                .with_primary(name.span, "declared again here")
                .with_secondary(first, "first declared here"),
            );
        }
    }
}

/// Checks an instruction and appends it to `statements` when it has no errors. Built in place:
/// a checked instruction is over 200 bytes, and returning it through two `Option`s copied it
/// three times.
fn check_instruction(instruction: &ast::Instruction, context: &mut Context, statements: &mut Vec<ir::Statement>) {
    let Some(guard) = check_guard(instruction, context) else { return };
    if instruction.opcode.node == "wmma" {
        // One `wmma` may become several instructions, each under the same guard.
        let Some(decoded) = decode::decode_warp_matrix(context, instruction) else { return };
        for decoded in decoded {
            statements.push(ir::Statement::Instruction(GuardedInstruction {
                guard,
                instruction: decoded,
                spelling: spelling_span(instruction),
                span: instruction_span(instruction),
            }));
        }
        return;
    }
    let Some(decoded) = decode::decode(context, instruction) else { return };
    if matches!(decoded, ir::Instruction::Call { .. }) {
        context.call_statements.push(statements.len() as u32);
    }
    context.stores_to_parameters |= matches!(
        decoded,
        ir::Instruction::Store { state_space: StateSpace::Param, .. }
            | ir::Instruction::StoreVector { state_space: StateSpace::Param, .. }
    );
    statements.push(ir::Statement::Instruction(GuardedInstruction {
        guard,
        instruction: decoded,
        spelling: spelling_span(instruction),
        span: instruction_span(instruction),
    }));
}

/// The instruction's guard, checked: `Some(None)` for none, `None` when it has errors.
fn check_guard(instruction: &ast::Instruction, context: &mut Context) -> Option<Option<Guard>> {
    let guard = match &instruction.guard {
        None => None,
        Some(guard) => {
            if missing_predicate(guard, context) {
                let at = Span { start: guard.span.start, end: guard.span.start + 1 };
                context.report(
                    Diagnostic::error(Code::SyntaxError, "`@` is not followed by a predicate")
                        .with_primary(at, "expected a predicate register after `@`")
                        .with_secondary(
                            guard.predicate.span,
                            format!("`{}` is an instruction, not a predicate", guard.predicate.node),
                        )
                        .with_help(format!(
                            "write `@%p {} ...` with a `.pred` register, or remove the `@`",
                            guard.predicate.node
                        )),
                );
                return None;
            }
            let predicate =
                context.resolve_used_as(&guard.predicate.node, guard.predicate.span, Some(ScalarType::Pred));
            let predicate = predicate.and_then(|id| {
                let variable = context.variable(id);
                if variable.ty == ScalarType::Pred && variable.state_space == StateSpace::Reg {
                    // Always a function's register: module scope declares none.
                    if let VariableId::Local(index) = id {
                        return Some(index);
                    }
                }
                let declared = variable.span;
                let ty = variable.ty;
                context.report(
                    Diagnostic::error(
                        Code::OperandType,
                        format!("the guard `{}` is not a predicate", guard.predicate.node),
                    )
                    .with_primary(guard.predicate.span, format!("`{ty}`, expected `.pred`"))
                    .with_secondary(declared, "declared here"),
                );
                None
            });
            Some(Guard { predicate: predicate?, negated: guard.negated })
        }
    };
    Some(guard)
}

/// `@ bra L;` reads as the guard `@bra` on an instruction `L`: a guard named after an opcode
/// and declared nowhere is a missing predicate, not an undeclared one.
fn missing_predicate(guard: &ast::Guard, context: &mut Context) -> bool {
    let name = guard.predicate.node.as_str();
    decode::opcodes::is_ptx_opcode(name) && context.scopes.lookup(name, &mut context.variables).is_none()
}

/// The instruction's opcode with its modifiers, as written: `ld.global.nc.b32`, for the
/// checker's own diagnostics. Most fit in a `Word` inline, so they are built on the stack.
pub(super) fn spelling(instruction: &ast::Instruction) -> Word {
    let mut buffer = [0u8; 64];
    let mut written = 0;
    let mut fits = true;
    let mut append = |part: &[u8]| {
        // Byte by byte: the parts are a few bytes long, too short to pay for a call to `memcpy`.
        for byte in part {
            match buffer.get_mut(written) {
                Some(slot) => *slot = *byte,
                None => fits = false,
            }
            written += 1;
        }
    };
    append(instruction.opcode.node.as_bytes());
    for modifier in &instruction.modifiers {
        append(b".");
        append(modifier.node.as_bytes());
    }
    if !fits {
        let mut text = String::from(instruction.opcode.node.as_str());
        for modifier in &instruction.modifiers {
            text.push('.');
            text.push_str(&modifier.node);
        }
        return Word::from(text);
    }
    // SAFETY: the bytes are whole `str`s and `.`s, joined, so they are UTF-8. (Checking it
    // again cost a tenth of building the spelling of every instruction.)
    Word::new(unsafe { std::str::from_utf8_unchecked(&buffer[..written]) })
}

/// Where the opcode and its modifiers are written: the checked instruction's spelling, which
/// diagnostics read back from the source (`ir::instruction_spelling`), and what gating labels.
pub(super) fn spelling_span(instruction: &ast::Instruction) -> Span {
    let end = instruction.modifiers.last().map_or(instruction.opcode.span.end, |modifier| modifier.span.end);
    Span { start: instruction.opcode.span.start, end }
}

/// The instruction without its guard, which is where diagnostics about it point.
fn instruction_span(instruction: &ast::Instruction) -> Span {
    Span { start: instruction.opcode.span.start, end: instruction.span.end }
}
