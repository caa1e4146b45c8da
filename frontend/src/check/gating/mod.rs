//! Version and target gating: every instruction form needs the PTX ISA version that introduced
//! it and the `sm_` target that has it (`requirements.rs`), and some forms are deprecated
//! (`deprecations.rs`); a `.b128` declaration is gated apart from the instructions
//! (`wide_type.rs`). A form newer than the module's `.version` is E0301, one beyond its
//! `.target` is E0302, each with a secondary label on the directive; a deprecated form is W0001.
//!
//! The tables are filtered once per module down to the rows this module's header can fail, so a
//! module that declares a recent version and target walks its instructions against an empty
//! (or nearly empty) table.

mod deprecations;
mod requirements;
mod targets;
mod wide_type;

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::IsaVersion;
use crate::span::Span;
use crate::syntax::ast::{self, Directive, OperandKind, Statement};

use super::directives::Header;
use super::function::{spelling, spelling_span};
use super::name_map::{short_key, NameMap};
use deprecations::{DeprecatedInstruction, DEPRECATED_DIRECTIVES, DEPRECATED_INSTRUCTIONS};
use requirements::{Operands, Requirement, REQUIREMENTS};
use wide_type::WideTypeGate;

/// Reports every instruction of the module that its `.version` or `.target` does not allow, and
/// every deprecated form; with `compile_sm`, also every instruction that the architecture it is
/// compiled for (`sm_NN`, a driver's `--arch`) does not have. The module-wide checks run here;
/// each function is gated by [`ModuleGate::check_through`], in directive order, which the
/// checker calls just before it checks each body, while that body is still in the cache.
pub fn check_module<'header>(
    module: &ast::Module,
    header: &'header Header,
    compile_sm: Option<u32>,
    diagnostics: &mut Vec<Diagnostic>,
) -> ModuleGate<'header> {
    targets::check_header(header, diagnostics);
    check_address_size(module, header, diagnostics);
    let gate = Gate::new(header, compile_sm);
    if gate.wide_type().fails() {
        wide_type::check_module_variables(module, gate.wide_type(), diagnostics);
    }
    ModuleGate { gate, gated: 0 }
}

/// The functions of a module still to be gated: those from directive `gated` on.
pub struct ModuleGate<'header> {
    gate: Gate<'header>,
    gated: usize,
}

impl ModuleGate<'_> {
    /// Gates every function among the directives before `end` that is not gated yet, in
    /// directive order, so that the diagnostics come in the order of one pass over the module.
    pub fn check_through(&mut self, module: &ast::Module, end: usize, diagnostics: &mut Vec<Diagnostic>) {
        let end = end.min(module.directives.len());
        for directive in module.directives.get(self.gated..end).unwrap_or_default() {
            let Directive::Function(function) = directive else { continue };
            self.gate.check_function(function, diagnostics);
        }
        self.gated = self.gated.max(end);
    }
}

/// The rows of the tables that can fail for one module's header, by opcode. Every instruction
/// of the module is looked up in it: for a recent module it holds the deprecated `shfl` and
/// `vote` and the opcodes of newer forms (a few dozen), so a hash beats a search by comparing
/// names.
struct Gate<'header> {
    header: &'header Header,
    /// The architecture compiled for, when it is older than the module's `.target`.
    compile_sm: Option<u32>,
    by_opcode: NameMap<&'static str, Rows>,
    /// `by_opcode` by the [`short_key`] of each opcode of up to 7 bytes (nearly all): hashing
    /// one number and comparing it, rather than a text, for every instruction of the module.
    by_short_opcode: NameMap<u64, Rows>,
    /// One bit per opcode of `by_opcode`, from its length and first byte: most instructions'
    /// opcodes have none of these bits and are passed without hashing.
    opcode_sketch: u64,
}

#[derive(Default)]
struct Rows {
    requirements: Vec<Row>,
    deprecations: Vec<&'static DeprecatedInstruction>,
}

/// A requirement with the [`name_sketch`] bits of each of its modifier groups, OR-ed: a row
/// whose group has none of the instruction's modifier bits cannot apply, and is passed without
/// comparing texts (`ld` and `st` are in every recent module's table, for the rows of forms
/// newer than it, and real code is full of them).
struct Row {
    requirement: &'static Requirement,
    group_sketches: Vec<u64>,
}

impl Row {
    fn new(requirement: &'static Requirement) -> Row {
        let group_sketch = |group: &[&str]| {
            group.iter().fold(0, |bits, pattern| {
                // `::cta` matches the end of a modifier, whose first byte and length it does not tell.
                if pattern.starts_with("::") {
                    u64::MAX
                } else {
                    bits | name_sketch(pattern)
                }
            })
        };
        Row { requirement, group_sketches: requirement.modifiers.iter().map(|group| group_sketch(group)).collect() }
    }

    /// False when some modifier group of the row has no modifier of the instruction (whose
    /// modifiers' sketch bits are `modifier_sketch`); true when it may apply.
    fn may_apply(&self, modifier_sketch: u64) -> bool {
        self.group_sketches.iter().all(|group| group & modifier_sketch != 0)
    }
}

impl<'header> Gate<'header> {
    fn check_function(&self, function: &ast::Function, diagnostics: &mut Vec<Diagnostic>) {
        self.check_attributes(function, diagnostics);
        if self.wide_type().fails() {
            wide_type::check_function(function, self.wide_type(), diagnostics);
        }
        if let Some(body) = &function.body {
            if !self.by_opcode.is_empty() || !self.by_short_opcode.is_empty() {
                self.check_block(body, diagnostics);
            }
        }
    }

    fn wide_type(&self) -> WideTypeGate<'header> {
        WideTypeGate { header: self.header, compile_sm: self.compile_sm }
    }

    fn new(header: &'header Header, compile_sm: Option<u32>) -> Gate<'header> {
        // Only an architecture below the module's `.target` can fail what the target allows.
        let compile_sm = compile_sm.filter(|&compiled| header.sm.is_none_or(|declared| compiled < declared));
        let below_compiled = |requirement: &Requirement| matches!((requirement.sm, compile_sm), (Some(needed), Some(compiled)) if needed > compiled);
        let mut by_opcode: NameMap<&'static str, Rows> = NameMap::default();
        for requirement in
            REQUIREMENTS.iter().filter(|requirement| fails(requirement, header) || below_compiled(requirement))
        {
            for opcode in requirement.opcodes {
                by_opcode.entry(opcode).or_default().requirements.push(Row::new(requirement));
            }
        }
        for deprecation in DEPRECATED_INSTRUCTIONS.iter().filter(|deprecation| header.version >= deprecation.since) {
            by_opcode.entry(deprecation.opcode).or_default().deprecations.push(deprecation);
        }
        let opcode_sketch = by_opcode.keys().fold(0, |bits, opcode| bits | name_sketch(opcode));
        let short_opcodes: Vec<(u64, &'static str)> =
            by_opcode.keys().filter_map(|opcode| Some((short_key(opcode)?, *opcode))).collect();
        let mut by_short_opcode = NameMap::default();
        for (key, opcode) in short_opcodes {
            if let Some(rows) = by_opcode.remove(opcode) {
                by_short_opcode.insert(key, rows);
            }
        }
        Gate { header, compile_sm, by_opcode, by_short_opcode, opcode_sketch }
    }

    #[inline]
    fn rows(&self, opcode: &str) -> Option<&Rows> {
        if self.opcode_sketch & name_sketch(opcode) == 0 {
            return None;
        }
        match short_key(opcode) {
            Some(key) => self.by_short_opcode.get(&key),
            None => self.by_opcode.get(opcode),
        }
    }

    fn check_block(&self, block: &ast::Block, diagnostics: &mut Vec<Diagnostic>) {
        for statement in &block.statements {
            match statement {
                // The opcode is tested here rather than in the call: nearly every instruction of
                // a recent module has no rows, and is passed without one.
                Statement::Instruction(instruction) => {
                    if let Some(rows) = self.rows(instruction.opcode.node.as_str()) {
                        self.check_instruction(rows, instruction, diagnostics);
                    }
                }
                Statement::Block(nested) => self.check_block(nested, diagnostics),
                _ => {}
            }
        }
    }

    /// Reports what `rows`, those of the instruction's opcode, find in it.
    #[inline(never)]
    fn check_instruction(&self, rows: &Rows, instruction: &ast::Instruction, diagnostics: &mut Vec<Diagnostic>) {
        // One pass over the rows that apply, keeping the newest of each kind (the last of equals,
        // as `max_by_key` would): `applies` compares modifiers, the costly part.
        let mut newest_version = None;
        let mut newest_target = None;
        let mut newest_compiled = None;
        // Forms that the `.target` already fails are reported as such, not again for `compile_sm`.
        let allowed_by_target = |sm: u32| self.header.sm.is_none_or(|declared| sm <= declared);
        let modifier_sketch = instruction.modifiers.iter().fold(0, |bits, modifier| bits | name_sketch(&modifier.node));
        let applying = rows
            .requirements
            .iter()
            .filter(|row| row.may_apply(modifier_sketch) && applies(row.requirement, instruction))
            .map(|row| &row.requirement);
        for requirement in applying {
            if let Some(version) = requirement.version.filter(|version| *version > self.header.version) {
                if newest_version.is_none_or(|(newest, _)| version >= newest) {
                    newest_version = Some((version, *requirement));
                }
            }
            let Some(sm) = requirement.sm else { continue };
            if self.header.sm.is_some_and(|declared| sm > declared)
                && newest_target.is_none_or(|(newest, _)| sm >= newest)
            {
                newest_target = Some((sm, *requirement));
            }
            if self.compile_sm.is_some_and(|compiled| sm > compiled && allowed_by_target(sm))
                && newest_compiled.is_none_or(|(newest, _)| sm >= newest)
            {
                newest_compiled = Some((sm, *requirement));
            }
        }
        let span = spelling_span(instruction);
        if let Some((version, requirement)) = newest_version {
            diagnostics.push(self.version_error(instruction, span, version, requirement));
        }
        if let (Some((sm, requirement)), Some(declared)) = (newest_target, self.header.sm) {
            diagnostics.push(self.target_error(instruction, span, sm, declared, requirement));
        }
        if let (Some((sm, requirement)), Some(compiled)) = (newest_compiled, self.compile_sm) {
            diagnostics.push(self.compiled_architecture_error(instruction, span, sm, compiled, requirement));
        }
        for deprecation in &rows.deprecations {
            if !instruction.modifiers.iter().any(|modifier| modifier.node == deprecation.missing) {
                diagnostics.push(self.deprecation_warning(span, deprecation));
            }
        }
    }

    fn version_error(
        &self,
        instruction: &ast::Instruction,
        span: Span,
        version: IsaVersion,
        requirement: &Requirement,
    ) -> Diagnostic {
        let declared = self.header.version;
        let mut diagnostic = Diagnostic::error(
            Code::NeedsNewerVersion,
            format!("`{}` needs PTX ISA {version} or later", spelling(instruction)),
        )
        .with_primary(span, format!("{} was introduced in PTX ISA {version}", requirement.form));
        if let Some(directive) = self.header.version_span {
            diagnostic = diagnostic.with_secondary(directive, format!("the module declares PTX ISA {declared}"));
        }
        diagnostic
            .with_note(format!("PTX ISA notes of section {}", requirement.section))
            .with_help(format!("raise `.version` to {version} or later"))
    }

    fn target_error(
        &self,
        instruction: &ast::Instruction,
        span: Span,
        sm: u32,
        declared: u32,
        requirement: &Requirement,
    ) -> Diagnostic {
        let mut diagnostic =
            Diagnostic::error(Code::NeedsNewerTarget, format!("`{}` needs sm_{sm} or later", spelling(instruction)))
                .with_primary(span, format!("{} requires sm_{sm} or higher", requirement.form));
        if let Some(directive) = self.header.target_span {
            diagnostic = diagnostic.with_secondary(directive, format!("the module targets sm_{declared}"));
        }
        diagnostic
            .with_note(format!("Target ISA notes of section {}", requirement.section))
            .with_help(format!("raise `.target` to sm_{sm} or later"))
    }

    fn compiled_architecture_error(
        &self,
        instruction: &ast::Instruction,
        span: Span,
        sm: u32,
        compiled: u32,
        requirement: &Requirement,
    ) -> Diagnostic {
        Diagnostic::error(
            Code::NeedsNewerTarget,
            format!("`{}` needs sm_{sm} or later, but the module is compiled for sm_{compiled}", spelling(instruction)),
        )
        .with_primary(span, format!("{} requires sm_{sm} or higher", requirement.form))
        .with_note(format!("Target ISA notes of section {}", requirement.section))
        .with_help(format!(
            "compile for sm_{sm} or later (`--arch sm_{sm}`), or leave `--arch` out to use the module's `.target`"
        ))
    }

    fn deprecation_warning(&self, span: Span, deprecation: &DeprecatedInstruction) -> Diagnostic {
        let mut diagnostic = Diagnostic::warning(
            Code::Deprecated,
            format!("`{}` without `.{}` is deprecated", deprecation.opcode, deprecation.missing),
        )
        .with_primary(span, format!("deprecated since PTX ISA {}", deprecation.since));
        if let (Some((version, sm)), Some(declared)) = (deprecation.removed, self.header.sm) {
            if self.header.version >= version && declared >= sm {
                if let Some(directive) = self.header.target_span {
                    diagnostic = diagnostic.with_secondary(directive, format!("the module targets sm_{declared}"));
                }
                diagnostic = diagnostic.with_note(format!(
                    "PTX ISA {version} removed it for sm_{sm} and later (ptxas rejects it there); \
                     ptxr still reads it, with every lane of the warp taking part"
                ));
            }
        }
        diagnostic.with_help(format!(
            "use `{}` with a member mask (section {})",
            deprecation.replacement, deprecation.section
        ))
    }

    fn check_attributes(&self, function: &ast::Function, diagnostics: &mut Vec<Diagnostic>) {
        for attribute in &function.attributes {
            let Some(deprecated) = DEPRECATED_DIRECTIVES.iter().find(|directive| directive.name == attribute.name.node)
            else {
                continue;
            };
            diagnostics.push(
                Diagnostic::warning(Code::Deprecated, format!("`.{}` is deprecated", deprecated.name))
                    .with_primary(attribute.name.span, "deprecated directive")
                    .with_help(format!("use `{}` instead (section {})", deprecated.replacement, deprecated.section)),
            );
        }
    }
}

/// `.address_size` was introduced in PTX ISA 2.3 (section 11.1.3's PTX ISA notes; ptxas:
/// "Feature '.address_size directive' requires PTX ISA .version 2.3 or later").
fn check_address_size(module: &ast::Module, header: &Header, diagnostics: &mut Vec<Diagnostic>) {
    const INTRODUCED: IsaVersion = IsaVersion { major: 2, minor: 3 };
    let Some(version_span) = header.version_span else { return };
    if header.version >= INTRODUCED {
        return;
    }
    for directive in &module.directives {
        let Directive::AddressSize { span, .. } = directive else { continue };
        diagnostics.push(
            Diagnostic::error(Code::NeedsNewerVersion, "`.address_size` needs PTX ISA 2.3 or later")
                .with_primary(*span, format!("`.address_size` was introduced in PTX ISA {INTRODUCED}"))
                .with_secondary(version_span, format!("the module declares PTX ISA {}", header.version))
                .with_note("PTX ISA notes of section 11.1.3")
                .with_help("raise `.version` to 2.3 or later, or leave `.address_size` out (32-bit addresses)"),
        );
    }
}

/// True when the module's header does not reach the row's version or target.
fn fails(requirement: &Requirement, header: &Header) -> bool {
    let version_fails = requirement.version.is_some_and(|version| version > header.version);
    let target_fails = match (requirement.sm, header.sm) {
        (Some(needed), Some(declared)) => needed > declared,
        _ => false,
    };
    version_fails || target_fails
}

/// True when every modifier group of the row is matched by one of the instruction's modifiers,
/// and the operands have the row's shape.
fn applies(requirement: &Requirement, instruction: &ast::Instruction) -> bool {
    let modifiers = &instruction.modifiers;
    let modifiers_match = requirement
        .modifiers
        .iter()
        .all(|group| group.iter().any(|pattern| modifiers.iter().any(|modifier| matches(pattern, &modifier.node))));
    modifiers_match
        && match requirement.operands {
            Operands::Any => true,
            Operands::IndirectCall => is_indirect_call(instruction),
            Operands::CompletingCount => {
                instruction.operands.len() == 3 && !modifiers.iter().any(|modifier| modifier.node == "noComplete")
            }
            Operands::ThreeSources => instruction.operands.len() == 4,
        }
}

/// `call {(results),} target{, (arguments)}, prototype`: a direct call ends with its argument
/// list or its callee, an indirect one with the label of a `.callprototype` or `.calltargets`
/// after the target (`decode/call.rs` reads the same shapes).
fn is_indirect_call(instruction: &ast::Instruction) -> bool {
    let operands = &instruction.operands;
    let callee = usize::from(operands.first().is_some_and(|operand| matches!(operand.kind, OperandKind::List(_))));
    operands.len() > callee + 1
        && operands.last().is_some_and(|operand| matches!(operand.kind, OperandKind::Name { member: None, .. }))
}

/// One of 64 bits for an opcode or a modifier, from its length and first byte: equal names have
/// equal bits.
fn name_sketch(name: &str) -> u64 {
    let first = name.as_bytes().first().copied().unwrap_or(0);
    1 << ((u32::from(first) * 7 + name.len() as u32) % 64)
}

/// `::cta` matches any modifier ending in it (`shared::cta`); other patterns match exactly.
fn matches(pattern: &str, modifier: &str) -> bool {
    if pattern.starts_with("::") {
        modifier.ends_with(pattern)
    } else {
        modifier == pattern
    }
}

#[cfg(test)]
mod tests;
