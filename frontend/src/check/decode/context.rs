//! What a decoder needs from the function being checked: name resolution, operand checks
//! against the instruction type, and a place to report diagnostics.

use std::collections::HashMap;

use crate::check::name_map::NameMap;

use crate::check::scope::Scopes;
use crate::check::types::{register_fits, SizeRule};

use super::vector;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Address, AddressBase, Destination, LabelId, OffsetValue, Operand, Value, Variable, VariableId};
use crate::span::{Span, Spanned};
use crate::syntax::ast::{self, OperandKind, Word};
use crate::vocabulary::{ScalarKind, ScalarType, SpecialRegister, StateSpace};

/// A special register as written: `%tid.x`, or `%clock` without a member.
fn spelled_register(name: &str, member: Option<&str>) -> String {
    match member {
        Some(member) => format!("{name}.{member}"),
        None => name.to_string(),
    }
}

pub struct Context<'a, 'module> {
    pub scopes: &'a mut Scopes<'module>,
    pub variables: Vec<Variable>,
    pub globals: &'module [Variable],
    pub labels: &'a mut NameMap<Word, LabelId>,
    /// The `.branchtargets` lists, by the label that names each (resolved where `brx.idx` uses
    /// them, since they may name labels further down).
    pub branch_targets: HashMap<LabelId, Vec<Spanned<Word>>>,
    pub functions: &'module NameMap<String, crate::ir::FunctionId>,
    pub diagnostics: &'a mut Vec<Diagnostic>,
    /// 32 or 64, from `.address_size`.
    pub address_size: u32,
    /// The module's `.version` and `sm_` target, for the few rules that depend on them
    /// (`mad.f32` without rounding); gating proper is `check::gating`.
    pub version: crate::ir::IsaVersion,
    pub sm: Option<u32>,
    /// Whether an operand so far was a warp special register, or a `wmma.load`/`wmma.store` read
    /// `%laneid` (`ir::Function::reads_warp_registers`).
    pub reads_warp_registers: bool,
    /// The newest ISA version of a special register read so far (`ir::Function::special_register_isa`).
    pub special_register_isa: Option<(u32, u32)>,
    /// Every special register read so far (`ir::Function::special_registers`).
    pub special_registers: std::collections::BTreeSet<SpecialRegister>,
    /// Whether a `st.param` was checked so far: only then does a function without return
    /// parameters need `check::parameters::check_parameter_access`'s walk over its body.
    pub stores_to_parameters: bool,
    /// The indices in the body of the `call`s checked so far, so that `check::calls` reads
    /// those statements alone rather than every statement of the module again.
    pub call_statements: Vec<u32>,
}

impl Context<'_, '_> {
    pub fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    pub fn variable(&self, id: VariableId) -> &Variable {
        match id {
            VariableId::Global(index) => &self.globals[index as usize],
            VariableId::Local(index) => &self.variables[index as usize],
        }
    }

    /// The integer type of an address in this module: `.u32` or `.u64`, from `.address_size`.
    pub fn address_type(&self) -> ScalarType {
        if self.address_size == 32 {
            ScalarType::U32
        } else {
            ScalarType::U64
        }
    }

    /// Resolves a declared name, reporting it when unknown.
    pub fn resolve(&mut self, name: &str, span: Span) -> Option<VariableId> {
        self.resolve_used_as(name, span, None)
    }

    /// [`Context::resolve`] for a name used as a `used_as` operand, so that the help for an
    /// undeclared predicate suggests a `.pred` register.
    pub fn resolve_used_as(&mut self, name: &str, span: Span, used_as: Option<ScalarType>) -> Option<VariableId> {
        if let Some(id) = self.scopes.lookup(name, &mut self.variables) {
            return Some(id);
        }
        let mut diagnostic = Diagnostic::error(Code::UndeclaredName, format!("`{name}` is not declared"))
            .with_primary(span, "undeclared name");
        if name.starts_with('%') {
            let declared_as = if used_as == Some(ScalarType::Pred) { ".pred" } else { ".b32" };
            diagnostic = diagnostic.with_help(format!("declare it, for example `.reg {declared_as} {name};`"));
        }
        self.report(diagnostic);
        None
    }

    /// Resolves every name inside the operands of an instruction that is not decoded further,
    /// so that misspelt registers are still reported. Labels, functions and special registers
    /// are accepted as they are.
    pub fn resolve_names(&mut self, operands: &[ast::Operand]) {
        for operand in operands {
            match &operand.kind {
                OperandKind::Name { name, .. } => {
                    let known = self.labels.contains_key(name.as_str())
                        || self.functions.contains_key(name.as_str())
                        || SpecialRegister::is_reserved_name(name)
                        || name == "WARP_SZ";
                    if !known {
                        self.resolve(name, operand.span);
                    }
                }
                OperandKind::Address { base: Some(base), .. } => {
                    if !self.functions.contains_key(base.node.as_str()) {
                        self.resolve(&base.node, base.span);
                    }
                }
                OperandKind::Vector(items) | OperandKind::List(items) | OperandKind::Bracketed(items) => {
                    self.resolve_names(items)
                }
                OperandKind::Not(inner) | OperandKind::Negate(inner) => self.resolve_names(std::slice::from_ref(inner)),
                OperandKind::PredicatePair(first, second) => {
                    self.resolve_names(std::slice::from_ref(first));
                    self.resolve_names(std::slice::from_ref(second));
                }
                OperandKind::Address { base: None, .. }
                | OperandKind::Integer(_)
                | OperandKind::Float { .. }
                | OperandKind::Sink => {}
            }
        }
    }

    /// Section 4.5.1: integer constants are 64-bit and "converted to the size of the
    /// instruction type", so an immediate outside both the signed and the unsigned range of a
    /// narrower integer or bit type is legal but loses its high bits (ptxas accepts it too).
    /// That is almost always a mistake, so it is a warning.
    fn warn_if_truncated(&mut self, value: i128, ty: ScalarType, span: Span) {
        let bits = ty.bits();
        let integer = matches!(ty.kind(), ScalarKind::Signed | ScalarKind::Unsigned | ScalarKind::Bit);
        if !integer || bits >= 64 || bits == 0 {
            return;
        }
        let (lowest, highest) = (-(1i128 << (bits - 1)), (1i128 << bits) - 1);
        // A 64-bit constant reads as `.s64` or `.u64`: `0xffffffffffffffffU` is also -1.
        let as_signed = if value > i64::MAX as i128 { value - (1i128 << 64) } else { value };
        if (lowest..=highest).contains(&value) || (lowest..=highest).contains(&as_signed) {
            return;
        }
        let kept = value & ((1i128 << bits) - 1);
        self.report(
            Diagnostic::warning(Code::TruncatedImmediate, format!("the immediate {value} does not fit `{ty}`"))
                .with_primary(span, format!("only its low {bits} bits are used: {kept} ({kept:#x})"))
                .with_help(format!("`{ty}` holds {lowest} to {highest}")),
        );
    }

    /// Checks that the instruction has exactly `count` operands.
    pub fn expect_operand_count(&mut self, instruction: &ast::Instruction, count: usize) -> Option<()> {
        let given = instruction.operands.len();
        if given == count {
            return Some(());
        }
        let span = if given > count {
            instruction.operands[count].span.to(instruction.operands[given - 1].span)
        } else {
            instruction.span
        };
        self.report(
            Diagnostic::error(
                Code::OperandCount,
                format!("`{}` takes {count} operands, but {given} were given", instruction.opcode.node),
            )
            .with_primary(span, if given > count { "unexpected operands" } else { "operands missing" }),
        );
        None
    }

    /// A register that the instruction writes with type `ty`, or one element of a vector
    /// register (`%v.x`).
    pub fn destination(&mut self, operand: &ast::Operand, ty: ScalarType, rule: SizeRule) -> Option<Destination> {
        let OperandKind::Name { name, member } = &operand.kind else {
            self.report(
                Diagnostic::error(Code::OperandKind, "the destination must be a register")
                    .with_primary(operand.span, "not a register"),
            );
            return None;
        };
        // Looked up first: nearly every destination is a declared register, which is then
        // no special register, without comparing its name with theirs.
        let found = self.scopes.lookup(name, &mut self.variables);
        if found.is_none() && SpecialRegister::is_reserved_name(name) {
            let spelled = spelled_register(name, member.as_deref());
            self.report(
                Diagnostic::error(Code::OperandKind, format!("special register `{spelled}` cannot be written"))
                    .with_primary(operand.span, "a read-only special register as the destination")
                    .with_note("section 10: special registers are predefined and read-only"),
            );
            return None;
        }
        let register = match found {
            Some(register) => register,
            None => self.resolve_used_as(name, operand.span, Some(ty))?,
        };
        let member = match member {
            Some(member) => Some(self.member_index(register, member, operand.span)?),
            None => None,
        };
        // A member index is below a vector's 8 lanes at most.
        let member = member.and_then(|index| u8::try_from(index).ok());
        self.check_register(register, operand.span, ty, rule, "destination", member.is_some())?;
        Some(Destination { register, member, span: operand.span })
    }

    /// The element index of `%v.member` in the vector register `register`.
    fn member_index(&mut self, register: VariableId, member: &str, span: Span) -> Option<u32> {
        let variable = self.variable(register);
        let index = vector::member_index(member);
        match (variable.vector, index) {
            (Some(lanes), Some(index)) if index < lanes && variable.state_space == StateSpace::Reg => Some(index),
            _ => {
                let (name, declared) = (variable.name.clone(), variable.span);
                let message = match variable.vector {
                    Some(lanes) => format!("`{name}` is a `.v{lanes}` vector without a member `.{member}`"),
                    None => format!("`{name}` is not a vector register, so it has no member `.{member}`"),
                };
                self.report(
                    Diagnostic::error(Code::OperandKind, message)
                        .with_primary(span, "no such vector member")
                        .with_secondary(declared, "declared here")
                        .with_note("vector members are `.x`, `.y`, `.z`, `.w` (or `.r`, `.g`, `.b`, `.a`)"),
                );
                None
            }
        }
    }

    /// Reports a special register newer than the module's `.version` or `.target` (ISA 7.6's
    /// `%reserved_smem_offset_*` on sm_80, ISA 7.8's cluster registers on sm_90), as ptxas does.
    fn gate_special_register(&mut self, register: SpecialRegister, span: Span) {
        let Some((major, minor)) = register.isa_version() else { return };
        let needed = crate::ir::IsaVersion { major, minor };
        if self.version < needed {
            self.report(
                Diagnostic::error(Code::NeedsNewerVersion, format!("`{register}` needs PTX ISA {needed} or later"))
                    .with_primary(span, format!("the module declares PTX ISA {}", self.version))
                    .with_note("chapter 10: the special register's PTX ISA notes")
                    .with_help(format!("raise `.version` to {needed} or later")),
            );
        }
        if let (Some(needed), Some(declared)) = (register.target_sm(), self.sm) {
            if declared < needed {
                self.report(
                    Diagnostic::error(Code::NeedsNewerTarget, format!("`{register}` needs sm_{needed} or later"))
                        .with_primary(span, format!("the module targets sm_{declared}"))
                        .with_note("chapter 10: the special register's Target ISA notes")
                        .with_help(format!("raise `.target` to sm_{needed} or later")),
                );
            }
        }
    }

    /// A value that the instruction reads with type `ty`: a register, an immediate, a special
    /// register or the address of a variable.
    pub fn source(&mut self, operand: &ast::Operand, ty: ScalarType, rule: SizeRule) -> Option<Operand> {
        let value = match &operand.kind {
            OperandKind::Name { name, member: None } if name == "WARP_SZ" => Value::integer(32),
            OperandKind::Name { name, member } => {
                // Nearly every name is a compiler's register (`%r42`), which this tells from a
                // special register by two bytes, so that neither test below compares it with
                // every special register's name.
                let may_be_special = SpecialRegister::may_be_reserved_name(name);
                let special = if may_be_special { SpecialRegister::from_ptx(name, member.as_deref()) } else { None };
                if let Some(register) = special {
                    // ptxas reads a special register at its own width only, except the CTA
                    // geometry registers, which were 16 bits in ISA 1.x: `mov.u16 %rh1,
                    // %ctaid.x` (the one place `mov` passes `AllowWider`) still assembles.
                    let legacy_sixteen_bits = rule == SizeRule::AllowWider
                        && ty.bits() == 16
                        && matches!(
                            register,
                            SpecialRegister::ThreadId(_)
                                | SpecialRegister::ThreadCount(_)
                                | SpecialRegister::CtaId(_)
                                | SpecialRegister::CtaCount(_)
                        );
                    let fits = if register.is_predicate() {
                        ty.kind() == ScalarKind::Pred
                    } else {
                        ty.kind() != ScalarKind::Pred && (ty.bits() == register.bits() || legacy_sixteen_bits)
                    };
                    if !fits {
                        let width = if register.is_predicate() {
                            "a predicate".to_string()
                        } else {
                            format!("{} bits wide", register.bits())
                        };
                        self.report(
                            Diagnostic::error(Code::OperandType, format!("special register `{register}` is {width}"))
                                .with_primary(operand.span, format!("does not fit `{ty}`")),
                        );
                        return None;
                    }
                    self.gate_special_register(register, operand.span);
                    self.reads_warp_registers |= register.is_per_warp();
                    self.special_register_isa = self.special_register_isa.max(register.isa_version());
                    self.special_registers.insert(register);
                    Value::SpecialRegister(register)
                } else if may_be_special && SpecialRegister::is_reserved_name(name) {
                    // A register ptxr reads, spelled with the wrong members, is a mistake in
                    // the PTX (ptxas: "Argument vector size mismatch"), not a gap in ptxr.
                    // (`%tid.w` is valid, always 0, and not read by ptxr yet.)
                    let is_vector = SpecialRegister::from_ptx(name, Some("x")).is_some();
                    let diagnostic = if is_vector && member.as_deref().is_none_or(|member| member != "w") {
                        let message = match member {
                            Some(member) => format!("`{name}` has no member `.{member}`"),
                            None => format!("`{name}` is a vector and needs a member"),
                        };
                        Diagnostic::error(Code::OperandKind, message)
                            .with_primary(operand.span, format!("read `{name}.x`, `{name}.y` or `{name}.z`"))
                            .with_note(
                                "section 10: `%tid`, `%ntid`, `%ctaid`, `%nctaid` and the cluster registers `%clusterid`, `%nclusterid`, `%cluster_ctaid`, `%cluster_nctaid` have x, y and z members",
                            )
                    } else if SpecialRegister::from_ptx(name, None).is_some() {
                        Diagnostic::error(Code::OperandKind, format!("`{name}` has no members"))
                            .with_primary(operand.span, format!("read `{name}` itself"))
                    } else if name.starts_with("%envreg") || name.starts_with("%pm") {
                        // A numbered family outside its range is a mistake, not a gap in ptxr.
                        Diagnostic::error(Code::OperandKind, format!("`{name}` is not a special register"))
                            .with_primary(operand.span, "no register has this number")
                            .with_note("sections 10.25 to 10.27: `%envreg0`..`%envreg31`, `%pm0`..`%pm7`, `%pm0_64`..`%pm7_64`")
                    } else {
                        let spelled = spelled_register(name, member.as_deref());
                        Diagnostic::error(Code::Unsupported, format!("unsupported: special register `{spelled}`"))
                            .with_primary(operand.span, "ptxr does not read this special register yet")
                    };
                    self.report(diagnostic);
                    return None;
                } else if let Some(member) = member {
                    let register = self.resolve(name, operand.span)?;
                    let index = self.member_index(register, member, operand.span)?;
                    self.check_register(register, operand.span, ty, rule, "source", true)?;
                    Value::Member { register, index }
                } else {
                    let found = self.scopes.lookup(name, &mut self.variables);
                    if let Some(function) = self.function_named(found, name) {
                        if ty.bits() != self.address_size {
                            self.report(
                                Diagnostic::error(
                                    Code::OperandType,
                                    format!("the address of function `{name}` needs a {}-bit type", self.address_size),
                                )
                                .with_primary(operand.span, format!("used as `{ty}`")),
                            );
                            return None;
                        }
                        Value::FunctionAddress(function)
                    } else {
                        let id = match found {
                            Some(id) => id,
                            None => self.resolve_used_as(name, operand.span, Some(ty))?,
                        };
                        let variable = self.variable(id);
                        if variable.state_space == StateSpace::Reg {
                            self.check_register(id, operand.span, ty, rule, "source", false)?;
                            Value::Register(id)
                        } else {
                            // A variable name as an operand is its address (`mov.u64 %rd1, buffer;`).
                            if ty.bits() != self.address_size && !(ty.bits() == 32 || ty.bits() == 64) {
                                self.report(
                                    Diagnostic::error(
                                        Code::OperandType,
                                        format!("the address of `{name}` needs a 32- or 64-bit type"),
                                    )
                                    .with_primary(operand.span, format!("used as `{ty}`")),
                                );
                                return None;
                            }
                            Value::AddressOf(id)
                        }
                    }
                }
            }
            OperandKind::Integer(value) => {
                let value = value.get();
                // Section 4.5.3: an integer is a predicate constant, 0 false and any other
                // value true (Triton writes `mov.pred %p, -1;`).
                if ty.kind() == ScalarKind::Pred {
                    return Some(Operand { value: Value::integer(i128::from(value != 0)), span: operand.span });
                }
                if ty.is_float() {
                    // ptxas reads no integer as a float ("Arguments mismatch"): the literal must
                    // say which float it is (section 4.5.2).
                    self.report(
                        Diagnostic::error(Code::OperandType, "integer literal used with a floating-point type")
                            .with_primary(operand.span, format!("an integer where `{ty}` is expected"))
                            .with_help(format!(
                                "write a float literal, such as `{value}.0` or a hexadecimal `0f`/`0d` constant"
                            )),
                    );
                    return None;
                }
                self.warn_if_truncated(value, ty, operand.span);
                Value::integer(value)
            }
            OperandKind::Float { bits, double } => {
                if !ty.is_float() && ty.kind() != ScalarKind::Bit {
                    self.report(
                        Diagnostic::error(Code::OperandType, "float literal used with an integer type")
                            .with_primary(operand.span, format!("the instruction type is `{ty}`"))
                            .with_help("write the value as an integer, or use a float or bit type"),
                    );
                    return None;
                }
                Value::Float { bits: *bits, double: *double }
            }
            OperandKind::Address { base: Some(base), offset } if base.span.start == operand.span.start => {
                // `base+offset` without brackets: the base's value plus a constant.
                let base_operand =
                    ast::Operand { kind: OperandKind::Name { name: base.node.clone(), member: None }, span: base.span };
                let base = self.source(&base_operand, ty, rule)?;
                if !matches!(base.value, Value::Register(_) | Value::AddressOf(_))
                    || ty.is_float()
                    || ty.kind() == ScalarKind::Pred
                {
                    self.report(
                        Diagnostic::error(Code::OperandKind, "only an integer register or an address takes an offset")
                            .with_primary(operand.span, format!("not an integer `{ty}` value")),
                    );
                    return None;
                }
                Value::Offset(Box::new(OffsetValue { base: base.value, offset: *offset }))
            }
            _ => {
                self.report(
                    Diagnostic::error(Code::OperandKind, "expected a register or an immediate value")
                        .with_primary(operand.span, "not a value"),
                );
                return None;
            }
        };
        Some(Operand { value, span: operand.span })
    }

    /// A `[base+offset]` memory operand.
    pub fn address(&mut self, operand: &ast::Operand) -> Option<Address> {
        let OperandKind::Address { base, offset } = &operand.kind else {
            self.report(
                Diagnostic::error(Code::OperandKind, "expected a memory address such as `[%rd1]` or `[name+4]`")
                    .with_primary(operand.span, "not an address"),
            );
            return None;
        };
        let base = match base {
            None => AddressBase::Absolute,
            Some(name) => {
                let id = self.resolve(&name.node, name.span)?;
                let variable = self.variable(id);
                if variable.state_space == StateSpace::Reg {
                    // Section 6.4.1: addresses are integers; ptxas rejects a float register
                    // ("use integer or bit only") as it does a predicate or a narrow one.
                    if matches!(variable.ty.kind(), ScalarKind::Pred | ScalarKind::Float)
                        || variable.ty.bits() < 32
                        || variable.vector.is_some()
                    {
                        let declared = variable.span;
                        self.report(
                            Diagnostic::error(
                                Code::OperandType,
                                "an address register must be an integer or bit-size register of 32 or 64 bits",
                            )
                            .with_primary(name.span, format!("`{}` is `{}`", name.node, self.variable(id).ty))
                            .with_secondary(declared, "declared here"),
                        );
                        return None;
                    }
                    AddressBase::Register(id)
                } else {
                    AddressBase::Variable(id)
                }
            }
        };
        Some(Address { base, offset: *offset, span: operand.span })
    }

    /// Section 6.4.1: an instruction that names a state space addresses variables of that space
    /// only (`ld.local [g]` with `g` in `.global` is wrong; ptxas: "State space mismatch between
    /// instruction and address"); a generic instruction may address a variable of any space.
    pub fn check_address_space(&mut self, address: &Address, state_space: StateSpace, opcode: &str) -> Option<()> {
        let AddressBase::Variable(id) = address.base else { return Some(()) };
        self.check_variable_space(id, address.span, state_space, opcode)
    }

    /// [`Context::check_address_space`] for a variable's address given as a value
    /// (`cvta.shared.u64 %rd1, buffer;`, `buffer+4`).
    pub fn check_value_space(&mut self, value: &Operand, state_space: StateSpace, opcode: &str) -> Option<()> {
        let mut base = &value.value;
        while let Value::Offset(inner) = base {
            base = &inner.base;
        }
        let Value::AddressOf(id) = *base else { return Some(()) };
        self.check_variable_space(id, value.span, state_space, opcode)
    }

    fn check_variable_space(
        &mut self,
        id: VariableId,
        span: Span,
        state_space: StateSpace,
        opcode: &str,
    ) -> Option<()> {
        let variable = self.variable(id);
        if state_space == StateSpace::Generic || variable.state_space == state_space {
            return Some(());
        }
        let (name, declared_space, declared) = (variable.name.clone(), variable.state_space, variable.span);
        self.report(
            Diagnostic::error(
                Code::OperandKind,
                format!("`{opcode}{state_space}` cannot address `{name}`, a `{declared_space}` variable"),
            )
            .with_primary(span, format!("an address in `{declared_space}`, not `{state_space}`"))
            .with_secondary(declared, format!("`{name}` declared in `{declared_space}` here"))
            .with_help(format!("use `{opcode}{declared_space}`, or the generic `{opcode}` with a generic address")),
        );
        None
    }

    /// The function called `name`, unless a variable of that name hides it: `found` is what the
    /// scopes answered for `name`. An operand is nearly always a register, so the scopes are
    /// asked first and the functions only for a name they do not know.
    fn function_named(&self, found: Option<VariableId>, name: &str) -> Option<crate::ir::FunctionId> {
        match found {
            Some(_) => None,
            None => self.functions.get(name).copied(),
        }
    }

    /// A label operand of `bra`.
    pub fn label(&mut self, operand: &ast::Operand) -> Option<LabelId> {
        let OperandKind::Name { name, member: None } = &operand.kind else {
            self.report(
                Diagnostic::error(Code::OperandKind, "expected a label").with_primary(operand.span, "not a label"),
            );
            return None;
        };
        if let Some(label) = self.labels.get(name.as_str()) {
            return Some(*label);
        }
        self.report(
            Diagnostic::error(Code::UndefinedLabel, format!("label `{name}` is not defined in this function"))
                .with_primary(operand.span, "unknown label"),
        );
        None
    }

    /// Checks that `register` can be read or written as a `ty` operand (as the `role`), or a
    /// member of it when `is_member`. Inlined for the common case, a scalar register that fits;
    /// the rest, and the reports, are [`Context::check_register_fully`].
    #[inline]
    pub(super) fn check_register(
        &mut self,
        register: VariableId,
        span: Span,
        ty: ScalarType,
        rule: SizeRule,
        role: &str,
        is_member: bool,
    ) -> Option<()> {
        let variable = self.variable(register);
        let fits = variable.state_space == StateSpace::Reg
            && (variable.vector.is_none() || is_member)
            && variable.array_length.is_none()
            && register_fits(ty, variable.ty, rule);
        if fits {
            return Some(());
        }
        self.check_register_fully(register, span, ty, rule, role, is_member)
    }

    #[inline(never)]
    fn check_register_fully(
        &mut self,
        register: VariableId,
        span: Span,
        ty: ScalarType,
        rule: SizeRule,
        role: &str,
        is_member: bool,
    ) -> Option<()> {
        let variable = self.variable(register);
        if variable.state_space != StateSpace::Reg {
            let message = format!(
                "the {role} must be a register, but `{}` is a {} variable",
                variable.name, variable.state_space
            );
            let declared = variable.span;
            self.report(
                Diagnostic::error(Code::OperandKind, message)
                    .with_primary(span, "not a register")
                    .with_secondary(declared, "declared here"),
            );
            return None;
        }
        if variable.vector.is_some() && !is_member {
            let (name, lanes, declared) = (variable.name.clone(), variable.vector.unwrap_or(0), variable.span);
            self.report(
                Diagnostic::error(Code::OperandKind, format!("`{name}` is a `.v{lanes}` vector register"))
                    .with_primary(span, "a whole vector where one value is expected")
                    .with_secondary(declared, "declared here")
                    .with_help(format!("name one element, such as `{name}.x`, or use a `.v{lanes}` instruction")),
            );
            return None;
        }
        if variable.array_length.is_some() {
            let declared = variable.span;
            self.report(
                Diagnostic::error(Code::Unsupported, "unsupported: array registers as operands")
                    .with_primary(span, "ptxr reads scalar and vector registers only here")
                    .with_secondary(declared, "declared here"),
            );
            return None;
        }
        if register_fits(ty, variable.ty, rule) {
            return Some(());
        }
        let (name, declared_type, declared) = (variable.name.clone(), variable.ty, variable.span);
        self.report(
            Diagnostic::error(
                Code::OperandType,
                format!("{role} `{name}` has type `{declared_type}`, which does not fit the instruction type `{ty}`"),
            )
            .with_primary(span, format!("`{declared_type}` register used as `{ty}`"))
            .with_secondary(declared, format!("`{name}` declared as `{declared_type}` here"))
            .with_note("operands must have the instruction's size; bit types (`.bN`) fit any type of their size"),
        );
        None
    }
}
