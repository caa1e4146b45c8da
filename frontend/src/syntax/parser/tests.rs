//! Unit tests of the parser: the trees of small inputs, error messages and recovery, and the
//! fast path against the combinator parser over the whole corpus.

use super::parse;
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::syntax::ast::*;
use crate::vocabulary::{OpaqueType, ScalarType, StateSpace};

/// Parses `source`, which must be free of diagnostics.
fn clean(source: &str) -> Module {
    let (module, diagnostics) = parse(source);
    assert!(diagnostics.is_empty(), "unexpected diagnostics for {source:?}: {diagnostics:#?}");
    module
}

/// The statements of the body of the only function in `source`.
fn body(source: &str) -> Vec<Statement> {
    let module = clean(source);
    let functions: Vec<&Function> = module
        .directives
        .iter()
        .filter_map(|directive| match directive {
            Directive::Function(function) => Some(function),
            _ => None,
        })
        .collect();
    assert_eq!(functions.len(), 1);
    functions[0].body.as_ref().expect("a body").statements.clone()
}

/// The one instruction of a kernel whose body is `statement`.
fn instruction(statement: &str) -> Instruction {
    let statements = body(&format!(".entry k() {{ {statement} }}"));
    match statements.as_slice() {
        [Statement::Instruction(instruction)] => instruction.clone(),
        other => panic!("expected one instruction, got {other:?}"),
    }
}

fn operands(statement: &str) -> Vec<OperandKind> {
    instruction(statement).operands.iter().map(|operand| operand.kind.clone()).collect()
}

fn name(name: &str) -> OperandKind {
    OperandKind::Name { name: name.into(), member: None }
}

fn text(source: &str, span: Span) -> &str {
    &source[span.range()]
}

const VECTOR_ADD: &str = r#"
.version 7.8
.target sm_80
.address_size 64

.visible .entry vecadd(
	.param .u64 .ptr .global .align 4 vecadd_param_0,
	.param .u64 .ptr .global .align 4 vecadd_param_1,
	.param .u64 .ptr .global .align 4 vecadd_param_2,
	.param .u32 vecadd_param_3
)
.maxntid 256, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<12>, %x;
	.reg .b64 	%rd<11>;

	ld.param.u64 	%rd1, [vecadd_param_0];
	mov.u32 	%r1, %ctaid.x;
	mad.lo.s32 	%r4, %r1, %r2, %r3;
	setp.ge.s32 	%p1, %r4, %r5;
	@%p1 bra 	$L__BB0_2;
	ld.global.nc.f32 	%r6, [%rd8+-4];
	add.rn.f32 	%r8, %r7, 0f3F800000;
	st.global.f32 	[%rd10], %r8;
$L__BB0_2:
	ret;
}
"#;

#[test]
fn vector_add_tree() {
    let module = clean(VECTOR_ADD);
    assert_eq!(module.directives.len(), 4);
    assert!(matches!(module.directives[0], Directive::Version { major: 7, minor: 8, .. }));
    let Directive::Target { targets, .. } = &module.directives[1] else { panic!() };
    assert_eq!(targets[0].node, "sm_80");
    assert!(matches!(module.directives[2], Directive::AddressSize { bits: 64, .. }));
    let Directive::Function(function) = &module.directives[3] else { panic!() };
    assert_eq!(function.kind, FunctionKind::Entry);
    assert_eq!(function.linkage.as_ref().map(|linkage| linkage.node), Some(Linkage::Visible));
    assert_eq!(function.name.node, "vecadd");
    assert_eq!(text(VECTOR_ADD, function.name.span), "vecadd");
    assert_eq!(function.parameters.len(), 4);
    let first = &function.parameters[0];
    assert_eq!(first.state_space.node, StateSpace::Param);
    assert_eq!(first.ty.node, ScalarType::U64);
    assert_eq!(first.pointer, Some(PointerAttribute { state_space: Some(StateSpace::Global), align: Some(4) }));
    assert_eq!(first.name.node, "vecadd_param_0");
    assert_eq!(function.attributes.len(), 1);
    assert_eq!(function.attributes[0].name.node, "maxntid");
    assert_eq!(function.attributes[0].values, vec![256, 1, 1]);
    assert!(text(VECTOR_ADD, function.span).starts_with(".visible .entry vecadd("));
    assert!(text(VECTOR_ADD, function.span).ends_with('}'));

    let statements = &function.body.as_ref().expect("a body").statements;
    assert_eq!(statements.len(), 13);
    let Statement::Declaration(registers) = &statements[1] else { panic!() };
    assert_eq!(registers.state_space.node, StateSpace::Reg);
    assert_eq!(registers.ty.node, ScalarType::B32);
    assert_eq!(registers.names.len(), 2);
    assert_eq!(registers.names[0].name.node, "%r");
    assert_eq!(registers.names[0].range, Some(12));
    assert_eq!(registers.names[1].name.node, "%x");
    assert_eq!(registers.names[1].range, None);
    assert_eq!(text(VECTOR_ADD, registers.span), ".reg .b32 \t%r<12>, %x;");

    let Statement::Instruction(load) = &statements[3] else { panic!() };
    assert_eq!(load.opcode.node, "ld");
    let modifiers: Vec<&str> = load.modifiers.iter().map(|modifier| modifier.node.as_str()).collect();
    assert_eq!(modifiers, ["param", "u64"]);
    assert_eq!(text(VECTOR_ADD, load.modifiers[0].span), ".param");
    assert_eq!(text(VECTOR_ADD, load.span), "ld.param.u64 \t%rd1, [vecadd_param_0];");

    let Statement::Instruction(special) = &statements[4] else { panic!() };
    assert_eq!(special.operands[1].kind, OperandKind::Name { name: "%ctaid".into(), member: Some("x".into()) });
    assert_eq!(text(VECTOR_ADD, special.operands[1].span), "%ctaid.x");

    let Statement::Instruction(branch) = &statements[7] else { panic!() };
    let guard = branch.guard.as_ref().expect("a guard");
    assert!(!guard.negated);
    assert_eq!(guard.predicate.node, "%p1");
    assert_eq!(text(VECTOR_ADD, branch.span), "@%p1 bra \t$L__BB0_2;");
    assert_eq!(branch.operands[0].kind, name("$L__BB0_2"));

    let Statement::Instruction(offset_load) = &statements[8] else { panic!() };
    let OperandKind::Address { base, offset } = &offset_load.operands[1].kind else { panic!() };
    assert_eq!(base.as_ref().map(|base| base.node.as_str()), Some("%rd8"));
    assert_eq!(*offset, -4);
    assert_eq!(text(VECTOR_ADD, offset_load.operands[1].span), "[%rd8+-4]");

    let Statement::Instruction(add) = &statements[9] else { panic!() };
    assert_eq!(add.operands[2].kind, OperandKind::Float { bits: 0x3F80_0000, double: false });
    assert!(matches!(&statements[10], Statement::Instruction(store) if store.opcode.node == "st"));
    assert!(matches!(&statements[11], Statement::Label(label) if label.node == "$L__BB0_2"));
    assert!(
        matches!(&statements[12], Statement::Instruction(ret) if ret.opcode.node == "ret" && ret.operands.is_empty())
    );
}

#[test]
fn labels_and_instructions() {
    let statements = body(".entry k() { $L__BB0_2: bra.uni $L__BB0_2; BB0: ret; }");
    assert!(matches!(&statements[0], Statement::Label(label) if label.node == "$L__BB0_2"));
    assert!(matches!(&statements[2], Statement::Label(label) if label.node == "BB0"));
    assert_eq!(statements.len(), 4);
}

#[test]
fn modifiers_keep_their_double_colon_segments() {
    let load = instruction("ld.global.L2::cache_hint.v4.f32 {%f1, %f2, _, %f4}, [%rd1], %rd2;");
    let modifiers: Vec<&str> = load.modifiers.iter().map(|modifier| modifier.node.as_str()).collect();
    assert_eq!(modifiers, ["global", "L2::cache_hint", "v4", "f32"]);
    let fence = instruction("fence.proxy.async.shared::cta;");
    assert_eq!(fence.modifiers.last().map(|modifier| modifier.node.as_str()), Some("shared::cta"));
    let OperandKind::Vector(elements) = &load.operands[0].kind else { panic!() };
    let kinds: Vec<&OperandKind> = elements.iter().map(|element| &element.kind).collect();
    assert_eq!(kinds, [&name("%f1"), &name("%f2"), &OperandKind::Sink, &name("%f4")]);
}

#[test]
fn addresses() {
    let address = |source: &str| match &operands(&format!("ld.u32 %r1, {source};"))[1] {
        OperandKind::Address { base, offset } => (base.as_ref().map(|base| base.node.clone()), *offset),
        other => panic!("not an address: {other:?}"),
    };
    assert_eq!(address("[%rd1]"), (Some(Word::new("%rd1")), 0));
    assert_eq!(address("[%rd1+4]"), (Some(Word::new("%rd1")), 4));
    assert_eq!(address("[%rd1+-4]"), (Some(Word::new("%rd1")), -4));
    assert_eq!(address("[%rd1-4]"), (Some(Word::new("%rd1")), -4));
    assert_eq!(address("[ %rd1 + 0 ]"), (Some(Word::new("%rd1")), 0));
    assert_eq!(address("[buffer+2*8]"), (Some(Word::new("buffer")), 16));
    assert_eq!(address("[0x100]"), (None, 256));
    assert_eq!(address("[-(4)]"), (None, -4));
    // `var+imm` without brackets (mov, cvta, ZLUDA's `reg + imm`) is an address too.
    assert_eq!(address("table+8"), (Some(Word::new("table")), 8));
    assert_eq!(address("temp + 1"), (Some(Word::new("temp")), 1));
    // `[tex, {x, y}]` is a bracketed list.
    let OperandKind::Bracketed(items) = &operands("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f6}];")[1]
    else {
        panic!()
    };
    assert_eq!(items[0].kind, name("tex"));
    assert!(matches!(&items[1].kind, OperandKind::Vector(elements) if elements.len() == 2));
}

#[test]
fn immediates_and_constant_expressions() {
    let values =
        operands("mov.b32 %r1, -1, 0x10, 017, 0b101, 42U, (1 << 4) + 2, ~0, -0f3F800000, 1.5, 0d4000000000000000;");
    assert_eq!(
        values[1..],
        [
            OperandKind::Integer(WideInteger::new(-1)),
            OperandKind::Integer(WideInteger::new(16)),
            OperandKind::Integer(WideInteger::new(15)),
            OperandKind::Integer(WideInteger::new(5)),
            OperandKind::Integer(WideInteger::new(42)),
            OperandKind::Integer(WideInteger::new(18)),
            OperandKind::Integer(WideInteger::new(-1)),
            OperandKind::Float { bits: 0xBF80_0000, double: false },
            OperandKind::Float { bits: 1.5f64.to_bits(), double: true },
            OperandKind::Float { bits: 2.0f64.to_bits(), double: true },
        ]
    );
    // Precedence: `*` before `+`, `+` before `<<`, `<<` before `&`, `&` before `^` before `|`.
    assert_eq!(operands("mov.b32 %r1, 1 + 2 * 3;")[1], OperandKind::Integer(WideInteger::new(7)));
    assert_eq!(operands("mov.b32 %r1, 1 << 2 + 1;")[1], OperandKind::Integer(WideInteger::new(8)));
    assert_eq!(operands("mov.b32 %r1, 6 & 3 | 8 ^ 12;")[1], OperandKind::Integer(WideInteger::new(6)));
    assert_eq!(operands("mov.b32 %r1, 10 - 4 - 3;")[1], OperandKind::Integer(WideInteger::new(3)));
}

#[test]
fn predicates_calls_and_sinks() {
    let OperandKind::PredicatePair(first, second) = &operands("setp.lt.s32 %p1|%p2, %r1, %r2;")[0] else { panic!() };
    assert_eq!((&first.kind, &second.kind), (&name("%p1"), &name("%p2")));
    assert!(
        matches!(&operands("selp.b32 %r1, %r2, %r3, !%p1;")[3], OperandKind::Not(inner) if inner.kind == name("%p1"))
    );
    let negated = instruction("@!%p1 bra $L1;");
    assert!(negated.guard.as_ref().is_some_and(|guard| guard.negated && guard.predicate.node == "%p1"));
    let call = operands("call.uni (retval0), _Z4polyf, (param0, param1);");
    assert!(matches!(&call[0], OperandKind::List(items) if items.len() == 1));
    assert_eq!(call[1], name("_Z4polyf"));
    assert!(matches!(&call[2], OperandKind::List(items) if items.len() == 2));
    assert!(
        matches!(&operands("call foo, (1);")[1], OperandKind::List(items) if items[0].kind == OperandKind::Integer(WideInteger::new(1)))
    );
    // Outside `call`, parentheses around an immediate are only grouping.
    assert_eq!(operands("mov.u32 %r1, (5);")[1], OperandKind::Integer(WideInteger::new(5)));
    let OperandKind::PredicatePair(first, second) = &operands("shfl.sync.down.b32 _|%p1, %r1, 1, 31, -1;")[0] else {
        panic!()
    };
    assert_eq!((&first.kind, &second.kind), (&OperandKind::Sink, &name("%p1")));
    assert!(
        matches!(&operands("setp.eq.s32 %p1|_, %r1, 0;")[0], OperandKind::PredicatePair(_, second) if second.kind == OperandKind::Sink)
    );
    assert_eq!(operands("st.u8 [out_addr], WARP_SZ;")[1], name("WARP_SZ"));
}

/// `vmad d, {-}a, {-}b, {-}c` (ISA 7.8 section 9.7.16.3): a `-` before a name is a negated
/// source, a `-` before a number stays part of the number. The checker accepts the product or
/// `c` negated, not both (as ptxas), and no negation with `.po` or on other opcodes.
#[test]
fn negated_sources_parse() {
    let kinds = operands("vmad.s32.s32.s32 %r4, -%r1, -%r2.h0, %r3;");
    assert!(matches!(&kinds[1], OperandKind::Negate(inner) if inner.kind == name("%r1")));
    let OperandKind::Negate(inner) = &kinds[2] else { panic!("expected a negated operand, got {:?}", kinds[2]) };
    assert_eq!(inner.kind, OperandKind::Name { name: "%r2".into(), member: Some("h0".into()) });
    assert_eq!(operands("mov.s32 %r1, -5;")[1], OperandKind::Integer(WideInteger::new(-5)));

    let kernel = |statement: &str| {
        format!(".version 7.8 .target sm_80 .address_size 64 .entry k() {{ .reg .b32 %r<5>; {statement} ret; }}")
    };
    let codes = |statement: &str| {
        let (_, diagnostics) = crate::check::check_source(&kernel(statement));
        diagnostics.iter().map(|diagnostic| diagnostic.code).collect::<Vec<_>>()
    };
    assert_eq!(codes("vmad.s32.s32.s32 %r4, %r1, %r2, %r3;"), vec![]);
    assert_eq!(codes("vmad.s32.s32.s32 %r4, -%r1, %r2, %r3;"), vec![]);
    assert_eq!(codes("vmad.u32.u32.u32 %r4, -%r1.b1, -%r2, -%r3;"), vec![]);
    assert_eq!(codes("vmad.s32.s32.s32 %r4, -%r1, %r2, -%r3;"), vec![Code::OperandKind]);
    assert_eq!(codes("vmad.s32.s32.s32.po %r4, %r1, -%r2, %r3;"), vec![Code::OperandKind]);
    assert_eq!(codes("vadd.s32.s32.s32 %r4, -%r1, %r2;"), vec![Code::OperandKind]);
    assert_eq!(codes("add.s32 %r4, -%r1, %r2;"), vec![Code::OperandKind]);
}

#[test]
fn declarations_and_initializers() {
    let module = clean(
        ".global .align 4 .b8 table[4][2] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};\n\
         .const .u64 pointers[2] = {table, generic(table)+4};\n\
         .extern .shared .align 16 .b8 dynamic[];\n\
         .common .global .align 8 .u64 env;\n\
         .global .v4 .f32 vector = {0f3F800000, -1.0, 0, 0};\n\
         .global .texref tex1;\n\
         .global .samplerref sampler = { filter_mode = nearest, addr_mode_0 = clamp_to_edge };",
    );
    let variables: Vec<&VariableDeclaration> = module
        .directives
        .iter()
        .map(|directive| match directive {
            Directive::Variable(variable) => variable,
            other => panic!("not a variable: {other:?}"),
        })
        .collect();
    assert_eq!(variables.len(), 7);
    let table = &variables[0];
    assert_eq!((table.state_space.node, table.align, table.ty.node), (StateSpace::Global, Some(4), ScalarType::B8));
    assert_eq!(table.names[0].array_dimensions, vec![Some(4), Some(2)]);
    let Some(Initializer::List(rows, _)) = &table.names[0].initializer else { panic!() };
    assert_eq!(rows.len(), 4);
    assert!(matches!(&rows[3], Initializer::List(items, _) if items.len() == 2));

    let Some(Initializer::List(items, _)) = &variables[1].names[0].initializer else { panic!() };
    assert!(matches!(&items[0], Initializer::Expression(symbol) if symbol.node == Expression::Symbol("table".into())));
    let Initializer::Expression(sum) = &items[1] else { panic!() };
    let Expression::Binary { operator: BinaryOperator::Add, left, right } = &sum.node else { panic!("{sum:?}") };
    assert_eq!(left.node, Expression::Generic("table".into()));
    assert_eq!(right.node, Expression::Integer(4));

    let dynamic = &variables[2];
    assert_eq!(dynamic.linkage.as_ref().map(|linkage| linkage.node), Some(Linkage::Extern));
    assert_eq!(dynamic.names[0].array_dimensions, vec![None]);
    assert_eq!(variables[3].linkage.as_ref().map(|linkage| linkage.node), Some(Linkage::Common));
    assert_eq!(variables[4].vector, Some(4));
    let Some(Initializer::List(items, _)) = &variables[4].names[0].initializer else { panic!() };
    assert!(matches!(&items[1], Initializer::Expression(value)
        if value.node == Expression::Float { bits: (-1.0f64).to_bits(), double: true }));
    // Texture, sampler and surface handles are 64-bit `.tex` variables that keep their type.
    for handle in &variables[5..] {
        assert_eq!((handle.state_space.node, handle.ty.node), (StateSpace::Tex, ScalarType::B64));
    }
    let opaque: Vec<_> = variables[5..].iter().map(|handle| handle.opaque).collect();
    assert_eq!(opaque, [Some(OpaqueType::Texture), Some(OpaqueType::Sampler)]);
    assert!(variables[..5].iter().all(|variable| variable.opaque.is_none()));
}

#[test]
fn function_headers() {
    let module = clean(
        ".func (.param .b32 func_retval0) _Z4polyfPKfi(.param .b32 x, .param .align 16 .b8 aggregate[16]);\n\
         .func (.reg .u32 result) pack (.reg .v4 .u16 input) { ret; }\n\
         .extern .func __assertfail (.param .b64 message) .noreturn;\n\
         .weak .func empty { }\n\
         .entry textured (.param .texref image, .param .samplerref sampler) { }\n\
         .entry kernel .reqntid 128 .minnctapersm 4 .explicitcluster .reqnctapercluster 2, 1, 1 { }",
    );
    let functions: Vec<&Function> = module
        .directives
        .iter()
        .map(|directive| match directive {
            Directive::Function(function) => function,
            other => panic!("not a function: {other:?}"),
        })
        .collect();
    assert_eq!(functions.len(), 6);
    let poly = functions[0];
    assert!(poly.body.is_none());
    assert_eq!(poly.return_parameters.len(), 1);
    assert_eq!(poly.return_parameters[0].name.node, "func_retval0");
    assert_eq!(poly.parameters[1].align, Some(16));
    assert_eq!(poly.parameters[1].array, Some(16));
    let pack = functions[1];
    assert_eq!(pack.return_parameters[0].state_space.node, StateSpace::Reg);
    assert_eq!(pack.parameters[0].vector, Some(4));
    assert_eq!(pack.parameters[0].ty.node, ScalarType::U16);
    let assert_fail = functions[2];
    assert_eq!(assert_fail.linkage.as_ref().map(|linkage| linkage.node), Some(Linkage::Extern));
    assert_eq!(assert_fail.attributes[0].name.node, "noreturn");
    assert!(
        functions[3].parameters.is_empty() && functions[3].body.as_ref().is_some_and(|body| body.statements.is_empty())
    );
    let textured = &functions[4].parameters;
    assert_eq!((textured[1].state_space.node, textured[1].ty.node), (StateSpace::Tex, ScalarType::B64));
    let names: Vec<(&str, &[u64])> = functions[5]
        .attributes
        .iter()
        .map(|attribute| (attribute.name.node.as_str(), attribute.values.as_slice()))
        .collect();
    assert_eq!(
        names,
        [("reqntid", &[128][..]), ("minnctapersm", &[4]), ("explicitcluster", &[]), ("reqnctapercluster", &[2, 1, 1])]
    );
}

#[test]
fn module_directives() {
    let source = ".version 7.10\n.target sm_90a, texmode_independent, debug\n.address_size 32\n\
                  .file 1 \"/tmp/kernel.cu\", 1700000000, 1234\n.file 2 \"a\\\"b\"\n.pragma \"nounroll\";\n\
                  .section .debug_info { .b32 48 .b8 2, 0 .b32 .debug_abbrev $L__info_string0: { nested } }\n\
                  .section .debug_macinfo { }\n.alias fAlias, fIndirect;";
    let module = clean(source);
    assert!(matches!(module.directives[0], Directive::Version { major: 7, minor: 10, .. }));
    let Directive::Target { targets, .. } = &module.directives[1] else { panic!() };
    let targets: Vec<&str> = targets.iter().map(|target| target.node.as_str()).collect();
    assert_eq!(targets, ["sm_90a", "texmode_independent", "debug"]);
    assert!(matches!(module.directives[2], Directive::AddressSize { bits: 32, .. }));
    assert!(matches!(&module.directives[3], Directive::File { index: 1, path, .. } if path == "/tmp/kernel.cu"));
    assert!(matches!(&module.directives[4], Directive::File { index: 2, path, .. } if path == "a\"b"));
    assert!(matches!(&module.directives[5], Directive::Pragma { text, .. } if text == "nounroll"));
    let Directive::Section { name, span } = &module.directives[6] else { panic!() };
    assert_eq!(name, ".debug_info");
    assert!(text(source, *span).starts_with(".section .debug_info {") && text(source, *span).ends_with("} }"));
    assert!(matches!(&module.directives[7], Directive::Section { name, .. } if name == ".debug_macinfo"));
}

#[test]
fn statement_directives() {
    let statements = body(
        ".func f() {\n\
         .loc 1 14 0\n\
         .loc 1 15\n\
         .loc 2 216 16, function_name $L__info_string0, inlined_at 1 18 13\n\
         max.f32 %r31, %r1, %r3;\n\
         .pragma \"nounroll\";\n\
         prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _, .param .b32 _);\n\
         targets: .branchtargets $L1, $L2;\n\
         .local .align 4 .b8 buffer[16];\n\
         { .reg .pred p; @p mov.u32 %r1, 1; }\n\
         }",
    );
    assert!(matches!(statements[0], Statement::Location { file: 1, line: 14, column: 0, .. }));
    assert!(matches!(statements[1], Statement::Location { file: 1, line: 15, column: 0, .. }));
    let statements = &statements[1..];
    assert!(matches!(statements[1], Statement::Location { file: 2, line: 216, column: 16, .. }));
    assert!(matches!(&statements[2], Statement::Instruction(max) if max.opcode.node == "max"));
    assert!(matches!(&statements[3], Statement::Pragma { text, .. } if text == "nounroll"));
    assert!(matches!(&statements[4], Statement::Label(label) if label.node == "prototype_0"));
    assert!(matches!(&statements[5], Statement::Label(label) if label.node == "targets"));
    assert!(matches!(&statements[6], Statement::BranchTargets { labels, .. }
        if labels.iter().map(|label| label.node.as_str()).eq(["$L1", "$L2"])));
    assert!(matches!(&statements[7], Statement::Declaration(local) if local.state_space.node == StateSpace::Local));
    assert!(matches!(&statements[8], Statement::Block(block) if block.statements.len() == 2));
    assert_eq!(statements.len(), 9);
}

fn messages(diagnostics: &[Diagnostic]) -> Vec<(String, String)> {
    diagnostics.iter().map(|diagnostic| (diagnostic.message.clone(), diagnostic.labels[0].message.clone())).collect()
}

#[test]
fn recovery_keeps_the_rest_of_the_function() {
    let source = ".entry k()\n{\n\
                  mov.u32 %r1, %r2;\n\
                  mov.u32 %r1 %r2;\n\
                  add.s32 %r3, %r1, 1;\n\
                  ld.global.u32 %r4, [%rd1 + ];\n\
                  st.global.u32 [%rd1], %r4;\n\
                  ] ;\n\
                  ret;\n\
                  }\n\
                  .entry after() { ret; }";
    let (module, diagnostics) = parse(source);
    assert_eq!(diagnostics.len(), 3, "{diagnostics:#?}");
    assert!(diagnostics.iter().all(|diagnostic| diagnostic.code == Code::SyntaxError));
    assert_eq!(text(source, diagnostics[0].primary_span().expect("a span")), "%r2");
    assert_eq!(text(source, diagnostics[1].primary_span().expect("a span")), "]");
    assert_eq!(text(source, diagnostics[2].primary_span().expect("a span")), "]");
    assert_eq!(
        messages(&diagnostics),
        [
            ("unexpected `%r2`".to_string(), "expected `,` or `;`".to_string()),
            ("unexpected `]`".to_string(), "expected expression".to_string()),
            ("unexpected `]`".to_string(), "expected statement".to_string()),
        ]
    );
    assert_eq!(module.directives.len(), 2);
    let Directive::Function(function) = &module.directives[0] else { panic!() };
    let opcodes: Vec<&str> = function
        .body
        .as_ref()
        .expect("a body")
        .statements
        .iter()
        .map(|statement| match statement {
            Statement::Instruction(instruction) => instruction.opcode.node.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(opcodes, ["mov", "add", "st", "ret"]);
}

#[test]
fn recovery_at_module_level() {
    let source = ".version 7.8\n.target sm_80\n.global .b32 = 4;\n.visible .entry broken(.param .u32 a .param .u32 b) { ret; }\n\
                  .bogus 1 2 3;\n.entry good() { ret; }\n";
    let (module, diagnostics) = parse(source);
    assert_eq!(diagnostics.len(), 3, "{diagnostics:#?}");
    assert_eq!(messages(&diagnostics)[0], ("unexpected `=`".to_string(), "expected variable name".to_string()));
    assert_eq!(
        messages(&diagnostics)[1],
        ("unexpected `.param`".to_string(), "expected one of `)`, `,`, `[`".to_string())
    );
    assert_eq!(messages(&diagnostics)[2].0, "unexpected `.bogus`");
    let last = module.directives.last().expect("directives");
    assert!(matches!(last, Directive::Function(function) if function.name.node == "good"));
}

#[test]
fn end_of_input_points_at_the_last_token() {
    let source = ".entry k() { ret; ";
    let (_, diagnostics) = parse(source);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    assert_eq!(diagnostics[0].message, "unexpected end of input");
    assert_eq!(diagnostics[0].labels[0].message, "expected `}` or statement");
    assert_eq!(text(source, diagnostics[0].primary_span().expect("a span")), ";");
}

#[test]
fn lexer_and_value_errors_are_reported() {
    let (module, diagnostics) = parse(".entry k() { mov.u32 %r1, 0x; mov.u32 %r2, 1 / 0; € ret; }");
    let codes: Vec<Code> = diagnostics.iter().map(|diagnostic| diagnostic.code).collect();
    assert_eq!(codes, [Code::InvalidLiteral, Code::InvalidLiteral, Code::InvalidCharacter]);
    let Directive::Function(function) = &module.directives[0] else { panic!() };
    assert_eq!(function.body.as_ref().expect("a body").statements.len(), 3);
}

#[test]
fn garbage_does_not_panic() {
    for source in
        ["", "}", "{", ".entry", ".entry k(", "@", "@!", "[", ".version", ".version 7", ".section .x {", "{{{{", ";;;"]
    {
        let _ = parse(source);
    }
    let deep = "{".repeat(200) + &"}".repeat(200);
    let _ = parse(&format!(".entry k() {deep}"));
}

/// The PTX files of the shared corpus and conformance suite, and the repository's own fixtures
/// (`tests/fixtures/ptx/`) and examples.
fn corpus_sources() -> Vec<String> {
    // `shared/` beside the repository or beside one of its parent folders (a worktree).
    let repository = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let shared = repository
        .ancestors()
        .skip(1)
        .map(|folder| folder.join("shared"))
        .find(|shared| shared.join("corpus").is_dir())
        .unwrap_or_else(|| repository.join("../shared"));
    let shared = shared.display();
    let folders = [
        "conformance/zluda/ptx",
        "conformance/zluda/ptx/32",
        "corpus/clang",
        "corpus/nvcc",
        "corpus/triton",
        "corpus/numba",
    ];
    let repository_folders = ["tests/fixtures/ptx", "examples"].map(|folder| repository.join(folder));
    folders
        .iter()
        .flat_map(|folder| {
            std::fs::read_dir(format!("{shared}/{folder}")).expect("the shared corpus beside the repository")
        })
        .chain(repository_folders.iter().flat_map(|folder| std::fs::read_dir(folder).expect("the repository's PTX")))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "ptx"))
        .map(|path| std::fs::read_to_string(path).expect("readable"))
        .collect()
}

/// The lexer's loop, which reads the common tokens itself, makes the tokens and diagnostics
/// that reading every token the general way makes, over the corpus and over numbers, names and
/// dots on the edges between the two.
#[test]
fn lexer_fast_paths_match_the_general_lexer() {
    let mut sources = corpus_sources();
    sources.push(
        "0 00 007 08 010 1.5 1. 1e5 1e 1e+ 12U 12u 18446744073709551615 18446744073709551616 0x 0x1F 0b2 9abc 5.x \
         .2d .5 .5e3 .shared::cta .a::b:: .a: %1 % %% _ _a $ $x .:: ..x 1_000 %r1.x a.b.c 7; 8, 9] (10) -11+12 \
         0f3F800000 é€ # @!%p 1é \"s\" // c\n /* d */ 3"
            .to_string(),
    );
    for source in &sources {
        let (tokens, diagnostics) = crate::syntax::lex(source);
        let (reference_tokens, reference_diagnostics) = crate::syntax::lexer::lex_one_at_a_time(source);
        let tokens: Vec<_> = tokens.iter().collect();
        let reference_tokens: Vec<_> = reference_tokens.iter().collect();
        assert_eq!(tokens, reference_tokens);
        assert_eq!(diagnostics, reference_diagnostics);
    }
}

/// The lexer's count of nesting, kept as it pushes tokens, finds the token that a count over the
/// finished list finds: over the corpus, and over deep nests and long unary runs of every kind of
/// token, including those (`!`, `<`, hexadecimal numbers) that the lexer's loop hands to its
/// general path.
#[test]
fn lexer_nesting_count_matches_a_count_over_the_tokens() {
    let mut sources = corpus_sources();
    for opener in ["{", "[", "(", "-", "+", "~", "!", "!-", "{-"] {
        for count in [255, 256, 257, 300] {
            let run = opener.repeat(count);
            sources.push(format!(".entry k() {{ mov.u32 %r1, {run} 0x1 < 2; }} {run} x"));
            sources.push(format!("{run}a{}", "}".repeat(count)));
        }
    }
    sources.push(format!("{}{}{}", "{".repeat(250), "}".repeat(10), "(".repeat(20)));
    sources.push(format!("{}{}", "-".repeat(200), "- 1 ".repeat(100)));
    let mut deep = 0;
    for source in &sources {
        let (tokens, _) = crate::syntax::lex(source);
        let expected = crate::syntax::nesting::Nesting::of_tags(tokens.tags());
        assert_eq!(tokens.first_too_deep(), expected, "{:.80}", source);
        deep += usize::from(expected.is_some());
    }
    // The test cannot pass by finding nothing deep anywhere.
    assert!(deep >= 20, "only {deep} sources nest too deeply");
}

/// The fast path builds exactly the trees and diagnostics of the combinator parser.
#[test]
fn fast_path_matches_combinator_parser() {
    let mut sources = corpus_sources();
    sources.push(
        ".entry k() { mov.u32 %r1 %r2; ld.u32 %r1, [%rd1+]; add.s32 %r1, %r2, (1 + 2) * 3; @%p bra; \
         st.u32 [x + 0xFFFFFFFFFFFFFFFF], -0f3F800000; mov.u64 %rd1, {a, _, -1, 1.5}; setp.eq.s32 _|%p1, %r1, -4; \
         setp.ne.s32 %p1|_, %r1, 4; ld.u32 %r1, [%rd1+-0]; bra _|; mov.u32 %r1, !%r2; ld.u32 %r2, [-3]; }"
            .to_string(),
    );
    sources.push(
        ".entry k() { .reg .b32 %r<4>, %x; .shared .align 4 .b8 s[4][8]; .local .v4 .align 16 .f32 l[]; \
         .loc 1 2 .loc 1 2 3 .loc 1 2 3, function_name f .reg .u64 %rd<99999999999>; { .reg .pred %p; \
         { $L: } } .param .b32 p = 1; .const .u32 c[4*4]; .tex .u64 t; .reg .b32 %r<1> = 1; .pragma \"x\"; \
         .global .texref r; .reg .v8 .b16 v; .shared .b8 big[4294967296]; }"
            .to_string(),
    );
    sources.extend(HEADER_EDGES.iter().map(|source| source.to_string()));
    let read_before = super::fast_header::READ.with(std::cell::Cell::get);
    for source in &sources {
        let fast = parse(source);
        super::fast::ENABLED.with(|enabled| enabled.set(false));
        let slow = parse(source);
        super::fast::ENABLED.with(|enabled| enabled.set(true));
        assert_eq!(fast, slow, "the fast path differs on:\n{source}");
    }
    // Every corpus file has a `.version`, a `.target` and a function: the header path read
    // them, rather than giving up on all of them.
    let read = super::fast_header::READ.with(std::cell::Cell::get) - read_before;
    assert!(read >= 3 * sources.len() / 2, "the header fast path read only {read} directives");
}

/// Function headers and module directives on the edges of what the header fast path reads:
/// each is parsed with and without it.
const HEADER_EDGES: &[&str] = &[
    ".version 7.8 .version 7.10 .target sm_80, texmode_independent, debug .address_size 64",
    ".visible .entry k(.param .u64 .ptr .global .align 8 a, .param .align 16 .b8 b[16], \
     .param .v4 .align 8 .u16 c, .param .align 4 .v2 .f32 d, .param .u32 .ptr e, .param .u32 .ptr .align 4 f, \
     .param .u32 .align 4 g, .param .align 2 .u32 .align 4 h, .param .u64 .ptr .shared i) \
     .maxntid 256, 1, 1 .minnctapersm 2 .noreturn { ret; }",
    ".func (.param .b32 r) f(.reg .b32 x, .param .b32 _) ; .extern .func g ; .func () e () {}",
    ".weak .func (.reg .b32 r) h() .pragma \"nounroll\"; { ret; }",
    ".entry t(.param .texref tex, .param .samplerref s) { ret; }",
    ".global .align 4 .b8 table[4][8]; .extern .shared .align 16 .b8 dynamic[]; .common .global .u32 g2;",
    ".const .u32 c = 5; .visible .global .v4 .f32 vv; .global .texref t; .const[0] .u32 b; .tex .u32 x;",
    ".entry k2 .maxntid 1, { ret; }",
    ".entry k3 .maxntid 99999999999 { ret; }",
    ".address_size 99999999999 .version 7 .version 7.8.",
    ".entry k4(.param .b8 a[99999999999]) { ret; }",
    ".entry k5(.param .u32 a .param .u32 b) { ret; }",
    ".entry k6(.param .u32 a,) { ret; }",
    ".entry (.param .u32 a) { ret; }",
    ".entry k7(.param .u32 a) .maxntid { ret; }",
    ".target .target sm_80, .version 7.8",
    ".entry k8() { ret; ",
    ".entry k9() .func f() ret; .visible .version 7.8 .extern .entry",
    ".entry k10(.param .u32 .ptr .global .align a) { ret; } .entry k11(.param .f32x a) {}",
    ".entry k12(.reg .b32 a[2]) { .reg .b32 %r<2>; mov.b32 %r1, a; } .entry k13(.param .b32 a[]) {}",
    ".struct s { .s32 i; }; .entry k14() {} .alias a, b; .file 1 \"x.cu\" .section .debug { }",
];

/// The same with broken statements in the bodies: the block loop gives up and the combinator
/// parser's recovery and error messages are unchanged. Each file is broken at a few places by
/// dropping a `;`, a `}`, a `]` or a `>`, or by inserting a stray token.
#[test]
fn fast_path_matches_combinator_parser_on_errors() {
    let mut sources = corpus_sources();
    sources.push(
        ".entry k() { .reg .b32 %r<4; .shared .align .b8 s[4]; .loc 1 2 3, inlined_at 1 2 3 \
         .local .v4 .f32 l[2*2]; { .reg .pred %p; @%p bra $L; } .param .b32 p = 1; $L: ret; }"
            .to_string(),
    );
    sources.extend(HEADER_EDGES.iter().map(|source| source.to_string()));
    let breakers: [fn(&str, usize) -> String; 5] = [
        |source, at| format!("{}{}", &source[..at], source[at..].replacen(';', "", 1)),
        |source, at| format!("{}{}", &source[..at], source[at..].replacen('}', "", 1)),
        |source, at| format!("{}{}", &source[..at], source[at..].replacen(']', "", 1)),
        |source, at| format!("{}{}", &source[..at], source[at..].replacen('>', "", 1)),
        |source, at| format!("{} , {}", &source[..at], &source[at..]),
    ];
    for source in &sources {
        for (index, breaker) in breakers.iter().enumerate() {
            // A line start in the second half of the file, different for each breaker.
            let at = source.len() * (index + 4) / 10;
            let at = source[..at].rfind('\n').map_or(0, |newline| newline + 1);
            let broken = breaker(source, at);
            let fast = parse(&broken);
            super::fast::ENABLED.with(|enabled| enabled.set(false));
            let slow = parse(&broken);
            super::fast::ENABLED.with(|enabled| enabled.set(true));
            assert_eq!(fast, slow, "the fast path differs on:\n{broken}");
        }
    }
}

#[test]
fn unclosed_section() {
    let (_, diagnostics) = parse(".section .debug_info { .b8 1 { }");
    assert_eq!(messages(&diagnostics), [("unexpected end of input".to_string(), "expected `}`".to_string())]);
    let (_, diagnostics) = parse(".section .debug_info .b8 1;");
    assert_eq!(messages(&diagnostics), [("unexpected `.b8`".to_string(), "expected `{`".to_string())]);
}

/// Nesting beyond the limit is reported, not followed into a stack overflow.
#[test]
fn deep_nesting_is_cut_off() {
    let depth = 100_000;
    let braces = "{".repeat(depth) + &"}".repeat(depth);
    let parens = "(".repeat(depth) + "1" + &")".repeat(depth);
    let initializer = "{".repeat(depth) + "1" + &"}".repeat(depth);
    let minus = "-".repeat(depth) + "x";
    let sum = "x".to_string() + &"+1".repeat(depth);
    for source in [
        format!(".entry k() {braces}"),
        format!(".entry k() {{ mov.u32 %r1, {parens}; }}"),
        format!(".global .u32 x = {initializer};"),
        format!(".global .u32 x = {minus};"),
        format!(".global .u32 x = {sum};"),
    ] {
        let (_, diagnostics) = parse(&source);
        assert!(!diagnostics.is_empty());
    }
    let (_, diagnostics) = parse(&format!(".entry k() {}", "{".repeat(300) + &"}".repeat(300)));
    assert!(diagnostics.iter().any(|diagnostic| diagnostic.message == "nesting too deep"));
}

#[test]
fn missing_semicolon_at_end_of_line_gets_help() {
    let source = ".entry k() {\n  mov.u32 %r1, %tid.x\n  add.s32 %r2, %r1, 1;\n}";
    let (_, diagnostics) = parse(source);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:#?}");
    let diagnostic = &diagnostics[0];
    assert_eq!(diagnostic.message, "unexpected `add`");
    assert_eq!(diagnostic.labels[0].message, "expected `,` or `;`");
    assert_eq!(text(source, diagnostic.labels[1].span), ".x");
    assert_eq!(diagnostic.help.as_deref(), Some("end each statement with `;`"));
}

#[test]
fn full_constant_expressions() {
    let value = |expression: &str| operands(&format!("mov.b32 %r1, {expression};"))[1].clone();
    // Comparisons bind tighter than equality, equality tighter than `&`, `&` than `&&`, `&&` than `||`.
    assert_eq!(value("1 < 2"), OperandKind::Integer(WideInteger::new(1)));
    assert_eq!(value("2 <= 1"), OperandKind::Integer(WideInteger::new(0)));
    assert_eq!(value("3 > 2 == 1"), OperandKind::Integer(WideInteger::new(1)));
    assert_eq!(value("2 >= 3 != 1"), OperandKind::Integer(WideInteger::new(1)));
    assert_eq!(value("1 << 2 < 5"), OperandKind::Integer(WideInteger::new(1)));
    assert_eq!(value("6 & 3 == 3"), OperandKind::Integer(WideInteger::new(0)));
    assert_eq!(value("1 || 0 && 0"), OperandKind::Integer(WideInteger::new(1)));
    assert_eq!(value("0 && 1 / 1"), OperandKind::Integer(WideInteger::new(0)));
    assert_eq!(value("2 | 1 && 4"), OperandKind::Integer(WideInteger::new(1)));
    // `?:` is the loosest and right-associative.
    assert_eq!(value("1 ? 2 : 3"), OperandKind::Integer(WideInteger::new(2)));
    assert_eq!(value("0 ? 2 : 1 + 3"), OperandKind::Integer(WideInteger::new(4)));
    assert_eq!(value("0 ? 1 : 0 ? 2 : 3"), OperandKind::Integer(WideInteger::new(3)));
    assert_eq!(value("1 ? 0 ? 5 : 6 : 7"), OperandKind::Integer(WideInteger::new(6)));
    assert_eq!(value("1 < 2 ? 1.5 : 2.5"), OperandKind::Float { bits: 1.5f64.to_bits(), double: true });
    // Casts to 64 bits, as unary operators.
    assert_eq!(value("(.u64) -1"), OperandKind::Integer(WideInteger::new(i128::from(u64::MAX))));
    assert_eq!(value("(.s64) 0xFFFFFFFFFFFFFFFF"), OperandKind::Integer(WideInteger::new(-1)));
    assert_eq!(value("(.s64)(.u64) -2"), OperandKind::Integer(WideInteger::new(-2)));
    assert_eq!(value("-(.u64)1 + 1"), OperandKind::Integer(WideInteger::new(0)));
    // Floats compare to integers 0 or 1; `&&` does not apply to them.
    assert_eq!(value("1.5 < 2.5"), OperandKind::Integer(WideInteger::new(1)));
    assert_eq!(value("!0 + ~0"), OperandKind::Integer(WideInteger::new(0)));
    let diagnostics =
        parse(".entry k() { mov.b32 %r1, 1.5 && 1.0; mov.b32 %r1, 1.5 ? 1 : 2; mov.b32 %r1, (.u64) 1.5; }").1;
    assert_eq!(diagnostics.len(), 3, "{diagnostics:?}");
    assert!(diagnostics.iter().all(|diagnostic| diagnostic.code == Code::InvalidLiteral));
}

#[test]
fn constant_expressions_with_symbols_stay_trees() {
    let module = clean(".global .u32 a; .global .u64 p = a ? 1 : 2; .global .u64 q = a < 4;");
    let Directive::Variable(p) = &module.directives[1] else { panic!() };
    let Some(Initializer::Expression(p)) = &p.names[0].initializer else { panic!() };
    assert!(
        matches!(&p.node, Expression::Conditional { condition, .. } if condition.node == Expression::Symbol("a".into()))
    );
    let Directive::Variable(q) = &module.directives[2] else { panic!() };
    let Some(Initializer::Expression(q)) = &q.names[0].initializer else { panic!() };
    assert!(matches!(&q.node, Expression::Binary { operator: BinaryOperator::Less, .. }));
}

#[test]
fn isa_1_declarations() {
    let module = clean(
        ".const[0] .f32 bias = 1.0;\n\
         .tex tex_a;\n\
         .tex[2] tex_b, tex_c;\n\
         .global .texref tex_d;",
    );
    let variables: Vec<&VariableDeclaration> = module
        .directives
        .iter()
        .map(|directive| match directive {
            Directive::Variable(variable) => variable,
            other => panic!("not a variable: {other:?}"),
        })
        .collect();
    assert_eq!((variables[0].state_space.node, variables[0].ty.node), (StateSpace::Const, ScalarType::F32));
    for texture in &variables[1..] {
        assert_eq!((texture.state_space.node, texture.ty.node), (StateSpace::Tex, ScalarType::B64));
    }
    assert_eq!(variables[2].names.len(), 2);
    let diagnostics = parse(".const[3] .f32 x; .global[0] .f32 y;").1;
    assert_eq!(
        diagnostics.iter().map(|diagnostic| diagnostic.code).collect::<Vec<_>>(),
        [Code::Unsupported, Code::InvalidDeclaration],
        "{diagnostics:?}"
    );
}

#[test]
fn isa_1_aggregates_are_reported_as_unsupported() {
    let (module, diagnostics) =
        parse(".struct somestruct { .s32 i; .s32 j; .f32 x; .f32 y; };\n.union intOrFloat { .s32 i; .f32 f; };\n.global .u32 kept;");
    assert_eq!(
        messages(&diagnostics),
        [
            ("unsupported: `.struct` types".to_string(), "`somestruct` is not supported".to_string()),
            ("unsupported: `.union` types".to_string(), "`intOrFloat` is not supported".to_string()),
        ]
    );
    assert!(diagnostics.iter().all(|diagnostic| diagnostic.code == Code::Unsupported));
    assert_eq!(module.directives.len(), 1);
    let (_, diagnostics) = parse(".entry k { .struct pair { .s32 a; .s32 b; }; ret; }");
    assert_eq!(
        messages(&diagnostics),
        [("unsupported: `.struct` types".to_string(), "`pair` is not supported".to_string())]
    );
}

/// Parsing a large file in pieces builds exactly the tree of a single parse, wherever the
/// pieces are cut; a piece with a diagnostic makes the file be parsed whole.
#[test]
fn pieces_parse_as_the_whole() {
    let mut sources = corpus_sources();
    sources.push(
        ".version 8.5\n.target sm_90\n.address_size 64\n.global .u32 table[2] = { 1, 2 };\n\
         .extern .func (.param .b32 r) f (.param .b32 a);\n.visible .func g() { { ret; } }\n\
         .weak .entry k() { mov.u32 %r1, 1; }\n.entry l() { ret; }\n"
            .to_string(),
    );
    let mut cut = 0;
    for source in &sources {
        let (whole, diagnostics) = parse(source);
        let pieces = super::parse_in_pieces(source, 1);
        if diagnostics.is_empty() {
            assert_eq!(pieces.as_ref(), Some(&whole), "pieces differ on:\n{source}");
            let functions = whole.directives.iter().filter(|directive| matches!(directive, Directive::Function(_)));
            cut += usize::from(functions.count() > 1);
        } else {
            assert_eq!(pieces, None, "pieces parsed despite diagnostics:\n{source}");
        }
    }
    assert!(cut > 10, "too few files with several functions: {cut}");
    let broken = ".entry k() { ret; }\n.entry l() { mov.u32 %r1 %r2; }\n";
    assert_eq!(super::parse_in_pieces(broken, 1), None);
}

/// The tokens of `source` and how far the hand-written module loop reads them, with its tree.
fn read_by_module_loop(source: &str) -> (usize, usize, Vec<Directive>) {
    let (tokens, diagnostics) = crate::syntax::lexer::lex(source);
    assert!(diagnostics.is_empty());
    let end_of_input = tokens.last().map(|token| token.span).unwrap_or_default();
    let (directives, stopped) = super::fast_module::read_module(source, &tokens, end_of_input);
    (tokens.len(), stopped, directives)
}

/// The module loop reads a well-formed module to its end, handing what the fast paths do not
/// read (`.file`, an initialized variable, a `.pragma`, a call's lists, a `.loc` with its
/// `inlined_at`) to the combinator parser of one directive or statement, and builds the tree
/// chumsky alone builds; it stops at the first directive that has an error or a diagnostic.
#[test]
fn module_loop_reads_well_formed_modules_and_stops_at_the_first_error() {
    let well_formed = ".version 8.5 .target sm_90 .address_size 64 .file 1 \"k.cu\"\n\
        .global .align 4 .b32 table[2] = {1, 2};\n\
        .func (.param .b32 r) f(.param .b32 x) { ld.param.b32 %r1, [x]; st.param.b32 [r], %r1; ret; }\n\
        .visible .entry k(.param .u64 p) {\n\
        .reg .b32 %r<4>; .loc 1 2 3, function_name $L__info_string0, inlined_at 1 4 5\n\
        .pragma \"nounroll\"; { .param .b32 a; .param .b32 b; st.param.b32 [a], 1;\n\
        call.uni (b), f, (a); } $L__BB0_1: @%p1 bra $L__BB0_1; ret; }\n";
    let (count, stopped, directives) = read_by_module_loop(well_formed);
    assert_eq!(stopped, count);
    assert_eq!(Module { directives }, clean(well_formed));

    // `.address_size 99999999999` is reported (too large), so the loop stops at it, after the
    // two directives before it, and chumsky reads the rest.
    let broken = ".version 8.5 .target sm_90 .address_size 99999999999 .entry k() { ret; }";
    let (_, stopped, directives) = read_by_module_loop(broken);
    assert_eq!((stopped, directives.len()), (4, 2));
    let (module, diagnostics) = parse(broken);
    assert_eq!(module.directives.len(), 4);
    assert_eq!(diagnostics.len(), 1);
}
