//! `destinations()` on one instruction of every family: the registers each is expected to
//! write are the ones the spec's syntax names as destinations (`d`, `p|q`, `{d0, d1}`), written
//! here by hand.

use crate::ir::{Function, Instruction, Statement};

/// Checks `body` in a kernel with a few registers of each kind and a callee `twice`, and
/// returns the kernel.
fn kernel(body: &str) -> Function {
    let source = format!(
        ".version 8.2\n.target sm_90\n.address_size 64\n\
         .func (.param .b32 out) twice(.param .b32 in)\n{{\n.reg .b32 %x;\nld.param.b32 %x, [in];\n\
         add.s32 %x, %x, %x;\nst.param.b32 [out], %x;\nret;\n}}\n\
         .visible .entry k(.param .u64 pointer)\n{{\n.reg .b16 %h<8>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n\
         .reg .f32 %f<8>;\n.reg .f64 %fd<4>;\n.reg .pred %p<4>;\n.reg .v4 .b32 %v;\n\
         .shared .align 16 .b8 tile[256];\n.param .b32 argument;\n.param .b32 result;\n{body}\nret;\n}}\n"
    );
    let (module, diagnostics) = crate::check_source(&source);
    let errors: Vec<_> = diagnostics.iter().filter(|diagnostic| diagnostic.is_error()).collect();
    assert!(errors.is_empty(), "`{body}`: {errors:?}");
    let module = module.unwrap_or_else(|| panic!("`{body}` did not check"));
    module.functions.into_iter().find(|function| function.name == "k").unwrap_or_else(|| panic!("no kernel"))
}

/// The names of what the first instruction of `body` writes (`%v.y` for a vector member).
fn written(body: &str) -> Vec<String> {
    let function = kernel(body);
    let Some(first) = function.body.iter().flatten().find_map(|statement| match statement {
        Statement::Instruction(instruction) => Some(instruction),
        Statement::Label(_) => None,
    }) else {
        panic!("`{body}`: no instruction")
    };
    assert!(first.instruction != Instruction::Unlowered, "`{body}` is not decoded, so it tests nothing");
    first
        .instruction
        .destinations()
        .iter()
        .map(|destination| {
            let crate::ir::VariableId::Local(index) = destination.register else { panic!("`{body}` writes a global") };
            let name = &function.variable(index).name;
            match destination.member {
                Some(member) => format!("{name}.{}", ["x", "y", "z", "w"][member as usize]),
                None => name.to_string(),
            }
        })
        .collect()
}

#[test]
fn data_movement_writes_its_destinations() {
    assert_eq!(written("mov.b32 %r1, %r2;"), ["%r1"]);
    assert_eq!(written("mov.b32 %v.y, %r2;"), ["%v.y"]);
    assert_eq!(written("ld.global.u32 %r3, [%rd1];"), ["%r3"]);
    assert_eq!(written("ld.global.v2.u32 {%r1, _}, [%rd1];"), ["%r1"]);
    assert_eq!(written("ld.global.v4.u32 %v, [%rd1];"), ["%v.x", "%v.y", "%v.z", "%v.w"]);
    assert_eq!(written("mov.v2.b32 {%r4, %r5}, {%r1, %r2};"), ["%r4", "%r5"]);
    assert_eq!(written("mov.b64 %rd2, {%r1, %r2};"), ["%rd2"]);
    assert_eq!(written("mov.b64 {%r1, %r2}, %rd2;"), ["%r1", "%r2"]);
    assert_eq!(written("cvta.to.global.u64 %rd3, %rd1;"), ["%rd3"]);
    assert_eq!(written("isspacep.global %p2, %rd1;"), ["%p2"]);
    assert_eq!(written("createpolicy.fractional.L2::evict_last.b64 %rd4, 1.0;"), ["%rd4"]);
    assert_eq!(written("cvt.rn.f32.s32 %f1, %r1;"), ["%f1"]);
    assert_eq!(written("cvt.rn.f16.f32 %h1, %f1;"), ["%h1"]);
    assert_eq!(written("cvt.rn.f16x2.f32 %r6, %f1, %f2;"), ["%r6"]);
    assert_eq!(written("cvt.rn.satfinite.e4m3x2.f16x2 %h2, %r1;"), ["%h2"]);
    assert_eq!(written("cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r4;"), ["%r1"]);
    assert_eq!(written("prmt.b32 %r7, %r1, %r2, %r3;"), ["%r7"]);
    assert_eq!(written("selp.b32 %r2, %r1, %r3, %p1;"), ["%r2"]);
}

#[test]
fn stores_and_control_flow_write_no_register() {
    assert_eq!(written("st.global.u32 [%rd1], %r1;"), Vec::<String>::new());
    assert_eq!(written("st.global.v2.u32 [%rd1], {%r1, %r2};"), Vec::<String>::new());
    assert_eq!(written("cp.async.ca.shared.global [tile], [%rd1], 4;"), Vec::<String>::new());
    assert_eq!(written("prefetch.global.L2 [%rd1];"), Vec::<String>::new());
    assert_eq!(written("trap;"), Vec::<String>::new());
    assert_eq!(written("brx.idx %r1, targets;\ntargets: .branchtargets L1;\nL1:"), Vec::<String>::new());
    assert_eq!(written("nanosleep.u32 100;"), Vec::<String>::new());
    assert_eq!(written("membar.gl;"), Vec::<String>::new());
    assert_eq!(written("fence.proxy.alias;"), Vec::<String>::new());
    assert_eq!(written("bar.sync 0;"), Vec::<String>::new());
    assert_eq!(written("bar.warp.sync 0xffffffff;"), Vec::<String>::new());
    assert_eq!(written("red.global.add.u32 [%rd1], %r1;"), Vec::<String>::new());
}

#[test]
fn arithmetic_writes_its_destination() {
    assert_eq!(written("add.s32 %r1, %r2, %r3;"), ["%r1"]);
    assert_eq!(written("mad.lo.s32 %r2, %r1, %r3, %r4;"), ["%r2"]);
    assert_eq!(written("mul.wide.s32 %rd1, %r1, %r2;"), ["%rd1"]);
    assert_eq!(written("add.rn.f32 %f1, %f2, %f3;"), ["%f1"]);
    assert_eq!(written("fma.rn.f32 %f4, %f1, %f2, %f3;"), ["%f4"]);
    assert_eq!(written("sqrt.rn.f32 %f2, %f1;"), ["%f2"]);
    assert_eq!(written("copysign.f32 %f3, %f1, %f2;"), ["%f3"]);
    assert_eq!(written("add.rn.f16 %h1, %h2, %h3;"), ["%h1"]);
    assert_eq!(written("fma.rn.f16x2 %r1, %r2, %r3, %r4;"), ["%r1"]);
    assert_eq!(written("neg.f16 %h3, %h1;"), ["%h3"]);
    assert_eq!(written("add.cc.u32 %r5, %r1, %r2;"), ["%r5"]);
    assert_eq!(written("madc.hi.cc.u32 %r5, %r1, %r2, %r3;"), ["%r5"]);
    assert_eq!(written("mul24.lo.s32 %r3, %r1, %r2;"), ["%r3"]);
    assert_eq!(written("sad.u32 %r3, %r1, %r2, %r4;"), ["%r3"]);
    assert_eq!(written("dp4a.u32.u32 %r3, %r1, %r2, %r4;"), ["%r3"]);
    assert_eq!(written("testp.finite.f32 %p1, %f1;"), ["%p1"]);
}

#[test]
fn logic_and_bit_manipulation_write_their_destination() {
    assert_eq!(written("and.b32 %r1, %r2, %r3;"), ["%r1"]);
    assert_eq!(written("not.pred %p2, %p1;"), ["%p2"]);
    assert_eq!(written("shl.b32 %r2, %r1, 3;"), ["%r2"]);
    assert_eq!(written("popc.b32 %r2, %r1;"), ["%r2"]);
    assert_eq!(written("bfe.u32 %r1, %r2, 4, 8;"), ["%r1"]);
    assert_eq!(written("bfi.b32 %r1, %r2, %r3, 4, 8;"), ["%r1"]);
    assert_eq!(written("bfind.u32 %r1, %r2;"), ["%r1"]);
    assert_eq!(written("fns.b32 %r1, %r2, %r3, 1;"), ["%r1"]);
    assert_eq!(written("bmsk.clamp.b32 %r1, %r2, %r3;"), ["%r1"]);
    assert_eq!(written("szext.wrap.u32 %r1, %r2, %r3;"), ["%r1"]);
    assert_eq!(written("shf.l.wrap.b32 %r1, %r2, %r3, %r4;"), ["%r1"]);
    assert_eq!(written("lop3.b32 %r1, %r2, %r3, %r4, 0x96;"), ["%r1"]);
    assert_eq!(written("lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2;"), ["%r1", "%p1"]);
    assert_eq!(written("slct.u32.s32 %r1, %r2, %r3, %r4;"), ["%r1"]);
}

#[test]
fn comparisons_write_both_predicates() {
    assert_eq!(written("setp.lt.s32 %p1, %r1, %r2;"), ["%p1"]);
    assert_eq!(written("setp.lt.and.s32 %p1|%p2, %r1, %r2, %p3;"), ["%p1", "%p2"]);
    assert_eq!(written("setp.eq.f16x2 %p1|%p2, %r1, %r2;"), ["%p1", "%p2"]);
    assert_eq!(written("set.eq.u32.s32 %r3, %r1, %r2;"), ["%r3"]);
}

#[test]
fn video_instructions_write_their_destination() {
    assert_eq!(written("vadd.u32.u32.u32.sat %r1, %r2, %r3;"), ["%r1"]);
    assert_eq!(written("vadd2.u32.u32.u32 %r1, %r2, %r3, %r4;"), ["%r1"]);
}

#[test]
fn warp_collectives_and_atomics_write_their_destinations() {
    assert_eq!(written("atom.global.add.u32 %r1, [%rd1], %r2;"), ["%r1"]);
    assert_eq!(written("bar.red.popc.u32 %r3, 0, %p1;"), ["%r3"]);
    assert_eq!(written("shfl.sync.down.b32 %r1|%p1, %r2, 1, 31, 0xffffffff;"), ["%r1", "%p1"]);
    assert_eq!(written("shfl.sync.down.b32 %r1, %r2, 1, 31, 0xffffffff;"), ["%r1"]);
    assert_eq!(written("vote.sync.ballot.b32 %r1, %p1, 0xffffffff;"), ["%r1"]);
    assert_eq!(written("match.all.sync.b32 %r1|%p2, %r2, 0xffffffff;"), ["%r1", "%p2"]);
    assert_eq!(written("redux.sync.add.u32 %r1, %r2, 0xffffffff;"), ["%r1"]);
    assert_eq!(written("activemask.b32 %r4;"), ["%r4"]);
}

#[test]
fn matrix_instructions_write_every_fragment_register() {
    assert_eq!(
        written(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, \
             {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f4, %f5, %f6, %f7};"
        ),
        ["%f1", "%f2", "%f3", "%f4"]
    );
    assert_eq!(written("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r1, %r2}, [tile];"), ["%r1", "%r2"]);
}

#[test]
fn calls_write_their_result_variables() {
    assert_eq!(written("call.uni (result), twice, (argument);"), ["result"]);
}

#[test]
fn mbarrier_writes_its_state_predicate_or_count() {
    assert_eq!(written("mbarrier.init.shared.b64 [tile], 4;"), Vec::<String>::new());
    assert_eq!(written("mbarrier.inval.b64 [%rd1];"), Vec::<String>::new());
    assert_eq!(written("mbarrier.arrive.shared::cta.b64 %rd2, [tile];"), ["%rd2"]);
    assert_eq!(written("mbarrier.arrive_drop.noComplete.b64 _, [%rd1], %r1;"), Vec::<String>::new());
    assert_eq!(written("mbarrier.arrive.shared.b64 %rd3, [tile], 2;"), ["%rd3"]);
    assert_eq!(written("mbarrier.test_wait.parity.shared.b64 %p1, [tile], %r1;"), ["%p1"]);
    assert_eq!(written("mbarrier.try_wait.b64 %p2, [%rd1], %rd2, 100;"), ["%p2"]);
    assert_eq!(written("mbarrier.try_wait.acquire.cta.shared::cta.b64 %p3, [tile], %rd2;"), ["%p3"]);
    assert_eq!(written("mbarrier.pending_count.b64 %r2, %rd2;"), ["%r2"]);
}

#[test]
fn mbarrier_decodes_its_operation_and_operands() {
    use crate::ir::MbarrierWait;
    use crate::vocabulary::StateSpace;
    let decoded = |body: &str| {
        let function = kernel(body);
        function
            .body
            .iter()
            .flatten()
            .find_map(|statement| match statement {
                Statement::Instruction(instruction) => Some(instruction.instruction.clone()),
                Statement::Label(_) => None,
            })
            .unwrap_or_else(|| panic!("`{body}`: no instruction"))
    };
    assert!(matches!(
        decoded("mbarrier.arrive_drop.noComplete.shared.b64 %rd1, [tile], %r1;"),
        Instruction::MbarrierArrive {
            drop: true,
            no_complete: true,
            state_space: StateSpace::Shared,
            count: Some(_),
            ..
        }
    ));
    assert!(matches!(
        decoded("mbarrier.arrive.b64 _, [%rd1];"),
        Instruction::MbarrierArrive {
            drop: false,
            no_complete: false,
            state_space: StateSpace::Generic,
            destination: None,
            count: None,
            ..
        }
    ));
    assert!(matches!(
        decoded("mbarrier.try_wait.parity.shared.b64 %p1, [tile], 1, %r2;"),
        Instruction::MbarrierTestWait { wait: MbarrierWait::Try, parity: true, suspend_time_hint: Some(_), .. }
    ));
    assert!(matches!(
        decoded("mbarrier.test_wait.b64 %p1, [%rd1], %rd2;"),
        Instruction::MbarrierTestWait { wait: MbarrierWait::Test, parity: false, suspend_time_hint: None, .. }
    ));
    // Cluster forms stay undecoded, for lowering to report; transaction counts of the CTA's
    // objects are decoded.
    assert_eq!(decoded("mbarrier.expect_tx.release.cluster.shared::cluster.b64 [%rd1], %r1;"), Instruction::Unlowered);
    assert!(matches!(
        decoded("mbarrier.arrive.expect_tx.shared.b64 %rd1, [tile], %r1;"),
        Instruction::MbarrierArrive { destination: Some(_), count: None, transaction_count: Some(_), .. }
    ));
    assert!(matches!(
        decoded("mbarrier.complete_tx.shared::cta.b64 [tile], %r1;"),
        Instruction::MbarrierTransaction { complete: true, .. }
    ));
}

#[test]
fn texture_and_surface_instructions_write_their_destinations() {
    assert_eq!(
        written("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd1, {%f5, %f6}];"),
        ["%f1", "%f2", "%f3", "%f4", "%p1"]
    );
    assert_eq!(written("tld4.r.2d.v4.s32.f32 %v, [%rd1, {%f5, %f6}];"), ["%v.x", "%v.y", "%v.z", "%v.w"]);
    assert_eq!(written("txq.width.b32 %r1, [%rd1];"), ["%r1"]);
    assert_eq!(written("suq.depth.b32 %r2, [%rd1];"), ["%r2"]);
    assert_eq!(written("suld.b.2d.v2.b32.clamp {%r3, %r4}, [%rd1, {%r1, %r2}];"), ["%r3", "%r4"]);
    assert_eq!(written("suld.b.1d.b16.zero %h1, [%rd1, {%r1}];"), ["%h1"]);
    assert!(written("sust.b.1d.b32.trap [%rd1, {%r1}], %r2;").is_empty());
    assert!(written("sust.p.2d.v4.b32.trap [%rd1, {%r1, %r2}], {%r3, %r4, %r5, %r6};").is_empty());
}
