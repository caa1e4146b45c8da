//! Execution of vector operands and data movement on the CPU (ISA 7.8 sections 5.4, 9.7.8):
//! `ld`/`st` `.v2`/`.v4`/`.v8` with lists, sinks and immediates, vector registers and their
//! members, `mov` packing and unpacking, unbracketed `base+offset` operands, `cp.async` with
//! zero fill, and the cache hints. Expected values come from the byte-level models below.
//! The `.b128` register tests also run on SPIR-V through OpenCL where a platform is set up
//! (`OCL_ICD_VENDORS`), where those registers are two `i64` halves.

use ptxr_tests::{opencl, run_ok, Buffer, Launch, Random};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

/// Per thread: 8 input words and 8 output words.
const WORDS: usize = 8;

/// Random words per thread, mixed with float edge patterns (NaN payloads, -0, subnormals,
/// infinities) and integer extremes that a load or store must carry bit for bit.
fn inputs(seed: u64, threads: usize) -> Vec<u32> {
    let mut random = Random::new(seed);
    let mut words = random.u32_with_edges(threads * WORDS);
    let edges = [0x7fc0_0001, 0xffbf_ffff, 0x8000_0000, 0x0000_0001, 0x7f80_0000, 0xff80_0000, 0x8000_0001];
    for (index, edge) in edges.iter().enumerate() {
        words[WORDS + index] = *edge;
    }
    words.truncate(threads * WORDS);
    words
}

fn run_words(kernel: &str, input: &[u32], threads: usize) -> Vec<u32> {
    let result = run_ok(
        kernel,
        &Launch::threads(threads as u32),
        &[Buffer::u32s(input), Buffer::zeroed("u32", threads * WORDS)],
    );
    result[1].iter().map(|&bits| bits as u32).collect()
}

const PROLOGUE: &str = r#"
.version 8.3
.target sm_90
.address_size 64
"#;

/// The per-thread input and output pointers `%rd4` and `%rd5` (32 bytes per thread).
const POINTERS: &str = r#"
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd3, %r0, 32;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd5, %rd2, %rd3;
"#;

fn kernel(declarations: &str, body: &str) -> String {
    format!(
        "{PROLOGUE}{declarations}\n.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n    \
         .reg .u32 %r<16>;\n    .reg .u64 %rd<16>;\n    .reg .u16 %h<10>;\n    .reg .b8 %b<6>;\n    \
         .reg .f32 %f<5>;\n    .reg .pred %p<3>;\n{POINTERS}{body}\n    ret;\n}}\n"
    )
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|word| word.to_le_bytes()).collect()
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|chunk| u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]])).collect()
}

#[test]
fn vector_loads_and_stores_move_every_element() {
    let body = r#"
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4];
    ld.global.v2.u64 {%rd6, %rd7}, [%rd4+16];
    st.global.v4.u32 [%rd5], {%r4, %r3, %r2, %r1};
    st.global.v2.u64 [%rd5+16], {%rd7, %rd6};
"#;
    let threads = 40;
    let input = inputs(1, threads);
    let output = run_words(&kernel("", body), &input, threads);
    for thread in 0..threads {
        let word = |index: usize| input[thread * WORDS + index];
        let expected = [word(3), word(2), word(1), word(0), word(6), word(7), word(4), word(5)];
        assert_eq!(&output[thread * WORDS..][..WORDS], &expected, "thread {thread}");
    }
}

#[test]
fn narrow_vector_elements_sinks_and_immediates() {
    // v8 of bytes into 16-bit registers (zero-extended) and back (truncated); v2.u16 with an
    // immediate element; v4.u8 into 32-bit registers; v4.f32 with sinks, which keeps NaN
    // payloads and signed zeros because nothing is computed.
    let body = r#"
    ld.global.v8.u8 {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8}, [%rd4];
    st.global.v8.u8 [%rd5], {%h8, %h7, %h6, %h5, %h4, %h3, %h2, %h1};
    ld.global.v2.u16 {%h1, %h2}, [%rd4+8];
    st.global.v2.u16 [%rd5+8], {%h2, 0x1234};
    ldu.global.v4.u8 {%r1, %r2, %r3, %r4}, [%rd4+12];
    st.global.v4.u8 [%rd5+12], {%r2, %r3, %r4, %r1};
    ld.global.nc.v4.f32 {%f1, _, %f3, _}, [%rd4+16];
    st.global.v4.f32 [%rd5+16], {%f3, %f1, %f3, %f1};
"#;
    let threads = 40;
    let input = inputs(2, threads);
    let output = run_words(&kernel("", body), &input, threads);
    for thread in 0..threads {
        let words = &input[thread * WORDS..][..WORDS];
        let bytes = bytes_of(words);
        let mut expected = vec![0u8; 32];
        for index in 0..8 {
            expected[index] = bytes[7 - index];
        }
        expected[8..10].copy_from_slice(&bytes[10..12]);
        expected[10..12].copy_from_slice(&0x1234u16.to_le_bytes());
        expected[12..16].copy_from_slice(&[bytes[13], bytes[14], bytes[15], bytes[12]]);
        let mut expected = words_of(&expected);
        expected[4..8].copy_from_slice(&[words[6], words[4], words[6], words[4]]);
        assert_eq!(&output[thread * WORDS..][..WORDS], &expected[..], "thread {thread}");
    }
}

#[test]
fn vector_registers_and_members_are_read_and_written() {
    let declarations = "";
    let body = r#"
    .reg .v4 .u32 %v;
    .reg .v4 .b32 %w;
    .reg .v2 .u64 %q;
    ld.global.v4.u32 %v, [%rd4];
    add.u32 %v.x, %v.y, %v.z;
    shl.b32 %v.w, %v.w, 3;
    mov.v4.u32 %w, %v;
    mov.u32 %r1, %w.r;
    st.global.v4.u32 [%rd5], {%w.a, %w.b, %w.g, %r1};
    ld.global.v2.u64 %q, [%rd4+16];
    mov.b64 %rd6, {%w.x, %w.y};
    xor.b64 %q.y, %q.y, %rd6;
    st.global.v2.u64 [%rd5+16], %q;
"#;
    let threads = 40;
    let input = inputs(3, threads);
    let output = run_words(&kernel(declarations, body), &input, threads);
    for thread in 0..threads {
        let word = |index: usize| input[thread * WORDS + index];
        let x = word(1).wrapping_add(word(2));
        let (y, z, w) = (word(1), word(2), word(3) << 3);
        let packed = u64::from(x) | (u64::from(y) << 32);
        let high = (u64::from(word(6)) | (u64::from(word(7)) << 32)) ^ packed;
        let expected = [w, z, y, x, word(4), word(5), high as u32, (high >> 32) as u32];
        assert_eq!(&output[thread * WORDS..][..WORDS], &expected, "thread {thread}");
    }
}

#[test]
fn vector_moves_read_every_source_before_writing() {
    let body = r#"
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4];
    mov.v4.u32 {%r1, %r2, %r3, %r4}, {%r2, %r3, %r4, %r1};
    mov.v2.u32 {%r1, %r2}, {%r2, %r1};
    st.global.v4.u32 [%rd5], {%r1, %r2, %r3, %r4};
    ld.global.v4.u16 {%h1, %h2, %h3, %h4}, [%rd4+16];
    mov.v4.u16 {%h3, %h4, %h1, %h2}, {%h1, %h2, %h3, %h4};
    st.global.v4.u16 [%rd5+16], {%h1, %h2, %h3, %h4};
"#;
    let threads = 20;
    let input = inputs(4, threads);
    let output = run_words(&kernel("", body), &input, threads);
    for thread in 0..threads {
        let word = |index: usize| input[thread * WORDS + index];
        let (low, high) = (word(4), word(5));
        let expected = [word(2), word(1), word(3), word(0), high, low, 0, 0];
        assert_eq!(&output[thread * WORDS..][..WORDS], &expected, "thread {thread}");
    }
}

/// The model of the packing kernel: each `mov` of it, on plain integers.
fn pack_model(words: &[u32]) -> [u32; WORDS] {
    let (r1, r2, r3, r4) = (words[0], words[1], words[2], words[3]);
    let r5 = r1.rotate_left(16);
    let rd6 = u64::from(r2) | (u64::from(r3) << 32);
    let halves: Vec<u64> = (0..4).map(|index| (rd6 >> (16 * index)) & 0xffff).collect();
    let rd7 = halves[3] | (halves[2] << 16) | (halves[1] << 32) | (halves[0] << 48);
    let r8 = r4.swap_bytes();
    let r9 = 0x5678 | ((halves[0] as u32) << 16);
    let (b1, b2) = (r4 & 0xff, (r4 >> 8) & 0xff);
    let h5 = b2 | (b1 << 8);
    [r5, rd7 as u32, (rd7 >> 32) as u32, r8, r9, h5, rd7 as u32, (rd7 >> 32) as u32]
}

#[test]
fn mov_packs_and_unpacks_with_the_first_element_lowest() {
    let body = r#"
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd4];
    mov.b32 {%h1, %h2}, %r1;
    mov.b32 %r5, {%h2, %h1};
    mov.b64 %rd6, {%r2, %r3};
    mov.b64 {%h1, %h2, %h3, %h4}, %rd6;
    mov.b64 %rd7, {%h4, %h3, %h2, %h1};
    mov.b64 {%r6, _}, %rd7;
    mov.b64 {_, %r7}, %rd7;
    mov.b32 {%b1, %b2, %b3, %b4}, %r4;
    mov.b32 %r8, {%b4, %b3, %b2, %b1};
    mov.b32 %r9, {0x5678, %h1};
    mov.b16 %h5, {%b2, %b1};
    cvt.u32.u16 %r10, %h5;
    st.global.v4.u32 [%rd5], {%r5, %r6, %r7, %r8};
    st.global.v2.u32 [%rd5+16], {%r9, %r10};
    st.global.u64 [%rd5+24], %rd7;
"#;
    let threads = 64;
    let input = inputs(5, threads);
    let output = run_words(&kernel("", body), &input, threads);
    for thread in 0..threads {
        let expected = pack_model(&input[thread * WORDS..][..WORDS]);
        assert_eq!(&output[thread * WORDS..][..WORDS], &expected, "thread {thread}");
    }
}

#[test]
fn unbracketed_offsets_add_to_registers_and_addresses() {
    let declarations = ".global .align 8 .u64 table[4] = {10, 20, 30, 40};";
    let body = r#"
    .local .align 8 .b8 scratch[16];
    ld.global.u64 %rd6, [%rd4];
    st.local.u64 [scratch+8], %rd6 + 1;
    ld.local.u64 %rd7, [scratch+8];
    mov.u64 %rd8, table+16;
    ld.global.u64 %rd9, [%rd8];
    ld.global.u64 %rd10, [table+24];
    add.u64 %rd9, %rd9, %rd10;
    cvt.u32.u64 %r1, %rd6;
    mov.u32 %r2, %r1 - 1;
    st.global.v2.u64 [%rd5], {%rd7, %rd9};
    st.global.u32 [%rd5+16], %r2;
"#;
    let threads = 16;
    let input = inputs(6, threads);
    let output = run_words(&kernel(declarations, body), &input, threads);
    for thread in 0..threads {
        let word = |index: usize| input[thread * WORDS + index];
        let value = u64::from(word(0)) | (u64::from(word(1)) << 32);
        let plus_one = value.wrapping_add(1);
        let expected = [plus_one as u32, (plus_one >> 32) as u32, 70, 0, word(0).wrapping_sub(1), 0, 0, 0];
        assert_eq!(&output[thread * WORDS..][..WORDS], &expected, "thread {thread}");
    }
}

#[test]
fn cp_async_copies_and_fills_with_zeros_past_the_source_size() {
    let declarations = "";
    let body = r#"
    .shared .align 16 .b8 staging[1024];
    mov.u32 %r1, staging;
    mul.lo.u32 %r2, %r0, 16;
    add.u32 %r3, %r1, %r2;
    rem.u32 %r4, %r0, 17;
    cp.async.cg.shared.global [%r3], [%rd4], 16, %r4;
    cp.async.commit_group;
    cp.async.wait_group 0;
    ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r3];
    st.global.v4.u32 [%rd5], {%r5, %r6, %r7, %r8};
    and.b32 %r9, %r0, 1;
    setp.eq.u32 %p1, %r9, 1;
    cp.async.ca.shared.global [%r3], [%rd4+16], 8, %p1;
    cp.async.ca.shared.global [%r3+8], [%rd4+24], 4, 2;
    cp.async.wait_all;
    ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%r3];
    st.global.v4.u32 [%rd5+16], {%r5, %r6, %r7, %r8};
"#;
    let threads = 64;
    let input = inputs(7, threads);
    let output = run_words(&kernel(declarations, body), &input, threads);
    for thread in 0..threads {
        let words = &input[thread * WORDS..][..WORDS];
        let bytes = bytes_of(words);
        let source_size = thread % 17;
        let mut first: Vec<u8> = (0..16).map(|index| if index < source_size { bytes[index] } else { 0 }).collect();
        let mut second = first.clone();
        let ignore = thread % 2 == 1;
        for index in 0..8 {
            second[index] = if ignore { 0 } else { bytes[16 + index] };
        }
        for index in 0..4 {
            second[8 + index] = if index < 2 { bytes[24 + index] } else { 0 };
        }
        first.extend(second);
        assert_eq!(&output[thread * WORDS..][..WORDS], &words_of(&first)[..], "thread {thread}");
    }
}

#[test]
fn cache_hints_and_function_globals_leave_values_unchanged() {
    let body = r#"
    .global .align 4 .u32 lookup[4] = {3, 5, 7, 11};
    .reg .b64 %policy<3>;
    createpolicy.fractional.L2::evict_last.b64 %policy1, 1.0;
    createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %policy2;
    prefetch.global.L2 [%rd4];
    prefetchu.L1 [%rd4];
    and.b32 %r1, %r0, 3;
    mul.wide.u32 %rd6, %r1, 4;
    mov.u64 %rd7, lookup;
    add.u64 %rd7, %rd7, %rd6;
    ld.global.L2::cache_hint.u32 %r2, [%rd7], %policy1;
    ld.global.u32 %r3, [%rd4];
    add.u32 %r2, %r2, %r3;
    st.global.L2::cache_hint.u32 [%rd5], %r2, %policy2;
"#;
    let threads = 16;
    let input = inputs(8, threads);
    let output = run_words(&kernel("", body), &input, threads);
    for thread in 0..threads {
        let expected = [3u32, 5, 7, 11][thread % 4].wrapping_add(input[thread * WORDS]);
        assert_eq!(output[thread * WORDS], expected, "thread {thread}");
    }
}

#[test]
fn initializers_store_addresses_of_earlier_and_later_variables() {
    let declarations = r#"
.global .align 4 .u32 bar[3] = {2, 3, 5};
.const .align 4 .u32 foo = 42;
.global .align 8 .u64 pointers[4] = { generic(bar), generic(bar)+4, bar+8, foo };
.global .align 8 .u64 later = generic(after)-4;
.global .align 4 .u32 after[2] = {7, 11};"#;
    // Each thread reads through the stored pointer its index selects, so every address is
    // dereferenced.
    let body = r#"
    and.b32 %r1, %r0, 3;
    mul.wide.u32 %rd6, %r1, 8;
    mov.u64 %rd7, pointers;
    add.u64 %rd7, %rd7, %rd6;
    ld.global.u64 %rd8, [%rd7];
    setp.eq.u32 %p1, %r1, 3;
    @%p1 ld.const.u32 %r2, [%rd8];
    @!%p1 ld.u32 %r2, [%rd8];
    ld.global.u64 %rd9, [later];
    ld.u32 %r3, [%rd9+4];
    st.global.v2.u32 [%rd5], {%r2, %r3};
"#;
    let threads = 8;
    let input = inputs(9, threads);
    let output = run_words(&kernel(declarations, body), &input, threads);
    for thread in 0..threads {
        let expected = [[2u32, 3, 5, 42][thread % 4], 7];
        assert_eq!(&output[thread * WORDS..][..2], &expected, "thread {thread}");
    }
}

#[test]
fn initializers_store_addresses_of_functions_for_indirect_calls() {
    // nvcc's `-rdc=true` table of device function pointers: `triple` declared by a prototype
    // before the table and defined after it, `negate` defined before it.
    let declarations = r#"
.visible .func (.param .b32 result) triple (.param .b32 value);
.visible .func (.param .b32 result) negate (.param .b32 value)
{
    .reg .b32 %v<3>;
    ld.param.b32 %v1, [value];
    neg.s32 %v2, %v1;
    st.param.b32 [result], %v2;
    ret;
}
.visible .global .align 8 .u64 table[3] = {triple, negate, triple};
.visible .func (.param .b32 result) triple (.param .b32 value)
{
    .reg .b32 %v<3>;
    ld.param.b32 %v1, [value];
    mul.lo.s32 %v2, %v1, 3;
    st.param.b32 [result], %v2;
    ret;
}"#;
    let body = r#"
    ld.global.u32 %r1, [%rd4];
    rem.u32 %r2, %r0, 3;
    mul.wide.u32 %rd6, %r2, 8;
    mov.u64 %rd7, table;
    add.u64 %rd7, %rd7, %rd6;
    ld.global.u64 %rd8, [%rd7];
    {
    .param .b32 argument;
    st.param.b32 [argument], %r1;
    .param .b32 returned;
    prototype: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (returned), %rd8, (argument), prototype;
    ld.param.b32 %r3, [returned];
    }
    st.global.u32 [%rd5], %r3;
"#;
    let threads = 9;
    let input = inputs(11, threads);
    let output = run_words(&kernel(declarations, body), &input, threads);
    for thread in 0..threads {
        let value = input[thread * WORDS];
        let expected = if thread % 3 == 1 { value.wrapping_neg() } else { value.wrapping_mul(3) };
        assert_eq!(output[thread * WORDS], expected, "thread {thread}");
    }
}

#[test]
fn variables_of_32_bit_modules_have_32_bit_addresses() {
    // With `.address_size 32`, `mov.u32 %r, table` is the whole address: the JIT places the
    // module's variables below 4 GiB, like the launch's buffers.
    let kernel = r#"
.version 7.8
.target sm_80
.address_size 32
.global .align 16 .u32 table[4] = {3, 5, 7, 11};
.const .align 4 .u32 scale = 10;
.visible .entry test(.param .u32 input, .param .u32 output)
{
    .reg .u32 %r<12>;
    ld.param.u32 %r1, [input];
    ld.param.u32 %r2, [output];
    mov.u32 %r0, %tid.x;
    shl.b32 %r3, %r0, 2;
    add.u32 %r4, %r1, %r3;
    add.u32 %r5, %r2, %r3;
    mov.u32 %r6, table;
    ld.global.v4.u32 {%r7, %r8, %r9, %r10}, [%r6];
    add.u32 %r7, %r7, %r10;
    mov.u32 %r6, scale;
    ld.const.u32 %r11, [%r6];
    ld.global.u32 %r8, [%r4];
    mad.lo.u32 %r8, %r8, %r11, %r7;
    st.global.u32 [%r5], %r8;
    ret;
}
"#;
    let input: Vec<u32> = Random::new(10).u32_with_edges(16);
    let threads = input.len();
    let result =
        run_ok(kernel, &Launch::threads(threads as u32), &[Buffer::u32s(&input), Buffer::zeroed("u32", threads)]);
    for (thread, &value) in input.iter().enumerate() {
        assert_eq!(result[1][thread] as u32, value.wrapping_mul(10).wrapping_add(14), "thread {thread}");
    }
}

#[test]
fn ordered_accesses_address_conversions_and_isspacep() {
    // `ld.acquire`/`st.release`/`.relaxed` move the same bits as plain accesses; `cvta` round
    // trips through generic addresses of shared, local and constant variables; `isspacep.shared`
    // holds exactly for addresses inside the block's shared memory.
    let declarations = ".const .align 4 .u32 constants[2] = {100, 200};";
    let body = r#"
    .shared .align 4 .b32 tile[64];
    .local .align 4 .b32 scratch[2];
    ld.acquire.gpu.global.u32 %r1, [%rd4];
    ld.relaxed.sys.global.v2.u32 {%r2, %r3}, [%rd4+8];
    st.release.cta.global.u32 [%rd5], %r1;
    st.relaxed.gpu.global.v2.u32 [%rd5+4], {%r3, %r2};
    mov.u64 %rd6, tile;
    mul.wide.u32 %rd7, %r0, 4;
    add.u64 %rd6, %rd6, %rd7;
    cvta.shared.u64 %rd8, %rd6;
    st.u32 [%rd8], %r1;
    cvta.to.shared.u64 %rd9, %rd8;
    ld.shared.u32 %r4, [%rd9];
    isspacep.shared %p1, %rd8;
    isspacep.shared %p2, %rd4;
    selp.u32 %r5, 1, 0, %p1;
    selp.u32 %r6, 2, 0, %p2;
    or.b32 %r5, %r5, %r6;
    mov.u64 %rd10, scratch;
    cvta.local.u64 %rd11, %rd10;
    st.u32 [%rd11+4], %r4;
    ld.local.u32 %r7, [scratch+4];
    mov.u64 %rd12, constants;
    cvta.const.u64 %rd13, %rd12;
    ld.u32 %r8, [%rd13+4];
    add.u32 %r7, %r7, %r8;
    st.global.v2.u32 [%rd5+12], {%r5, %r7};
"#;
    let threads = 32;
    let input = inputs(11, threads);
    let output = run_words(&kernel(declarations, body), &input, threads);
    for thread in 0..threads {
        let word = |index: usize| input[thread * WORDS + index];
        let expected = [word(0), word(3), word(2), 1, word(0).wrapping_add(200), 0, 0, 0];
        assert_eq!(&output[thread * WORDS..][..WORDS], &expected, "thread {thread}");
    }
}

#[test]
fn isspacep_global_holds_for_launch_buffers_module_globals_and_the_heap_only() {
    // On the CPU, global memory is what the launch allocated (its buffers, the `malloc` heap)
    // and the module's `.global` variables; shared, local and constant variables, and any other
    // address, are not global. Each bit of the result is one address's answer.
    let declarations = ".const .align 4 .u32 constants[2] = {100, 200};\n\
        .global .align 4 .u32 counters[4];\n\
        .extern .func (.param .b64 func_retval0) malloc(.param .b64 size);";
    let addresses = r#"
    .shared .align 4 .b32 tile[64];
    .local .align 4 .b32 scratch[2];
    .reg .pred %q<10>;
    st.local.u32 [scratch], %r0;
    isspacep.global %q1, %rd4;
    add.u64 %rd6, %rd5, 28;
    isspacep.global %q2, %rd6;
    mov.u64 %rd7, counters;
    cvta.global.u64 %rd7, %rd7;
    add.u64 %rd7, %rd7, 12;
    isspacep.global %q3, %rd7;
    {
    .param .b64 size;
    .param .b64 func_retval0;
    st.param.b64 [size], 64;
    call.uni (func_retval0), malloc, (size);
    ld.param.b64 %rd8, [func_retval0];
    }
    isspacep.global %q4, %rd8;
    mov.u64 %rd9, tile;
    cvta.shared.u64 %rd9, %rd9;
    isspacep.global %q5, %rd9;
    mov.u64 %rd10, scratch;
    cvta.local.u64 %rd10, %rd10;
    isspacep.global %q6, %rd10;
    mov.u64 %rd11, constants;
    cvta.const.u64 %rd11, %rd11;
    isspacep.global %q7, %rd11;
    mov.u64 %rd12, 0;
    isspacep.global %q8, %rd12;
    isspacep.shared %q9, %rd7;
"#;
    // Bit `n - 1` of the result is `%qn`.
    let bits: String = (1..=9)
        .map(|bit| format!("    selp.u32 %r6, {}, 0, %q{bit};\n    or.b32 %r5, %r5, %r6;\n", 1 << (bit - 1)))
        .collect();
    let body = format!("{addresses}    mov.u32 %r5, 0;\n{bits}    st.global.u32 [%rd5], %r5;\n");
    let threads = 8;
    let output = run_words(&kernel(declarations, &body), &inputs(13, threads), threads);
    for thread in 0..threads {
        // Global: the input word, the output's last word, `counters[3]`, the heap block.
        assert_eq!(output[thread * WORDS], 0b0000_1111, "thread {thread}");
    }
}

#[test]
fn b128_registers_pack_and_unpack_64_bit_halves() {
    let body = r#"
    .reg .b128 %q;
    ld.global.v2.u64 {%rd6, %rd7}, [%rd4];
    mov.b128 %q, {%rd6, %rd7};
    mov.b128 {%rd8, %rd9}, %q;
    mov.b128 {%r1, %r2, %r3, %r4}, %q;
    st.global.v2.u64 [%rd5], {%rd9, %rd8};
    st.global.v4.u32 [%rd5+16], {%r4, %r3, %r2, %r1};
"#;
    let threads = 16;
    let input = inputs(12, threads);
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", threads * WORDS)];
    let launch = Launch::threads(threads as u32);
    for (device, result) in opencl::run_everywhere(&kernel("", body), &launch, &buffers, OPENCL_CHILD) {
        let output: Vec<u32> = result[1].iter().map(|&bits| bits as u32).collect();
        check_packed_halves(&input, &output, threads, device);
    }
}

/// The model of [`b128_registers_pack_and_unpack_64_bit_halves`]: the thread's 16 input bytes as
/// one 128-bit value, its 64-bit halves stored swapped, then its 32-bit quarters reversed.
fn check_packed_halves(input: &[u32], output: &[u32], threads: usize, device: &str) {
    for thread in 0..threads {
        let word = |index: usize| input[thread * WORDS + index];
        let value = u128::from(word(0))
            | (u128::from(word(1)) << 32)
            | (u128::from(word(2)) << 64)
            | (u128::from(word(3)) << 96);
        let part = |index: u32| (value >> (32 * index)) as u32;
        let expected = [part(2), part(3), part(0), part(1), part(3), part(2), part(1), part(0)];
        assert_eq!(&output[thread * WORDS..][..WORDS], &expected, "{device}: thread {thread}");
    }
}

/// `.b128` through every place a register's value can go (ISA 8.3): `ld`/`st` in `.global`,
/// `.shared` (read back by the mirrored thread after `bar.sync`), `.local` and `.param`, `mov`
/// between `.b128` registers, and a `.func` that takes and returns a `.param .b128` and swaps
/// its halves with packing `mov`s.
#[test]
fn b128_registers_move_through_every_state_space_and_a_call() {
    let source = format!(
        "{PROLOGUE}\
.func (.param .b128 result) swap_halves(.param .b128 value)
{{
    .reg .b128 %v;
    .reg .b64 %low, %high;
    ld.param.b128 %v, [value];
    mov.b128 {{%low, %high}}, %v;
    mov.b128 %v, {{%high, %low}};
    st.param.b128 [result], %v;
    ret;
}}
.visible .entry test(.param .u64 input, .param .u64 output)
{{
    .reg .u32 %r<2>;
    .reg .u64 %rd<8>;
    .reg .b128 %q<5>;
    .shared .align 16 .b8 tile[{TILE}];
    .local .align 16 .b8 scratch[16];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd3, %r0, 16;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd5, %rd2, %rd3;
    ld.global.b128 %q0, [%rd4];
    mov.u64 %rd6, tile;
    add.u64 %rd6, %rd6, %rd3;
    st.shared.b128 [%rd6], %q0;
    bar.sync 0;
    mov.u32 %r1, {LAST};
    sub.u32 %r1, %r1, %r0;
    mul.wide.u32 %rd7, %r1, 16;
    mov.u64 %rd6, tile;
    add.u64 %rd6, %rd6, %rd7;
    ld.shared.b128 %q1, [%rd6];
    st.local.b128 [scratch], %q1;
    ld.local.b128 %q2, [scratch];
    mov.b128 %q3, %q2;
    {{
    .param .b128 value;
    .param .b128 result;
    st.param.b128 [value], %q3;
    call.uni (result), swap_halves, (value);
    ld.param.b128 %q4, [result];
    }}
    st.global.b128 [%rd5], %q4;
    ret;
}}
",
        TILE = 16 * MIRRORED_THREADS,
        LAST = MIRRORED_THREADS - 1,
    );
    let mut random = Random::new(1128);
    let input: Vec<u64> = (0..2 * MIRRORED_THREADS).map(|_| random.next_u64()).collect();
    let value = |thread: usize| u128::from(input[2 * thread]) | (u128::from(input[2 * thread + 1]) << 64);
    // Thread t stores the value of thread LAST - t with its halves swapped.
    let model: Vec<u64> = (0..MIRRORED_THREADS)
        .flat_map(|thread| {
            let mirrored = value(MIRRORED_THREADS - 1 - thread);
            let swapped = mirrored.rotate_left(64);
            [swapped as u64, (swapped >> 64) as u64]
        })
        .collect();
    let buffers = [Buffer::u64s(&input), Buffer::zeroed("u64", 2 * MIRRORED_THREADS)];
    let launch = Launch::threads(MIRRORED_THREADS as u32);
    for (device, result) in opencl::run_everywhere(&source, &launch, &buffers, OPENCL_CHILD) {
        assert_eq!(result[1], model, "{device}");
    }
}

/// The threads of [`b128_registers_move_through_every_state_space_and_a_call`]'s one block.
const MIRRORED_THREADS: usize = 64;

#[test]
fn ordered_vectors_of_64_bits_are_one_atomic_access() {
    // CUB's decoupled look-back publishes a tile's status and value with one
    // `st.relaxed.gpu.v2.u32` and reads them with one `ld.relaxed.gpu.v2.u32`: lowered element
    // by element, a reader could see the new status with the old value. One 64-bit atomic access
    // is one of the orders the ISA allows (8.2.3) and the one GPUs make.
    let body = r#"
    ld.relaxed.gpu.global.v2.u32 {%r1, %r2}, [%rd4];
    st.relaxed.gpu.global.v2.u32 [%rd5], {%r2, %r1};
    ld.acquire.gpu.global.v2.f32 {%f1, %f2}, [%rd4];
    st.release.gpu.global.v2.f32 [%rd5+8], {%f2, %f1};
    ld.relaxed.gpu.global.v4.u16 {%h1, %h2, %h3, %h4}, [%rd4];
    st.relaxed.gpu.global.v4.u16 [%rd5+16], {%h4, %h3, %h2, %h1};
    ld.relaxed.gpu.global.v4.u32 {%r3, %r4, %r5, %r6}, [%rd4];
    st.global.u32 [%rd5+24], %r6;
"#;
    let ptx = kernel("", body);
    let ir = ptxr_tests::cpu_llvm_ir(&ptx, 0);
    let count = |pattern: &str| ir.matches(pattern).count();
    // The three 64-bit vectors each way as one access; the 128-bit load element by element.
    assert_eq!((count("load atomic i64"), count("store atomic i64")), (3, 3), "{ir}");
    assert_eq!((count("load atomic i32"), count("store atomic i32")), (4, 0), "{ir}");
    // The elements keep their places, the first lowest.
    let threads = 2;
    let input = inputs(12, threads);
    let output = run_words(&ptx, &input, threads);
    for thread in 0..threads {
        let words = &input[thread * WORDS..];
        let (first, second) = (words[0], words[1]);
        let expected = [second, first, second, first, second.rotate_left(16), first.rotate_left(16), words[3], 0];
        assert_eq!(output[thread * WORDS..][..WORDS], expected, "thread {thread}");
    }
}
