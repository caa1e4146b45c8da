//! Execution of branches to labels that nested blocks declare again (ISA 7.8 section 9.7.11.1:
//! `{ }` opens a scope). A label is visible in its block and the blocks nested in it, and a
//! nested block's own label of the same name hides it there, as ptxas reads it: inlined `asm`
//! blocks repeat their labels.

use ptxr_tests::{run_ok, Buffer, Launch};

#[test]
fn a_branch_goes_to_the_label_of_its_own_block() {
    let ptx = r#"
.version 7.8
.target sm_80
.address_size 64
.visible .entry scoped(.param .u64 output)
{
    .reg .u32 %r<2>;
    .reg .u64 %rd<2>;
    mov.u32 %r1, 0;
    {
        bra.uni L;
        add.u32 %r1, %r1, 100;
    L:
        add.u32 %r1, %r1, 1;
    }
    {
        bra.uni L;
        add.u32 %r1, %r1, 200;
    L:
        add.u32 %r1, %r1, 10;
    }
    bra.uni DONE;
L:
    add.u32 %r1, %r1, 1000;
DONE:
    ld.param.u64 %rd1, [output];
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;
    let result = run_ok(ptx, &Launch::threads(1), &[Buffer::zeroed("u32", 1)]);
    // Each block's `bra` skips its own `add 100`/`add 200` and lands on its own `L`, never on
    // the outer one: 1 + 10.
    assert_eq!(result[0], vec![11]);
}
