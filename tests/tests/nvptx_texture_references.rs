//! `.texref` and `.surfref` module variables on NVPTX (ISA 7.8 sections 5.3, 9.7.9 and 9.7.10):
//! the output declares each one under its PTX name (`.global .texref image;`), so that a CUDA
//! host binds a texture or surface to it by that name, and every texture and surface form names
//! the variable itself, as nvcc's output for texture references does. ptxas 12.9 assembles the
//! result. `.samplerref` variables (the independent texturing mode, which ptxas refuses under
//! the unified mode) and arrays of references are reported.

use ptxr_tests::vendor_checks::{compile, ptxas_accepts, Compiled};

fn nvptx(source: &str) -> String {
    match compile(source, "nvptx") {
        Compiled::Artefact(bytes) => String::from_utf8(bytes).expect("NVPTX output is PTX text"),
        Compiled::Unsupported(messages) => panic!("unsupported: {messages:?}"),
        Compiled::Rejected(message) => panic!("rejected: {message}"),
    }
}

fn assert_ptxas_accepts(ptx: &str, name: &str) {
    if let Some(verdict) = ptxas_accepts(ptx.as_bytes(), "sm_80", name) {
        verdict.unwrap_or_else(|error| panic!("ptxas: {error}\n{ptx}"));
    }
}

/// The text of the output's instruction lines, whitespace collapsed, so that a form can be
/// looked for as written in the source.
fn instructions(ptx: &str) -> Vec<String> {
    ptx.lines().map(|line| line.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

#[test]
fn every_form_names_the_declared_variable() {
    let source = ptxr_tests::read_repository_file("tests/fixtures/kernels/texture_references.ptx");
    let ptx = nvptx(&source);
    for declaration in [
        ".visible .global .texref image;",
        ".visible .global .texref volume;",
        ".visible .global .texref layers;",
        ".visible .global .surfref canvas;",
        ".visible .global .surfref stack;",
    ] {
        assert!(ptx.lines().any(|line| line.trim() == declaration), "no `{declaration}` in\n{ptx}");
    }
    let lines = instructions(&ptx);
    // Each form with the variable it names (the registers are the back end's own).
    for (form, variable) in [
        ("tex.1d.v4.f32.f32", "image"),
        ("tex.1d.v4.s32.s32", "image"),
        ("tex.2d.v4.f32.f32", "image"),
        ("tex.2d.v4.u32.s32", "image"),
        ("tex.3d.v4.f32.f32", "volume"),
        ("tex.3d.v4.s32.s32", "volume"),
        ("tex.a1d.v4.f32.f32", "layers"),
        ("tex.a2d.v4.u32.f32", "layers"),
        ("tex.level.2d.v4.f32.f32", "image"),
        ("tex.base.1d.v4.f32.f32", "image"),
        ("tld4.r.2d.v4.f32.f32", "image"),
        ("tld4.a.2d.v4.s32.f32", "image"),
        ("txq.width.b32", "image"),
        ("txq.depth.b32", "volume"),
        ("txq.channel_data_type.b32", "image"),
        ("txq.normalized_coords.b32", "image"),
        ("txq.filter_mode.b32", "image"),
        ("txq.addr_mode_1.b32", "image"),
        ("txq.array_size.b32", "layers"),
        ("suq.width.b32", "canvas"),
        ("suq.channel_order.b32", "canvas"),
        ("suq.array_size.b32", "stack"),
        ("suld.b.1d.v4.b32.trap", "canvas"),
        ("suld.b.2d.b8.zero", "canvas"),
        ("suld.b.3d.v2.b16.clamp", "canvas"),
        ("suld.b.a2d.v2.b64.clamp", "stack"),
        ("sust.b.1d.b32.trap", "canvas"),
        ("sust.b.2d.v2.b16.zero", "canvas"),
        ("sust.b.a1d.b64.clamp", "stack"),
        ("sust.p.2d.v4.b32.trap", "canvas"),
        ("sust.p.3d.b32.zero", "canvas"),
    ] {
        assert!(
            lines.iter().any(|line| line.starts_with(&format!("{form} ")) && line.contains(&format!("[{variable}"))),
            "no `{form}` on `{variable}` in\n{ptx}"
        );
    }
    assert_ptxas_accepts(&ptx, "texture_references");
}

/// `.extern` and `.weak` references keep their linkage; ISA 1.x's untyped `.tex` variable is a
/// texture reference; a reference that no instruction uses is still declared, for the host.
#[test]
fn linkage_and_unused_references_are_kept() {
    let ptx = nvptx(
        ".version 7.0
.target sm_80
.address_size 64
.extern .global .texref shared_image;
.weak .global .surfref scratch;
.global .texref unused;
.tex .u32 legacy;
.visible .entry sample(.param .u64 out, .param .f32 x)
{
    .reg .f32 %f<6>;
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [out];
    ld.param.f32 %f1, [x];
    tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [shared_image, {%f1}];
    st.global.f32 [%rd1], %f2;
    tex.1d.v4.f32.f32 {%f2, %f3, %f4, %f5}, [legacy, {%f1}];
    st.global.f32 [%rd1+4], %f2;
    mov.u32 %r2, 0;
    suld.b.1d.b32.trap {%r1}, [scratch, {%r2}];
    st.global.b32 [%rd1+8], %r1;
    ret;
}
",
    );
    for declaration in [
        ".extern .global .texref shared_image;",
        ".weak .global .surfref scratch;",
        ".visible .global .texref unused;",
        ".visible .global .texref legacy;",
    ] {
        assert!(ptx.lines().any(|line| line.trim() == declaration), "no `{declaration}` in\n{ptx}");
    }
    assert!(ptx.contains("[legacy, {") && ptx.contains("[scratch, {"), "{ptx}");
    assert_ptxas_accepts(&ptx, "texture_reference_linkage");
}

#[test]
fn samplers_and_arrays_of_references_are_reported() {
    for (declaration, expected) in
        [(".global .samplerref filter;", "`.samplerref`"), (".global .texref images[2];", "arrays of `.texref`")]
    {
        let source = format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n{declaration}\n.visible .entry empty()\n{{\n    ret;\n}}\n"
        );
        match compile(&source, "nvptx") {
            Compiled::Unsupported(messages) => assert!(
                messages.iter().any(|message| message.contains(expected) && message.contains("nvptx")),
                "{declaration}: {messages:?}"
            ),
            Compiled::Artefact(_) => panic!("{declaration}: compiled for NVPTX"),
            Compiled::Rejected(message) => panic!("{declaration}: rejected: {message}"),
        }
    }
}
