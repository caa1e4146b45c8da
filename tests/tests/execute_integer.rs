//! Execution of the integer, bit-manipulation, logic, selection, extended-precision and video
//! instructions on the CPU (ISA 7.8 sections 9.7.1, 9.7.2, 9.7.5.4, 9.7.7, 9.7.8.7, 9.7.8.19 and 9.7.15), compared with
//! models written here from the ISA's pseudo-code: loops over bits where the ISA loops, `u128`
//! for carries and wide products, `i64` for video intermediates.

use ptxr_tests::{run_ok, Buffer, Launch, Random};

/// Each thread loads `inputs` words of `element` (`u32` or `u64`) into `%a0..`, runs `body`, and
/// stores `outputs` words from `%d0..`. Returns each thread's outputs.
fn run_rows(element: &'static str, declarations: &str, body: &str, rows: &[Vec<u64>], outputs: usize) -> Vec<Vec<u64>> {
    run_rows_at_version("7.8 sm_80", element, declarations, body, rows, outputs)
}

/// `run_rows` in a module of PTX ISA version and target `header` (`"8.2 sm_80"`), for forms
/// newer than ISA 7.8 or sm_80.
fn run_rows_at_version(
    header: &str,
    element: &'static str,
    declarations: &str,
    body: &str,
    rows: &[Vec<u64>],
    outputs: usize,
) -> Vec<Vec<u64>> {
    let (version, target) = header.split_once(' ').unwrap_or((header, "sm_80"));
    run_rows_at(target, version, element, declarations, body, rows, outputs)
}

/// `run_rows` in a module of PTX ISA `version` for `.target target`.
fn run_rows_at(
    target: &str,
    version: &str,
    element: &'static str,
    declarations: &str,
    body: &str,
    rows: &[Vec<u64>],
    outputs: usize,
) -> Vec<Vec<u64>> {
    let inputs = rows.first().map_or(0, Vec::len);
    let (bytes, register) = if element == "u64" { (8, "b64") } else { (4, "b32") };
    let mut ptx = format!(
        ".version {version}\n.target {target}\n.address_size 64\n.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n\
         .reg .{register} %a<{}>;\n.reg .{register} %d<{}>;\n.reg .u64 %rd<6>;\n.reg .u32 %thread;\n{declarations}\n\
         ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %thread, %tid.x;\n\
         mul.wide.u32 %rd3, %thread, {};\nadd.u64 %rd4, %rd1, %rd3;\nmul.wide.u32 %rd3, %thread, {};\nadd.u64 %rd5, %rd2, %rd3;\n",
        inputs.max(1),
        outputs,
        inputs * bytes,
        outputs * bytes,
    );
    for index in 0..inputs {
        ptx.push_str(&format!("ld.global.{element} %a{index}, [%rd4+{}];\n", index * bytes));
    }
    ptx.push_str(body);
    ptx.push('\n');
    for index in 0..outputs {
        ptx.push_str(&format!("st.global.{element} [%rd5+{}], %d{index};\n", index * bytes));
    }
    ptx.push_str("ret;\n}\n");
    let flat: Vec<u64> = rows.iter().flatten().copied().collect();
    let result = run_ok(
        &ptx,
        &Launch::threads(rows.len() as u32),
        &[Buffer::new(element, flat), Buffer::zeroed(element, rows.len() * outputs)],
    );
    result[1].chunks(outputs).map(<[u64]>::to_vec).collect()
}

/// Bit positions and lengths worth trying: around the widths, past the 8-bit mask, random.
fn position(random: &mut Random) -> u64 {
    const EDGES: [u64; 16] = [0, 1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 255, 256, 257, 0xffff_ffff];
    let pick = random.next_u32() as usize;
    if pick % 3 == 0 {
        u64::from(random.next_u32() % 80)
    } else {
        EDGES[pick % EDGES.len()]
    }
}

/// `count` 32-bit words, each an edge value (0, 1, INT_MAX, INT_MIN, all ones...) a third of
/// the time and random otherwise.
fn words_with_edges(random: &mut Random, count: usize) -> Vec<u64> {
    let edges = random.u32_with_edges(0);
    (0..count)
        .map(|_| {
            let pick = random.next_u32() as usize;
            if pick % 3 == 0 {
                u64::from(edges[pick / 3 % edges.len()])
            } else {
                u64::from(random.next_u32())
            }
        })
        .collect()
}

// ---- Extended precision: carry chains ----------------------------------------------------

/// `a + b` over `limbs` words with `add.cc`, `addc.cc`... `addc`, and a final `addc 0, 0` that
/// reads the carry out.
fn addition_chain(limbs: usize, subtract: bool, element: &'static str) -> String {
    let (first, rest) = if subtract { ("sub.cc", "subc") } else { ("add.cc", "addc") };
    let mut body = String::new();
    for limb in 0..limbs {
        let opcode = match limb {
            0 => first.to_string(),
            _ => format!("{rest}.cc"),
        };
        body.push_str(&format!("{opcode}.{element} %d{limb}, %a{limb}, %a{};\n", limb + limbs));
    }
    body.push_str(&format!("addc.{element} %d{limbs}, 0, 0;\n"));
    body
}

fn check_chain(limbs: usize, subtract: bool, element: &'static str, seed: u64) {
    let bits = if element == "u64" { 64 } else { 32 };
    let mask = if bits == 64 { u64::MAX } else { 0xffff_ffff };
    let mut random = Random::new(seed);
    let edges = [0, 1, mask, mask - 1, mask >> 1, (mask >> 1) + 1];
    let rows: Vec<Vec<u64>> = (0..96)
        .map(|row| {
            (0..2 * limbs)
                .map(|limb| {
                    // Early rows are all-edge numbers that ripple carries the whole way.
                    if row < 36 {
                        edges[(row / 6 + limb * (row % 6)) % edges.len()]
                    } else {
                        random.next_u64() & mask
                    }
                })
                .collect()
        })
        .collect();
    let results = run_rows(element, "", &addition_chain(limbs, subtract, element), &rows, limbs + 1);
    for (row, result) in rows.iter().zip(&results) {
        // Model: limb by limb with a u128 accumulator. The flag after `sub.cc`/`subc.cc` is
        // the carry of `a + ~b + carry` (1 when nothing was borrowed), as on NVIDIA GPUs.
        let mut carry: u128 = u128::from(subtract);
        for limb in 0..limbs {
            let (a, b) = (u128::from(row[limb]), u128::from(row[limb + limbs]));
            let addend = if subtract { !b & u128::from(mask) } else { b };
            let sum = a + addend + carry;
            assert_eq!(result[limb], (sum as u64) & mask, "limb {limb} of {row:x?} (subtract: {subtract})");
            carry = sum >> bits;
        }
        assert_eq!(result[limbs], carry as u64, "carry out of {row:x?} (subtract: {subtract})");
    }
}

#[test]
fn carry_chains_of_several_lengths_add_and_subtract_multiword_integers() {
    for (index, limbs) in [1, 2, 3, 4, 8].into_iter().enumerate() {
        check_chain(limbs, false, "u32", index as u64);
        check_chain(limbs, true, "u32", 10 + index as u64);
    }
    check_chain(4, false, "u64", 20);
    check_chain(4, true, "u64", 21);
}

#[test]
fn the_carry_flag_survives_a_branch_and_a_guard() {
    // The 64-bit sum's low word is added in one block, the high word in another reached by a
    // branch; a guarded `addc.cc` that does not run leaves the flag alone.
    let body = "
        .reg .pred %p;
        add.cc.u32 %d0, %a0, %a2;
        setp.ne.u32 %p, %a4, 0;
        @%p bra SKIP;
        add.u32 %d3, %d3, 0;
    SKIP:
        addc.cc.u32 %d1, %a1, %a3;
        @!%p addc.cc.u32 %d3, 0, 0;
        addc.u32 %d2, 0, 0;";
    let mut random = Random::new(3);
    let rows: Vec<Vec<u64>> = (0..64)
        .map(|row| {
            let mut words = words_with_edges(&mut random, 4);
            if row % 4 == 0 {
                words = vec![0xffff_ffff, 0xffff_ffff, 1, 0];
            }
            words.push(u64::from(row % 2 == 0));
            words
        })
        .collect();
    let results = run_rows("u32", "", body, &rows, 4);
    for (row, result) in rows.iter().zip(&results) {
        let a = u128::from(row[0]) | (u128::from(row[1]) << 32);
        let b = u128::from(row[2]) | (u128::from(row[3]) << 32);
        let sum = a + b;
        assert_eq!(result[0], (sum as u64) & 0xffff_ffff, "{row:x?}");
        assert_eq!(result[1], (sum >> 32) as u64 & 0xffff_ffff, "{row:x?}");
        // Guard false (`%p` set): the flag is the carry out of the high word.
        let carry = (sum >> 64) as u64;
        if row[4] != 0 {
            assert_eq!(result[2], carry, "{row:x?}");
        } else {
            // Guard true: `addc.cc 0, 0` consumed the carry and left a clear flag.
            assert_eq!(result[3], carry, "{row:x?}");
            assert_eq!(result[2], 0, "{row:x?}");
        }
    }
}

#[test]
fn madc_chains_multiply_multiword_integers() {
    // The ISA's example: [d3, d2, d1, d0] = [a1, a0] * [a3, a2] with 32-bit words.
    let body = "
        mul.lo.u32 %d0, %a0, %a2;
        mul.hi.u32 %d1, %a0, %a2;
        mad.lo.cc.u32 %d1, %a1, %a2, %d1;
        madc.hi.u32 %d2, %a1, %a2, 0;
        mad.lo.cc.u32 %d1, %a0, %a3, %d1;
        madc.hi.cc.u32 %d2, %a0, %a3, %d2;
        addc.u32 %d3, 0, 0;
        mad.lo.cc.u32 %d2, %a1, %a3, %d2;
        madc.hi.u32 %d3, %a1, %a3, %d3;";
    let mut random = Random::new(4);
    let mut rows: Vec<Vec<u64>> = (0..100).map(|_| words_with_edges(&mut random, 4)).collect();
    rows.push(vec![0xffff_ffff; 4]);
    rows.push(vec![0; 4]);
    let results = run_rows("u32", "", body, &rows, 4);
    for (row, result) in rows.iter().zip(&results) {
        let a = u128::from(row[0]) | (u128::from(row[1]) << 32);
        let b = u128::from(row[2]) | (u128::from(row[3]) << 32);
        let product = a * b;
        let words: Vec<u64> = (0..4).map(|word| ((product >> (32 * word)) as u64) & 0xffff_ffff).collect();
        assert_eq!(result, &words, "{a:#x} * {b:#x}");
    }
}

#[test]
fn sixty_four_bit_mad_with_carry_takes_the_high_half_of_the_128_bit_product() {
    let body = "
        mad.hi.cc.u64 %d0, %a0, %a1, %a2;
        madc.lo.cc.u64 %d1, %a0, %a1, %a2;
        madc.hi.s64 %d2, %a0, %a1, %a2;
        mul.hi.s64 %d3, %a0, %a1;
        mul.hi.u64 %d4, %a0, %a1;";
    let mut random = Random::new(5);
    let values = random.u64_with_edges(40);
    let rows: Vec<Vec<u64>> =
        (0..120).map(|row| vec![values[row % 40], values[(row * 7 + 3) % 40], values[(row * 13 + 1) % 40]]).collect();
    let results = run_rows("u64", "", body, &rows, 5);
    for (row, result) in rows.iter().zip(&results) {
        let (a, b, c) = (row[0], row[1], row[2]);
        let unsigned_high = ((u128::from(a) * u128::from(b)) >> 64) as u64;
        let signed_high = ((i128::from(a as i64) * i128::from(b as i64)) >> 64) as u64;
        let first = u128::from(unsigned_high) + u128::from(c);
        assert_eq!(result[0], first as u64, "{row:x?}");
        let second = u128::from(a.wrapping_mul(b)) + u128::from(c) + (first >> 64);
        assert_eq!(result[1], second as u64, "{row:x?}");
        let third = signed_high.wrapping_add(c).wrapping_add((second >> 64) as u64);
        assert_eq!(result[2], third, "{row:x?}");
        assert_eq!(result[3], signed_high, "{row:x?}");
        assert_eq!(result[4], unsigned_high, "{row:x?}");
    }
}

#[test]
fn sub_cc_leaves_the_hardware_carry_for_addc() {
    // `sub.cc` then `addc 0, 0` reads 1 exactly when nothing was borrowed.
    let body = "sub.cc.u32 %d0, %a0, %a1;\naddc.u32 %d1, 0, 0;";
    let mut random = Random::new(6);
    let rows: Vec<Vec<u64>> = (0..64).map(|_| words_with_edges(&mut random, 2)).collect();
    let results = run_rows("u32", "", body, &rows, 2);
    for (row, result) in rows.iter().zip(&results) {
        assert_eq!(result[0], row[0].wrapping_sub(row[1]) & 0xffff_ffff);
        assert_eq!(result[1], u64::from(row[0] >= row[1]), "{row:x?}");
    }
}

// ---- Bit fields ----------------------------------------------------------------------------

fn bit_field_extract_model(a: u64, position: u64, length: u64, bits: u64, signed: bool) -> u64 {
    let msb = bits - 1;
    let (position, length) = (position & 0xff, length & 0xff);
    let sign = if !signed || length == 0 { 0 } else { (a >> (position + length - 1).min(msb)) & 1 };
    let mut result = 0;
    for index in 0..=msb {
        let bit = if index < length && position + index <= msb { (a >> (position + index)) & 1 } else { sign };
        result |= bit << index;
    }
    result
}

fn bit_field_insert_model(a: u64, b: u64, position: u64, length: u64, bits: u64) -> u64 {
    let msb = bits - 1;
    let (position, length) = (position & 0xff, length & 0xff);
    let mut result = b;
    let mut index = 0;
    while index < length && position + index <= msb {
        result = (result & !(1 << (position + index))) | (((a >> index) & 1) << (position + index));
        index += 1;
    }
    result
}

#[test]
fn bfe_and_bfi_follow_the_isa_loops_for_every_position_and_length() {
    let mut random = Random::new(7);
    let rows32: Vec<Vec<u64>> = (0..256)
        .map(|_| {
            vec![
                u64::from(random.next_u32()),
                u64::from(random.next_u32()),
                position(&mut random),
                position(&mut random),
            ]
        })
        .collect();
    let body32 = "bfe.u32 %d0, %a0, %a2, %a3;\nbfe.s32 %d1, %a0, %a2, %a3;\nbfi.b32 %d2, %a0, %a1, %a2, %a3;";
    for (row, result) in rows32.iter().zip(run_rows("u32", "", body32, &rows32, 3)) {
        let mask = 0xffff_ffff;
        assert_eq!(result[0], bit_field_extract_model(row[0], row[2], row[3], 32, false), "bfe.u32 {row:x?}");
        assert_eq!(result[1], bit_field_extract_model(row[0], row[2], row[3], 32, true) & mask, "bfe.s32 {row:x?}");
        assert_eq!(result[2], bit_field_insert_model(row[0], row[1], row[2], row[3], 32), "bfi.b32 {row:x?}");
    }
    let rows64: Vec<Vec<u64>> = (0..256)
        .map(|_| vec![random.next_u64(), random.next_u64(), position(&mut random), position(&mut random)])
        .collect();
    let declarations = ".reg .b32 %position, %length;";
    let body64 = "cvt.u32.u64 %position, %a2;\ncvt.u32.u64 %length, %a3;\n\
                  bfe.u64 %d0, %a0, %position, %length;\nbfe.s64 %d1, %a0, %position, %length;\n\
                  bfi.b64 %d2, %a0, %a1, %position, %length;";
    for (row, result) in rows64.iter().zip(run_rows("u64", declarations, body64, &rows64, 3)) {
        let (position, length) = (row[2] & 0xffff_ffff, row[3] & 0xffff_ffff);
        assert_eq!(result[0], bit_field_extract_model(row[0], position, length, 64, false), "bfe.u64 {row:x?}");
        assert_eq!(result[1], bit_field_extract_model(row[0], position, length, 64, true), "bfe.s64 {row:x?}");
        assert_eq!(result[2], bit_field_insert_model(row[0], row[1], position, length, 64), "bfi.b64 {row:x?}");
    }
}

fn find_most_significant_bit_model(a: u64, bits: u64, signed: bool, shift_amount: bool) -> u64 {
    let msb = bits - 1;
    let mut a = a;
    if signed && (a >> msb) & 1 == 1 {
        a = !a & if bits == 64 { u64::MAX } else { 0xffff_ffff };
    }
    let mut result = 0xffff_ffff;
    for index in (0..=msb).rev() {
        if (a >> index) & 1 == 1 {
            result = index;
            break;
        }
    }
    if shift_amount && result != 0xffff_ffff {
        result = msb - result;
    }
    result
}

#[test]
fn bfind_popc_clz_and_brev_count_and_reverse_bits() {
    let mut random = Random::new(8);
    let rows32: Vec<Vec<u64>> = words_with_edges(&mut random, 150).into_iter().map(|value| vec![value]).collect();
    let body32 =
        "bfind.u32 %d0, %a0;\nbfind.s32 %d1, %a0;\nbfind.shiftamt.u32 %d2, %a0;\nbfind.shiftamt.s32 %d3, %a0;\n\
                  brev.b32 %d4, %a0;\npopc.b32 %d5, %a0;\nclz.b32 %d6, %a0;";
    for (row, result) in rows32.iter().zip(run_rows("u32", "", body32, &rows32, 7)) {
        let a = row[0];
        assert_eq!(result[0], find_most_significant_bit_model(a, 32, false, false), "bfind.u32 {a:#x}");
        assert_eq!(result[1], find_most_significant_bit_model(a, 32, true, false), "bfind.s32 {a:#x}");
        assert_eq!(result[2], find_most_significant_bit_model(a, 32, false, true), "bfind.shiftamt.u32 {a:#x}");
        assert_eq!(result[3], find_most_significant_bit_model(a, 32, true, true), "bfind.shiftamt.s32 {a:#x}");
        assert_eq!(result[4], u64::from((a as u32).reverse_bits()), "brev.b32 {a:#x}");
        assert_eq!(result[5], u64::from(a.count_ones()), "popc.b32 {a:#x}");
        assert_eq!(result[6], u64::from((a as u32).leading_zeros()), "clz.b32 {a:#x}");
    }
    let rows64: Vec<Vec<u64>> = random.u64_with_edges(150).into_iter().map(|value| vec![value]).collect();
    let declarations = ".reg .b32 %count<6>;";
    let body64 = "bfind.u64 %count0, %a0;\nbfind.s64 %count1, %a0;\nbfind.shiftamt.s64 %count2, %a0;\n\
                  popc.b64 %count3, %a0;\nclz.b64 %count4, %a0;\nbrev.b64 %d5, %a0;\n\
                  cvt.u64.u32 %d0, %count0;\ncvt.u64.u32 %d1, %count1;\ncvt.u64.u32 %d2, %count2;\n\
                  cvt.u64.u32 %d3, %count3;\ncvt.u64.u32 %d4, %count4;";
    for (row, result) in rows64.iter().zip(run_rows("u64", declarations, body64, &rows64, 6)) {
        let a = row[0];
        assert_eq!(result[0], find_most_significant_bit_model(a, 64, false, false), "bfind.u64 {a:#x}");
        assert_eq!(result[1], find_most_significant_bit_model(a, 64, true, false), "bfind.s64 {a:#x}");
        assert_eq!(result[2], find_most_significant_bit_model(a, 64, true, true), "bfind.shiftamt.s64 {a:#x}");
        assert_eq!(result[3], u64::from(a.count_ones()), "popc.b64 {a:#x}");
        assert_eq!(result[4], u64::from(a.leading_zeros()), "clz.b64 {a:#x}");
        assert_eq!(result[5], a.reverse_bits(), "brev.b64 {a:#x}");
    }
}

fn find_nth_set_bit_model(mask: u32, base: u32, offset: i32) -> u32 {
    let mut result = 0xffff_ffff;
    if offset == 0 {
        if base < 32 && (mask >> base) & 1 == 1 {
            result = base;
        }
        return result;
    }
    let mut position = i64::from(base);
    let mut count = i64::from(offset).abs() - 1;
    let step = if offset > 0 { 1 } else { -1 };
    while (0..32).contains(&position) {
        if (mask >> position) & 1 == 1 {
            if count == 0 {
                result = position as u32;
                break;
            }
            count -= 1;
        }
        position += step;
    }
    result
}

#[test]
fn fns_finds_the_nth_set_bit_up_and_down_from_the_base() {
    let mut random = Random::new(9);
    let masks = random.u32_with_edges(40);
    let offsets = [0i32, 1, 2, 3, 5, 17, 32, 33, -1, -2, -3, -9, -32, -33, i32::MIN, i32::MAX];
    let rows: Vec<Vec<u64>> = (0..256)
        .map(|row| {
            let base = if row % 5 == 0 { position(&mut random) as u32 } else { random.next_u32() % 32 };
            let offset = if row % 3 == 0 { (random.next_u32() % 20) as i32 - 10 } else { offsets[row % offsets.len()] };
            vec![u64::from(masks[row % masks.len()]), u64::from(base), u64::from(offset as u32)]
        })
        .collect();
    for (row, result) in rows.iter().zip(run_rows("u32", "", "fns.b32 %d0, %a0, %a1, %a2;", &rows, 1)) {
        let expected = find_nth_set_bit_model(row[0] as u32, row[1] as u32, row[2] as u32 as i32);
        assert_eq!(result[0], u64::from(expected), "fns {row:x?}");
    }
}

fn bit_mask_model(a: u32, b: u32, clamp: bool) -> u32 {
    let a1 = a & 0x1f;
    let mut start = u64::from(u32::MAX) << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut end = (u64::from(u32::MAX) << sum) & 0xffff_ffff;
    let sum_overflow = sum >= 32;
    let (mut position_overflow, mut width_overflow) = (false, false);
    if clamp {
        if a >= 32 {
            position_overflow = true;
            start = 0;
        }
        if b >= 32 {
            width_overflow = true;
        }
    }
    if sum_overflow || position_overflow || width_overflow {
        end = 0;
    } else if b1 == 0 {
        end = 0xffff_ffff;
    }
    (start & !end) as u32
}

fn sign_or_zero_extend_model(a: u32, b: u32, clamp: bool, signed: bool) -> u32 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask: u32 = if too_large { 0 } else { u32::MAX << b1 };
    let sign_position = b1.wrapping_sub(1) & 0x1f;
    let sign = b1 != 0 && !too_large && signed && (a >> sign_position) & 1 == 1;
    (a & !mask) | if sign { mask } else { 0 }
}

#[test]
fn bmsk_and_szext_clamp_or_wrap_their_widths() {
    let mut random = Random::new(10);
    let rows: Vec<Vec<u64>> =
        (0..256).map(|_| vec![position(&mut random), position(&mut random), u64::from(random.next_u32())]).collect();
    let body = "bmsk.clamp.b32 %d0, %a0, %a1;\nbmsk.wrap.b32 %d1, %a0, %a1;\n\
                szext.clamp.s32 %d2, %a2, %a1;\nszext.wrap.s32 %d3, %a2, %a1;\n\
                szext.clamp.u32 %d4, %a2, %a1;\nszext.wrap.u32 %d5, %a2, %a1;";
    for (row, result) in rows.iter().zip(run_rows("u32", "", body, &rows, 6)) {
        let (a, b, value) = (row[0] as u32, row[1] as u32, row[2] as u32);
        let expected = [
            bit_mask_model(a, b, true),
            bit_mask_model(a, b, false),
            sign_or_zero_extend_model(value, b, true, true),
            sign_or_zero_extend_model(value, b, false, true),
            sign_or_zero_extend_model(value, b, true, false),
            sign_or_zero_extend_model(value, b, false, false),
        ];
        let result: Vec<u32> = result.iter().map(|&word| word as u32).collect();
        assert_eq!(result, expected, "bmsk/szext {row:x?}");
    }
    // The ISA's own examples.
    assert_eq!(bit_mask_model(1, 2, false), 6);
    assert_eq!(sign_or_zero_extend_model(0xffff_ffff, 0, false, false), 0);
}

// ---- lop3 and slct --------------------------------------------------------------------------

/// `lop3` as the ISA defines it: each result bit is the table's bit at index `4a + 2b + c` of
/// the three source bits in that position (`ta = 0xF0`, `tb = 0xCC`, `tc = 0xAA`).
fn logic_table_model(table: u8, a: u32, b: u32, c: u32) -> u32 {
    (0..32).fold(0, |result, bit| {
        let index = (((a >> bit) & 1) << 2) | (((b >> bit) & 1) << 1) | ((c >> bit) & 1);
        result | (u32::from((table >> index) & 1) << bit)
    })
}

#[test]
fn lop3_computes_every_one_of_the_256_truth_tables() {
    let mut random = Random::new(41);
    // The spec's own operands first: with a = 0xF0, b = 0xCC, c = 0xAA the result is the table.
    let mut rows = vec![vec![0xf0, 0xcc, 0xaa], vec![0, 0, 0], vec![0xffff_ffff; 3]];
    rows.extend((0..29).map(|_| words_with_edges(&mut random, 3)));
    // Tables written in decimal, hexadecimal and octal alike: they are all constants.
    let body: String = (0..=255u32)
        .map(|table| {
            let literal = match table % 3 {
                0 => format!("{table}"),
                1 => format!("0x{table:x}"),
                _ if table == 0 => "0".to_string(),
                _ => format!("0{table:o}"),
            };
            format!("lop3.b32 %d{table}, %a0, %a1, %a2, {literal};\n")
        })
        .collect();
    for (row, result) in rows.iter().zip(run_rows("u32", "", &body, &rows, 256)) {
        let (a, b, c) = (row[0] as u32, row[1] as u32, row[2] as u32);
        for table in 0..=255u8 {
            assert_eq!(
                result[usize::from(table)] as u32,
                logic_table_model(table, a, b, c),
                "lop3 table 0x{table:02x} on {row:x?}"
            );
        }
    }
    // In the low byte of the spec's operands every bit index occurs once: the result is the
    // table (the upper bits, where all three are 0, repeat the table's bit 0).
    let low_bytes: Vec<u64> = run_rows("u32", "", &body, &rows[..1], 256)[0].iter().map(|word| word & 0xff).collect();
    assert_eq!(low_bytes, (0..=255).collect::<Vec<u64>>());
}

#[test]
fn lop3_with_a_predicate_combines_a_nonzero_result_with_q() {
    let mut random = Random::new(42);
    let mut rows: Vec<Vec<u64>> = (0..64)
        .map(|row| {
            let mut words = words_with_edges(&mut random, 3);
            words.push(row % 2);
            words
        })
        .collect();
    rows.push(vec![0, 0, 0, 1]);
    rows.push(vec![0, 0, 0, 0]);
    let tables = [0x80u8, 0xfe, 0x96, 0x00, 0xff, 0x1a];
    let mut body = "setp.ne.u32 %q, %a3, 0;\n".to_string();
    for (index, table) in tables.iter().enumerate() {
        for (offset, operation) in ["and", "or"].iter().enumerate() {
            let slot = 3 * (2 * index + offset);
            body.push_str(&format!(
                "lop3.{operation}.b32 %d{slot}|%p, %a0, %a1, %a2, {table}, %q;\nselp.u32 %d{}, 1, 0, %p;\nmov.u32 %d{}, 0;\n",
                slot + 1,
                slot + 2
            ));
        }
    }
    let outputs = 3 * 2 * tables.len();
    let results = run_rows_at_version("8.2 sm_80", "u32", ".reg .pred %p, %q;", &body, &rows, outputs);
    for (row, result) in rows.iter().zip(results) {
        let (a, b, c, q) = (row[0] as u32, row[1] as u32, row[2] as u32, row[3] != 0);
        for (index, &table) in tables.iter().enumerate() {
            let value = logic_table_model(table, a, b, c);
            for (offset, predicate) in [(value != 0) && q, (value != 0) || q].into_iter().enumerate() {
                let slot = 3 * (2 * index + offset);
                assert_eq!(result[slot] as u32, value, "lop3 0x{table:02x} {row:x?}");
                assert_eq!(result[slot + 1], u64::from(predicate), "lop3 predicate 0x{table:02x} {row:x?}");
            }
        }
    }
}

/// One 16-bit lane of a packed `.u16x2`/`.s16x2` operation, as NVIDIA's ISA 8.0 notes define
/// them: `add` wraps within the lane, `min`/`max` compare the lane as signed or not,
/// `.relu` then turns a negative (signed) lane into 0.
fn packed_lane_model(operation: &str, signed: bool, relu: bool, a: u16, b: u16) -> u16 {
    let value = match (operation, signed) {
        ("add", _) => a.wrapping_add(b),
        ("min", true) => (a as i16).min(b as i16) as u16,
        ("max", true) => (a as i16).max(b as i16) as u16,
        ("min", false) => a.min(b),
        ("max", false) => a.max(b),
        _ => unreachable!("no packed {operation}"),
    };
    if relu && (value as i16) < 0 {
        0
    } else {
        value
    }
}

/// `add`, `min`, `max` on `.u16x2`/`.s16x2`, and `min.relu`/`max.relu` on `.s16x2` and `.s32`
/// (ISA 8.0, sm_90): each lane alone, no carry between them. nvcc writes them for
/// `__vadd2`/`__vsub2`/`__vmaxs2` and the DPX intrinsics (`__vimax3_s16x2`, `__viaddmax_s32_relu`).
#[test]
fn packed_sixteen_bit_lanes_and_integer_relu_compute_each_lane_alone() {
    let mut random = Random::new(0x162);
    let mut rows: Vec<Vec<u64>> = (0..96).map(|_| words_with_edges(&mut random, 2)).collect();
    // Lanes at the 16-bit edges: a carry or borrow out of the low lane must not reach the high.
    rows.push(vec![0x7fff_ffff, 0x0001_0001]);
    rows.push(vec![0x8000_0000, 0xffff_0001]);
    rows.push(vec![0x0001_8000, 0x8000_7fff]);
    let forms = [
        ("add", "u16x2", false),
        ("add", "s16x2", false),
        ("min", "u16x2", false),
        ("min", "s16x2", false),
        ("max", "u16x2", false),
        ("max", "s16x2", false),
        ("min", "s16x2", true),
        ("max", "s16x2", true),
    ];
    let mut body = String::new();
    for (index, (operation, ty, relu)) in forms.iter().enumerate() {
        let relu = if *relu { ".relu" } else { "" };
        body.push_str(&format!("{operation}{relu}.{ty} %d{index}, %a0, %a1;\n"));
    }
    let scalar = forms.len();
    body.push_str(&format!("min.relu.s32 %d{scalar}, %a0, %a1;\nmax.s32.relu %d{}, %a0, %a1;\n", scalar + 1));
    let results = run_rows_at_version("8.0 sm_90", "u32", "", &body, &rows, scalar + 2);
    for (row, result) in rows.iter().zip(results) {
        let (a, b) = (row[0] as u32, row[1] as u32);
        for (index, &(operation, ty, relu)) in forms.iter().enumerate() {
            let lane = |shift: u32| {
                u32::from(packed_lane_model(operation, ty == "s16x2", relu, (a >> shift) as u16, (b >> shift) as u16))
            };
            let expected = lane(0) | lane(16) << 16;
            assert_eq!(
                result[index] as u32,
                expected,
                "{operation}{}.{ty} {a:#010x}, {b:#010x}",
                if relu { ".relu" } else { "" }
            );
        }
        let (low, high) = ((a as i32).min(b as i32).max(0), (a as i32).max(b as i32).max(0));
        assert_eq!(result[scalar] as i32, low, "min.relu.s32 {a:#010x}, {b:#010x}");
        assert_eq!(result[scalar + 1] as i32, high, "max.relu.s32 {a:#010x}, {b:#010x}");
    }
}

/// `slct`'s condition, as the ISA's C code `c >= 0` reads on an `.s32` or `.f32` `c`: `-0.0`
/// counts as not negative, a NaN compares false. With `.ftz` a subnormal `c` is a zero first.
fn slct_takes_a(c: u32, float: bool, flush_subnormals: bool) -> bool {
    if !float {
        return c as i32 >= 0;
    }
    let value = f32::from_bits(c);
    let value = if flush_subnormals && value.is_subnormal() { 0.0 } else { value };
    value >= 0.0
}

/// `.f32` and `.s32` conditions worth trying: both zeros, subnormals of both signs, the
/// smallest normals, NaNs of both signs, infinities, and the integer edges.
const SLCT_CONDITIONS: [u32; 16] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0x7f80_0000,
    0xff80_0000,
    0x3f80_0000,
    0xbf80_0000,
    0xffff_ffff,
];

#[test]
fn slct_selects_by_the_sign_of_an_s32_or_f32_condition() {
    let mut random = Random::new(43);
    let rows: Vec<Vec<u64>> = (0..96)
        .map(|row| {
            let c = if row < SLCT_CONDITIONS.len() { SLCT_CONDITIONS[row] } else { random.next_u32() };
            vec![u64::from(random.next_u32()), u64::from(random.next_u32()), u64::from(c)]
        })
        .collect();
    let body = "slct.b32.s32 %d0, %a0, %a1, %a2;\nslct.u32.f32 %d1, %a0, %a1, %a2;\n\
                slct.ftz.s32.f32 %d2, %a0, %a1, %a2;\nslct.f32.s32 %d3, %a0, %a1, %a2;\n\
                slct.ftz.f32.f32 %d4, %a0, %a1, %a2;";
    for (row, result) in rows.iter().zip(run_rows("u32", "", body, &rows, 5)) {
        let (a, b, c) = (row[0], row[1], row[2] as u32);
        let pick = |takes_a: bool| if takes_a { a } else { b };
        let expected = vec![
            pick(slct_takes_a(c, false, false)),
            pick(slct_takes_a(c, true, false)),
            pick(slct_takes_a(c, true, true)),
            pick(slct_takes_a(c, false, false)),
            pick(slct_takes_a(c, true, true)),
        ];
        assert_eq!(result, expected, "slct {row:x?}");
    }
}

#[test]
fn slct_selects_16_and_64_bit_values_whole() {
    let mut random = Random::new(44);
    let rows: Vec<Vec<u64>> = (0..64)
        .map(|row| {
            let c = if row < SLCT_CONDITIONS.len() { SLCT_CONDITIONS[row] } else { random.next_u32() };
            vec![random.next_u64(), random.next_u64(), u64::from(c)]
        })
        .collect();
    let declarations = ".reg .b32 %c;\n.reg .b16 %h<3>;";
    let body = "cvt.u32.u64 %c, %a2;\nslct.u64.s32 %d0, %a0, %a1, %c;\nslct.ftz.f64.f32 %d1, %a0, %a1, %c;\n\
                cvt.u16.u64 %h1, %a0;\ncvt.u16.u64 %h2, %a1;\nslct.s16.f32 %h0, %h1, %h2, %c;\ncvt.u64.u16 %d2, %h0;";
    for (row, result) in rows.iter().zip(run_rows("u64", declarations, body, &rows, 3)) {
        let (a, b, c) = (row[0], row[1], row[2] as u32);
        let pick = |takes_a: bool| if takes_a { a } else { b };
        let expected = vec![
            pick(slct_takes_a(c, false, false)),
            pick(slct_takes_a(c, true, true)),
            pick(slct_takes_a(c, true, false)) & 0xffff,
        ];
        assert_eq!(result, expected, "slct {row:x?}");
    }
}

// ---- prmt and shf --------------------------------------------------------------------------

/// The ISA's tables: for each mode and each value of `c & 3`, the source byte of
/// `d.b3 d.b2 d.b1 d.b0`, in that order.
fn permute_mode_bytes(mode: &str, selector: u32) -> [u32; 4] {
    let table: [[u32; 4]; 4] = match mode {
        "f4e" => [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
        "b4e" => [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
        "rc8" => [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        "ecl" => [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
        "ecr" => [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
        _ => [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
    };
    table[(selector & 3) as usize]
}

fn permute_model(a: u32, b: u32, selector: u32, mode: Option<&str>) -> u32 {
    let bytes: Vec<u32> = (0..8)
        .map(|index| if index < 4 { (a >> (8 * index)) & 0xff } else { (b >> (8 * (index - 4))) & 0xff })
        .collect();
    let mut result = 0;
    for lane in 0..4 {
        let byte = match mode {
            None => {
                let nibble = (selector >> (4 * lane)) & 0xf;
                let byte = bytes[(nibble & 7) as usize];
                if nibble & 8 != 0 {
                    if byte & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    byte
                }
            }
            Some(mode) => bytes[permute_mode_bytes(mode, selector)[3 - lane as usize] as usize],
        };
        result |= byte << (8 * lane);
    }
    result
}

#[test]
fn prmt_picks_bytes_in_every_mode_with_sign_replication() {
    let mut random = Random::new(11);
    let rows: Vec<Vec<u64>> = (0..200)
        .map(|row| {
            let selector = if row < 16 { (row as u32) * 0x1111 } else { random.next_u32() };
            vec![u64::from(random.next_u32() | 0x0080_8000), u64::from(random.next_u32()), u64::from(selector)]
        })
        .collect();
    let modes = ["f4e", "b4e", "rc8", "ecl", "ecr", "rc16"];
    let mut body = "prmt.b32 %d0, %a0, %a1, %a2;\n".to_string();
    for (index, mode) in modes.iter().enumerate() {
        body.push_str(&format!("prmt.b32.{mode} %d{}, %a0, %a1, %a2;\n", index + 1));
    }
    for (row, result) in rows.iter().zip(run_rows("u32", "", &body, &rows, 7)) {
        let (a, b, selector) = (row[0] as u32, row[1] as u32, row[2] as u32);
        assert_eq!(result[0] as u32, permute_model(a, b, selector, None), "prmt {row:x?}");
        for (index, mode) in modes.iter().enumerate() {
            assert_eq!(result[index + 1] as u32, permute_model(a, b, selector, Some(mode)), "prmt.{mode} {row:x?}");
        }
    }
}

#[test]
fn shf_shifts_the_word_pair_with_wrap_and_clamp() {
    let mut random = Random::new(12);
    let rows: Vec<Vec<u64>> = (0..200)
        .map(|_| vec![u64::from(random.next_u32()), u64::from(random.next_u32()), position(&mut random)])
        .collect();
    let body = "shf.l.wrap.b32 %d0, %a0, %a1, %a2;\nshf.l.clamp.b32 %d1, %a0, %a1, %a2;\n\
                shf.r.wrap.b32 %d2, %a0, %a1, %a2;\nshf.r.clamp.b32 %d3, %a0, %a1, %a2;";
    for (row, result) in rows.iter().zip(run_rows("u32", "", body, &rows, 4)) {
        let pair = (row[1] << 32) | row[0];
        let amount = row[2] as u32;
        let (wrapped, clamped) = (amount & 31, amount.min(32));
        let left = |shift: u32| ((u128::from(pair) << shift) >> 32) as u64 & 0xffff_ffff;
        let right = |shift: u32| (pair >> shift) & 0xffff_ffff;
        assert_eq!(result, vec![left(wrapped), left(clamped), right(wrapped), right(clamped)], "shf {row:x?}");
    }
}

// ---- Small-integer arithmetic ----------------------------------------------------------------

#[test]
fn mul24_mad24_and_sad_use_24_bit_products_and_absolute_differences() {
    let mut random = Random::new(13);
    let values = random.u32_with_edges(60);
    let extra = [0x0080_0000u32, 0x007f_ffff, 0xff80_0000, 0x00ff_ffff];
    let rows: Vec<Vec<u64>> = (0..200)
        .map(|row| {
            let pick = |index: usize| if index % 5 == 0 { extra[index / 5 % 4] } else { values[index % 60] };
            vec![u64::from(pick(row)), u64::from(pick(row * 7 + 1)), u64::from(pick(row * 3 + 2))]
        })
        .collect();
    let body = "mul24.lo.u32 %d0, %a0, %a1;\nmul24.hi.u32 %d1, %a0, %a1;\nmul24.lo.s32 %d2, %a0, %a1;\n\
                mul24.hi.s32 %d3, %a0, %a1;\nmad24.lo.u32 %d4, %a0, %a1, %a2;\nmad24.hi.s32 %d5, %a0, %a1, %a2;\n\
                mad24.hi.sat.s32 %d6, %a0, %a1, %a2;\nsad.u32 %d7, %a0, %a1, %a2;\nsad.s32 %d8, %a0, %a1, %a2;";
    for (row, result) in rows.iter().zip(run_rows("u32", "", body, &rows, 9)) {
        let (a, b, c) = (row[0] as u32, row[1] as u32, row[2] as u32);
        let unsigned = i64::from(a & 0xff_ffff) * i64::from(b & 0xff_ffff);
        let signed24 = |value: u32| i64::from(((value << 8) as i32) >> 8);
        let signed = signed24(a) * signed24(b);
        let signed_high = (signed >> 16) as i32;
        let expected = [
            unsigned as u32,
            (unsigned >> 16) as u32,
            signed as u32,
            signed_high as u32,
            (unsigned as u32).wrapping_add(c),
            signed_high.wrapping_add(c as i32) as u32,
            signed_high.saturating_add(c as i32) as u32,
            c.wrapping_add(a.abs_diff(b)),
            c.wrapping_add((a as i32).abs_diff(b as i32)),
        ];
        let result: Vec<u32> = result.iter().map(|&word| word as u32).collect();
        assert_eq!(result, expected, "mul24/mad24/sad {row:x?}");
    }
    // 16- and 64-bit sad.
    let edges = random.u64_with_edges(20);
    let rows64: Vec<Vec<u64>> = (0..100)
        .map(|row| vec![edges[row % 20], random.next_u64() >> (random.next_u32() % 64), random.next_u64()])
        .collect();
    let body64 = "sad.s64 %d0, %a0, %a1, %a2;\nsad.u64 %d1, %a0, %a1, %a2;";
    for (row, result) in rows64.iter().zip(run_rows("u64", "", body64, &rows64, 2)) {
        let (a, b, c) = (row[0], row[1], row[2]);
        assert_eq!(result[0], c.wrapping_add((a as i64).abs_diff(b as i64)), "sad.s64 {row:x?}");
        assert_eq!(result[1], c.wrapping_add(a.abs_diff(b)), "sad.u64 {row:x?}");
    }
}

fn lanes(value: u32, bits: u32, signed: bool) -> Vec<i64> {
    (0..32 / bits)
        .map(|index| {
            let part = (value >> (bits * index)) & ((1u32 << bits) - 1);
            if signed && part >> (bits - 1) == 1 {
                i64::from(part) - (1i64 << bits)
            } else {
                i64::from(part)
            }
        })
        .collect()
}

#[test]
fn dp4a_and_dp2a_sum_byte_and_half_word_products_for_every_signedness() {
    let mut random = Random::new(14);
    let rows: Vec<Vec<u64>> = (0..160).map(|_| words_with_edges(&mut random, 3)).collect();
    let mut body = String::new();
    let mut forms = Vec::new();
    for (a_type, b_type) in [("u32", "u32"), ("u32", "s32"), ("s32", "u32"), ("s32", "s32")] {
        forms.push(("dp4a", "", a_type, b_type));
        forms.push(("dp2a", ".lo", a_type, b_type));
        forms.push(("dp2a", ".hi", a_type, b_type));
    }
    for (index, (opcode, mode, a_type, b_type)) in forms.iter().enumerate() {
        body.push_str(&format!("{opcode}{mode}.{a_type}.{b_type} %d{index}, %a0, %a1, %a2;\n"));
    }
    for (row, result) in rows.iter().zip(run_rows("u32", "", &body, &rows, forms.len())) {
        let (a, b, c) = (row[0] as u32, row[1] as u32, row[2] as u32);
        for (index, (opcode, mode, a_type, b_type)) in forms.iter().enumerate() {
            let b_bytes = lanes(b, 8, *b_type == "s32");
            let products: i64 = if *opcode == "dp4a" {
                lanes(a, 8, *a_type == "s32").iter().zip(&b_bytes).map(|(x, y)| x * y).sum()
            } else {
                let first = if *mode == ".hi" { 2 } else { 0 };
                lanes(a, 16, *a_type == "s32").iter().zip(&b_bytes[first..first + 2]).map(|(x, y)| x * y).sum()
            };
            let expected = (i64::from(c) + products) as u32;
            assert_eq!(result[index] as u32, expected, "{opcode}{mode}.{a_type}.{b_type} {row:x?}");
        }
    }
}

#[test]
fn cvt_pack_saturates_and_packs_above_c() {
    let mut random = Random::new(15);
    let mut rows: Vec<Vec<u64>> = (0..160).map(|_| words_with_edges(&mut random, 3)).collect();
    for (a, b) in [(-129i32, 128), (127, -128), (255, 256), (-1, 65535), (65536, -32769), (32767, -32768)] {
        rows.push(vec![u64::from(a as u32), u64::from(b as u32), 0x1234_5678]);
    }
    let body = "cvt.pack.sat.u8.s32.b32 %d0, %a0, %a1, %a2;\ncvt.pack.sat.s8.s32.b32 %d1, %a0, %a1, %a2;\n\
                cvt.pack.sat.u16.s32 %d2, %a0, %a1;\ncvt.pack.sat.s16.s32 %d3, %a0, %a1;";
    for (row, result) in rows.iter().zip(run_rows("u32", "", body, &rows, 4)) {
        let (a, b, c) = (row[0] as u32 as i32, row[1] as u32 as i32, row[2] as u32);
        let pack = |low: i32, high: i32, bits: u32| {
            let mask = (1u32 << bits) - 1;
            let (ta, tb) = (a.clamp(low, high) as u32 & mask, b.clamp(low, high) as u32 & mask);
            (ta << bits) | tb
        };
        let expected =
            [pack(0, 255, 8) | (c << 16), pack(-128, 127, 8) | (c << 16), pack(0, 65535, 16), pack(-32768, 32767, 16)];
        let result: Vec<u32> = result.iter().map(|&word| word as u32).collect();
        assert_eq!(result, expected, "cvt.pack {row:x?}");
    }
}

/// The 4- and 2-bit forms (`.u4`, `.s4`, `.u2`, `.s2`, sm_75): `a` and `b` clamped into the
/// narrow range, `a` above `b`, and `c` shifted above both (ISA 7.8 section 9.7.8.19).
#[test]
fn cvt_pack_to_four_and_two_bits() {
    let mut random = Random::new(16);
    let mut rows: Vec<Vec<u64>> = (0..160).map(|_| words_with_edges(&mut random, 3)).collect();
    for (a, b) in [(-9i32, 8), (7, -8), (15, 16), (-1, 3), (4, -3), (1, -2), (2, 0)] {
        rows.push(vec![u64::from(a as u32), u64::from(b as u32), 0xdead_beef]);
    }
    let body = "cvt.pack.sat.u4.s32.b32 %d0, %a0, %a1, %a2;\ncvt.pack.sat.s4.s32.b32 %d1, %a0, %a1, %a2;\n\
                cvt.pack.sat.u2.s32.b32 %d2, %a0, %a1, %a2;\ncvt.pack.sat.s2.s32.b32 %d3, %a0, %a1, %a2;";
    for (row, result) in rows.iter().zip(run_rows("u32", "", body, &rows, 4)) {
        let (a, b, c) = (row[0] as u32 as i32, row[1] as u32 as i32, row[2] as u32);
        let pack = |low: i32, high: i32, bits: u32| {
            let mask = (1u32 << bits) - 1;
            let (ta, tb) = (a.clamp(low, high) as u32 & mask, b.clamp(low, high) as u32 & mask);
            (ta << bits) | tb | (c << (2 * bits))
        };
        let expected = [pack(0, 15, 4), pack(-8, 7, 4), pack(0, 3, 2), pack(-2, 1, 2)];
        let result: Vec<u32> = result.iter().map(|&word| word as u32).collect();
        assert_eq!(result, expected, "cvt.pack to 4 and 2 bits {row:x?}");
    }
}

// ---- Video -------------------------------------------------------------------------------

#[derive(Clone, Copy)]
enum Selector {
    Word,
    Byte(u32),
    Half(u32),
}

impl Selector {
    fn suffix(self) -> String {
        match self {
            Selector::Word => String::new(),
            Selector::Byte(index) => format!(".b{index}"),
            Selector::Half(index) => format!(".h{index}"),
        }
    }

    fn extract(self, value: u32, signed: bool) -> i64 {
        let (part, bits) = match self {
            Selector::Word => (value, 32),
            Selector::Byte(index) => ((value >> (8 * index)) & 0xff, 8),
            Selector::Half(index) => ((value >> (16 * index)) & 0xffff, 16),
        };
        if signed && (part >> (bits - 1)) & 1 == 1 {
            i64::from(part) - (1i64 << bits)
        } else {
            i64::from(part)
        }
    }

    fn bits(self) -> u32 {
        match self {
            Selector::Word => 32,
            Selector::Byte(_) => 8,
            Selector::Half(_) => 16,
        }
    }

    fn shift(self) -> u32 {
        match self {
            Selector::Word => 0,
            Selector::Byte(index) => 8 * index,
            Selector::Half(index) => 16 * index,
        }
    }
}

struct VideoForm {
    opcode: &'static str,
    destination_signed: bool,
    a_signed: bool,
    b_signed: bool,
    saturate: bool,
    /// `vshl`/`vshr`: `.wrap` when true, `.clamp` otherwise.
    wrap: bool,
    comparison: &'static str,
    secondary: Option<&'static str>,
    destination_select: Selector,
    a_select: Selector,
    b_select: Selector,
}

impl VideoForm {
    fn spelling(&self) -> String {
        let type_name = |signed: bool| if signed { ".s32" } else { ".u32" };
        let mut spelling = self.opcode.to_string();
        if self.opcode == "vset" {
            spelling.push_str(&format!("{}{}.{}", type_name(self.a_signed), type_name(self.b_signed), self.comparison));
        } else {
            spelling.push_str(&format!(
                "{}{}{}",
                type_name(self.destination_signed),
                type_name(self.a_signed),
                type_name(self.b_signed)
            ));
            if self.saturate {
                spelling.push_str(".sat");
            }
            if matches!(self.opcode, "vshl" | "vshr") {
                spelling.push_str(if self.wrap { ".wrap" } else { ".clamp" });
            }
        }
        if let Some(secondary) = self.secondary {
            spelling.push_str(&format!(".{secondary}"));
        }
        spelling
    }

    fn statement(&self, destination: usize) -> String {
        let merges = !matches!(self.destination_select, Selector::Word);
        let c = if self.secondary.is_some() || merges { ", %a2" } else { "" };
        format!(
            "{} %d{destination}{}, %a0{}, %a1{}{c};\n",
            self.spelling(),
            self.destination_select.suffix(),
            self.a_select.suffix(),
            self.b_select.suffix()
        )
    }

    /// The ISA's pseudo-code, in 64-bit arithmetic (wide enough for every intermediate but the
    /// left shift, which is done in `i128`).
    fn model(&self, a: u32, b: u32, c: u32) -> u32 {
        let ta = self.a_select.extract(a, self.a_signed);
        let tb = self.b_select.extract(b, self.b_signed);
        let amount = |wrap: bool| if wrap { tb & 31 } else { tb.min(32) };
        let mut temporary: i128 = match self.opcode {
            "vadd" => i128::from(ta + tb),
            "vsub" => i128::from(ta - tb),
            "vabsdiff" => i128::from((ta - tb).abs()),
            "vmin" => i128::from(ta.min(tb)),
            "vmax" => i128::from(ta.max(tb)),
            "vshl" => i128::from(ta) << amount(self.wrap),
            "vshr" => i128::from(ta >> amount(self.wrap)),
            _ => i128::from(match self.comparison {
                "eq" => ta == tb,
                "ne" => ta != tb,
                "lt" => ta < tb,
                "le" => ta <= tb,
                "gt" => ta > tb,
                _ => ta >= tb,
            }),
        };
        let destination_signed = self.destination_signed && self.opcode != "vset";
        if self.saturate {
            let bits = self.destination_select.bits();
            let (low, high) = if destination_signed {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            temporary = temporary.clamp(low, high);
        }
        let result = temporary as u32;
        match (self.secondary, self.destination_select) {
            (Some("add"), _) => result.wrapping_add(c),
            (Some(secondary), _) => {
                let pick_result = match (secondary == "min", destination_signed) {
                    (true, true) => (result as i32) < (c as i32),
                    (true, false) => result < c,
                    (false, true) => (result as i32) > (c as i32),
                    (false, false) => result > c,
                };
                if pick_result {
                    result
                } else {
                    c
                }
            }
            (None, Selector::Word) => result,
            (None, selector) => {
                let mask = ((1u64 << selector.bits()) - 1) as u32;
                (c & !(mask << selector.shift())) | ((result & mask) << selector.shift())
            }
        }
    }
}

#[test]
fn scalar_video_instructions_select_extend_saturate_and_merge() {
    let mut random = Random::new(16);
    let opcodes = ["vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vset"];
    let comparisons = ["eq", "ne", "lt", "le", "gt", "ge"];
    let secondaries = [None, Some("add"), Some("min"), Some("max")];
    let selectors = [
        Selector::Word,
        Selector::Byte(0),
        Selector::Byte(1),
        Selector::Byte(2),
        Selector::Byte(3),
        Selector::Half(0),
        Selector::Half(1),
    ];
    let mut forms = Vec::new();
    for index in 0..160usize {
        let opcode = opcodes[index % opcodes.len()];
        let pick = random.next_u32() as usize;
        let is_shift = matches!(opcode, "vshl" | "vshr");
        let merges = pick % 4 == 0;
        forms.push(VideoForm {
            opcode,
            destination_signed: pick & 1 == 1,
            a_signed: pick & 2 == 2,
            b_signed: !is_shift && pick & 4 == 4,
            saturate: opcode != "vset" && pick & 8 == 8,
            wrap: pick & 16 == 16,
            comparison: comparisons[(pick >> 5) % comparisons.len()],
            secondary: if merges { None } else { secondaries[(pick >> 8) % secondaries.len()] },
            destination_select: if merges { selectors[1 + (pick >> 10) % 6] } else { Selector::Word },
            a_select: selectors[(pick >> 13) % selectors.len()],
            b_select: if is_shift && pick & 64 == 0 {
                Selector::Word
            } else {
                selectors[(pick >> 16) % selectors.len()]
            },
        });
    }
    // Shift amounts are small more often than not, so that both modes and saturation matter.
    let rows: Vec<Vec<u64>> = (0..64)
        .map(|row| {
            let mut words = words_with_edges(&mut random, 3);
            if row % 2 == 0 {
                words[1] = position(&mut random) & 0xffff_ffff;
            }
            if row < 10 {
                words = vec![
                    [0, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x80][row % 5],
                    [0xffff_ffff, 1, 31, 32, 0x8080_8080][row / 2],
                    0x1234_5678,
                ];
            }
            words
        })
        .collect();
    for chunk in forms.chunks(20) {
        let body: String = chunk.iter().enumerate().map(|(index, form)| form.statement(index)).collect();
        for (row, result) in rows.iter().zip(run_rows("u32", "", &body, &rows, chunk.len())) {
            let (a, b, c) = (row[0] as u32, row[1] as u32, row[2] as u32);
            for (index, form) in chunk.iter().enumerate() {
                assert_eq!(result[index] as u32, form.model(a, b, c), "{} with {row:x?}", form.statement(index));
            }
        }
    }
}

struct SimdForm {
    opcode: &'static str,
    lanes: u32,
    destination_signed: bool,
    a_signed: bool,
    b_signed: bool,
    saturate: bool,
    accumulate: bool,
    comparison: &'static str,
    /// Lanes written, as digits (`None`: all, no mask written).
    mask: Option<Vec<u32>>,
    /// Each lane's source lane in `{b, a}`, lane 0 first (`None`: the default).
    a_select: Option<Vec<u32>>,
    b_select: Option<Vec<u32>>,
}

impl SimdForm {
    fn suffix(&self, lanes: &[u32]) -> String {
        let letter = if self.lanes == 2 { 'h' } else { 'b' };
        let digits: String = lanes.iter().rev().map(|lane| char::from_digit(*lane, 10).unwrap_or('0')).collect();
        format!(".{letter}{digits}")
    }

    fn statement(&self, destination: usize) -> String {
        let type_name = |signed: bool| if signed { ".s32" } else { ".u32" };
        let name = format!("{}{}", self.opcode, self.lanes);
        let mut spelling = if self.opcode == "vset" {
            format!("{name}{}{}.{}", type_name(self.a_signed), type_name(self.b_signed), self.comparison)
        } else {
            format!(
                "{name}{}{}{}",
                type_name(self.destination_signed),
                type_name(self.a_signed),
                type_name(self.b_signed)
            )
        };
        if self.saturate {
            spelling.push_str(".sat");
        }
        if self.accumulate {
            spelling.push_str(".add");
        }
        let selector = |lanes: &Option<Vec<u32>>| lanes.as_ref().map(|lanes| self.suffix(lanes)).unwrap_or_default();
        format!(
            "{spelling} %d{destination}{}, %a0{}, %a1{}, %a2;\n",
            selector(&self.mask),
            selector(&self.a_select),
            selector(&self.b_select)
        )
    }

    /// The ISA's pseudo-code for the SIMD video instructions.
    fn model(&self, a: u32, b: u32, c: u32) -> u32 {
        let bits = 32 / self.lanes;
        let pair = (u64::from(b) << 32) | u64::from(a);
        let lane = |value: u64, index: u32, signed: bool| {
            let part = (value >> (bits * index)) & ((1 << bits) - 1);
            if signed && part >> (bits - 1) == 1 {
                part as i64 - (1i64 << bits)
            } else {
                part as i64
            }
        };
        let default_a: Vec<u32> = (0..self.lanes).collect();
        let default_b: Vec<u32> = (self.lanes..2 * self.lanes).collect();
        let a_select = self.a_select.clone().unwrap_or(default_a);
        let b_select = self.b_select.clone().unwrap_or(default_b);
        let destination_signed = self.destination_signed && self.opcode != "vset";
        let mask: Vec<u32> = self.mask.clone().unwrap_or_else(|| (0..self.lanes).collect());
        let mut result: i64 = if self.accumulate { i64::from(c) } else { 0 };
        for index in 0..self.lanes {
            let va = lane(pair, a_select[index as usize], self.a_signed);
            let vb = lane(pair, b_select[index as usize], self.b_signed);
            let mut value = match self.opcode {
                "vadd" => va + vb,
                "vsub" => va - vb,
                "vavrg" => {
                    if va + vb >= 0 {
                        (va + vb + 1) >> 1
                    } else {
                        (va + vb) >> 1
                    }
                }
                "vabsdiff" => (va - vb).abs(),
                "vmin" => va.min(vb),
                "vmax" => va.max(vb),
                _ => i64::from(match self.comparison {
                    "eq" => va == vb,
                    "ne" => va != vb,
                    "lt" => va < vb,
                    "le" => va <= vb,
                    "gt" => va > vb,
                    _ => va >= vb,
                }),
            };
            if self.saturate {
                value = if destination_signed {
                    value.clamp(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
                } else {
                    value.clamp(0, (1 << bits) - 1)
                };
            }
            let written = mask.contains(&index);
            if self.accumulate {
                if written {
                    result += value;
                }
            } else {
                let part = if written { value } else { i64::from(c >> (bits * index)) };
                result |= (part & ((1 << bits) - 1)) << (bits * index);
            }
        }
        result as u32
    }
}

#[test]
fn simd_video_instructions_work_lane_by_lane_with_selectors_masks_and_accumulation() {
    let mut random = Random::new(17);
    let opcodes = ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"];
    let comparisons = ["eq", "ne", "lt", "le", "gt", "ge"];
    let mut forms = Vec::new();
    for index in 0..168usize {
        let opcode = opcodes[index % opcodes.len()];
        let lanes = if index / opcodes.len() % 2 == 0 { 2 } else { 4 };
        let pick = random.next_u32();
        let accumulate = pick & 1 == 1;
        let mut lanes_from = |limit: u32| -> Vec<u32> { (0..lanes).map(|_| random.next_u32() % limit).collect() };
        let a_select = (pick & 2 == 2).then(|| lanes_from(2 * lanes));
        let b_select = (pick & 4 == 4).then(|| lanes_from(2 * lanes));
        let mask = (pick & 8 == 8).then(|| {
            let mut lanes: Vec<u32> = (0..lanes).filter(|_| random.next_u32() % 2 == 0).collect();
            if lanes.is_empty() {
                lanes.push(random.next_u32() % 2);
            }
            lanes
        });
        forms.push(SimdForm {
            opcode,
            lanes,
            destination_signed: pick & 16 == 16,
            a_signed: pick & 32 == 32,
            b_signed: pick & 64 == 64,
            saturate: !accumulate && opcode != "vset" && pick & 128 == 128,
            accumulate,
            comparison: comparisons[(pick >> 8) as usize % comparisons.len()],
            mask,
            a_select,
            b_select,
        });
    }
    let rows: Vec<Vec<u64>> = (0..48)
        .map(|row| {
            if row < 6 {
                let words = [0, 0x7fff_7fff, 0x8000_8000, 0xffff_ffff, 0x7f80_807f, 0x0180_ff01];
                vec![words[row], words[(row + 3) % 6], 0x1234_5678]
            } else {
                words_with_edges(&mut random, 3)
            }
        })
        .collect();
    for chunk in forms.chunks(24) {
        let body: String = chunk.iter().enumerate().map(|(index, form)| form.statement(index)).collect();
        for (row, result) in rows.iter().zip(run_rows("u32", "", &body, &rows, chunk.len())) {
            let (a, b, c) = (row[0] as u32, row[1] as u32, row[2] as u32);
            for (index, form) in chunk.iter().enumerate() {
                assert_eq!(result[index] as u32, form.model(a, b, c), "{} with {row:x?}", form.statement(index));
            }
        }
    }
}

#[test]
fn vmad_multiplies_selected_parts_adds_c_and_scales() {
    let mut random = Random::new(18);
    let selectors = [Selector::Word, Selector::Byte(0), Selector::Byte(3), Selector::Half(0), Selector::Half(1)];
    let mut forms = Vec::new();
    for _ in 0..60 {
        let pick = random.next_u32();
        forms.push((
            pick & 1 == 1,
            pick & 2 == 2,
            pick & 4 == 4,
            pick & 8 == 8,
            [0u32, 7, 15][(pick >> 4) as usize % 3],
            pick & 64 == 64,
            selectors[(pick >> 8) as usize % selectors.len()],
            selectors[(pick >> 12) as usize % selectors.len()],
        ));
    }
    let statement = |index: usize, form: &(bool, bool, bool, bool, u32, bool, Selector, Selector)| {
        let (destination_signed, a_signed, b_signed, saturate, shift, plus_one, a_select, b_select) = *form;
        let type_name = |signed: bool| if signed { ".s32" } else { ".u32" };
        format!(
            "vmad{}{}{}{}{}{} %d{index}, %a0{}, %a1{}, %a2;\n",
            type_name(destination_signed),
            type_name(a_signed),
            type_name(b_signed),
            if plus_one { ".po" } else { "" },
            if saturate { ".sat" } else { "" },
            match shift {
                7 => ".shr7",
                15 => ".shr15",
                _ => "",
            },
            a_select.suffix(),
            b_select.suffix()
        )
    };
    let rows: Vec<Vec<u64>> = (0..48).map(|_| words_with_edges(&mut random, 3)).collect();
    for chunk in forms.chunks(20) {
        let body: String = chunk.iter().enumerate().map(|(index, form)| statement(index, form)).collect();
        for (row, result) in rows.iter().zip(run_rows("u32", "", &body, &rows, chunk.len())) {
            let (a, b, c) = (row[0] as u32, row[1] as u32, row[2] as u32);
            for (index, form) in chunk.iter().enumerate() {
                let (_, a_signed, b_signed, saturate, shift, plus_one, a_select, b_select) = *form;
                // The ISA's pseudo-code, in 128 bits.
                let signed = a_signed || b_signed;
                let product = i128::from(a_select.extract(a, a_signed)) * i128::from(b_select.extract(b, b_signed));
                let c_wide = if signed { i128::from(c as i32) } else { i128::from(c) };
                let total = (product + c_wide + i128::from(plus_one)) >> shift;
                // The 64-bit result, as the ISA's `& 0xffffffffffffffff` leaves it.
                let mut expected = if signed { i128::from(total as i64) } else { i128::from(total as u64) };
                if saturate {
                    expected = if signed {
                        expected.clamp(i128::from(i32::MIN), i128::from(i32::MAX))
                    } else {
                        expected.clamp(0, i128::from(u32::MAX))
                    };
                }
                assert_eq!(result[index] as u32, expected as u32, "{}", statement(index, form));
            }
        }
    }
}

#[test]
fn vmad_with_negated_sources_follows_the_isa_pseudo_code() {
    let mut random = Random::new(19);
    let selectors = [Selector::Word, Selector::Byte(1), Selector::Half(1)];
    // (-a, -b, -c): the product is negated when exactly one of `a` and `b` is; the ISA allows
    // negating the product or `c`, not both.
    let negations =
        [(true, false, false), (false, true, false), (true, true, false), (false, false, true), (true, true, true)];
    let mut forms = Vec::new();
    for (index, (a_signed, b_signed, negation, saturate, shift)) in [false, true]
        .into_iter()
        .flat_map(|a_signed| [false, true].into_iter().map(move |b_signed| (a_signed, b_signed)))
        .flat_map(|(a_signed, b_signed)| negations.into_iter().map(move |negation| (a_signed, b_signed, negation)))
        .flat_map(|(a_signed, b_signed, negation)| {
            [false, true].into_iter().map(move |saturate| (a_signed, b_signed, negation, saturate))
        })
        .flat_map(|(a_signed, b_signed, negation, saturate)| {
            [0u32, 7, 15].into_iter().map(move |shift| (a_signed, b_signed, negation, saturate, shift))
        })
        .enumerate()
    {
        // Whole words in most forms (the widest products); some take a byte or half-word.
        let pick = random.next_u32() as usize;
        let select =
            |bits: usize| if pick >> bits & 3 == 0 { selectors[1 + (pick >> (bits + 2)) % 2] } else { Selector::Word };
        forms.push((index % 2 == 1, a_signed, b_signed, negation, saturate, shift, select(0), select(4)));
    }
    type Form = (bool, bool, bool, (bool, bool, bool), bool, u32, Selector, Selector);
    let statement = |index: usize, form: &Form| {
        let (
            destination_signed,
            a_signed,
            b_signed,
            (negate_a, negate_b, negate_c),
            saturate,
            shift,
            a_select,
            b_select,
        ) = *form;
        let type_name = |signed: bool| if signed { ".s32" } else { ".u32" };
        let minus = |negated: bool| if negated { "-" } else { "" };
        format!(
            "vmad{}{}{}{}{} %d{index}, {}%a0{}, {}%a1{}, {}%a2;\n",
            type_name(destination_signed),
            type_name(a_signed),
            type_name(b_signed),
            if saturate { ".sat" } else { "" },
            match shift {
                7 => ".shr7",
                15 => ".shr15",
                _ => "",
            },
            minus(negate_a),
            a_select.suffix(),
            minus(negate_b),
            b_select.suffix(),
            minus(negate_c),
        )
    };
    let edges = [0u32, 1, 0x7fff_ffff, 0x8000_0000, 0x8000_0001, 0xffff_fffe, 0xffff_ffff, 0x0000_ff80];
    let mut rows: Vec<Vec<u64>> = (0..40)
        .map(|_| {
            let mut edge = || u64::from(edges[random.next_u32() as usize % edges.len()]);
            vec![edge(), edge(), edge()]
        })
        .collect();
    rows.extend(
        [
            [0xffff_ffffu64, 0xffff_ffff, 0],
            [0xffff_ffff, 0xffff_ffff, 0xffff_ffff],
            [0x8000_0000, 0x8000_0000, 0x8000_0000],
        ]
        .map(Vec::from),
    );
    rows.extend((0..16).map(|_| words_with_edges(&mut random, 3)));
    for chunk in forms.chunks(20) {
        let body: String = chunk.iter().enumerate().map(|(index, form)| statement(index, form)).collect();
        for (row, result) in rows.iter().zip(run_rows("u32", "", &body, &rows, chunk.len())) {
            let (a, b, c) = (row[0] as u32, row[1] as u32, row[2] as u32);
            for (index, form) in chunk.iter().enumerate() {
                let (_, a_signed, b_signed, (negate_a, negate_b, negate_c), saturate, shift, a_select, b_select) =
                    *form;
                // The ISA's pseudo-code, step by step, in 128 bits.
                let negate_product = negate_a != negate_b;
                let signed_final = a_signed || b_signed || negate_product || negate_c;
                let mut product = i128::from(a_select.extract(a, a_signed)) * i128::from(b_select.extract(b, b_signed));
                let (mut c, mut lsb) = (c, 0);
                if negate_product {
                    product = !product;
                    lsb = 1;
                } else if negate_c {
                    c = !c;
                    lsb = 1;
                }
                let c_wide = if signed_final { i128::from(c as i32) } else { i128::from(c) };
                let total = (product + c_wide + lsb) >> shift;
                // `& 0xffffffffffffffff`, then the clamp in the final result's signedness.
                let mut expected = if signed_final { i128::from(total as i64) } else { i128::from(total as u64) };
                if saturate {
                    expected = if signed_final {
                        expected.clamp(i128::from(i32::MIN), i128::from(i32::MAX))
                    } else {
                        expected.clamp(0, i128::from(u32::MAX))
                    };
                }
                assert_eq!(result[index] as u32, expected as u32, "{} with {row:x?}", statement(index, form));
            }
        }
    }
}

/// The negated forms' 128-bit sum in two 64-bit words is plain integer code for every target:
/// ptxas accepts the NVPTX output, spirv-val the SPIR-V, and AMDGPU compiles it.
#[test]
fn vmad_with_negated_sources_compiles_for_every_gpu_target() {
    use ptxr_tests::vendor_checks::{compile, ptxas_accepts, spirv_environment, spirv_val, Compiled};
    let source = ".version 7.8\n.target sm_80\n.address_size 64\n\
        .visible .entry negated_vmad(.param .u64 data)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<2>;\n\
        ld.param.u64 %rd1, [data];\ncvta.to.global.u64 %rd1, %rd1;\n\
        ld.global.u32 %r1, [%rd1];\nld.global.u32 %r2, [%rd1+4];\nld.global.u32 %r3, [%rd1+8];\n\
        vmad.u32.u32.u32.sat %r4, -%r1, %r2, %r3;\n\
        vmad.s32.u32.s32.shr15 %r5, %r1.h1, %r2, -%r3;\n\
        vmad.s32.s32.u32.sat.shr7 %r6, -%r1, -%r2.b3, -%r3;\n\
        add.u32 %r7, %r4, %r5;\nadd.u32 %r7, %r7, %r6;\nst.global.u32 [%rd1], %r7;\nret;\n}\n";
    let artefact = |target: &str| match compile(source, target) {
        Compiled::Artefact(bytes) => bytes,
        Compiled::Unsupported(messages) => panic!("{target}: unsupported: {messages:?}"),
        Compiled::Rejected(message) => panic!("{target}: rejected: {message}"),
    };
    let ptx = artefact("nvptx");
    if let Some(verdict) = ptxas_accepts(&ptx, "sm_80", "negated-vmad") {
        verdict.unwrap_or_else(|error| panic!("ptxas: {error}\n{}", String::from_utf8_lossy(&ptx)));
    }
    let binary = artefact("spirv");
    if let Some(verdict) = spirv_val(&binary, &spirv_environment(&binary), "negated-vmad") {
        verdict.unwrap_or_else(|error| panic!("spirv-val: {error}"));
    }
    assert!(!artefact("amdgpu").is_empty());
}

/// `min`/`max` of ISA 8.0 on 16-bit lanes and with `.relu` (sections 9.7.1.10, 9.7.1.11),
/// against a model on `i16`/`u16` lanes and `i32`.
#[test]
fn lane_minimum_and_maximum_with_relu() {
    let mut random = Random::new(80);
    let mut words = words_with_edges(&mut random, 256);
    // Lanes that differ only in sign, or in the other lane.
    words.extend([0x8000_7fff, 0x7fff_8000, 0xffff_0001, 0x0001_ffff, 0x8000_8000, 0]);
    let rows: Vec<Vec<u64>> = words
        .chunks(2)
        .filter(|pair| pair.len() == 2)
        .map(|pair| vec![pair[0] & 0xffff_ffff, pair[1] & 0xffff_ffff])
        .collect();
    type Lane = fn(u16, u16) -> u16;
    let signed_min: Lane = |a, b| (a as i16).min(b as i16) as u16;
    let signed_max: Lane = |a, b| (a as i16).max(b as i16) as u16;
    let unsigned_min: Lane = |a, b| a.min(b);
    let unsigned_max: Lane = |a, b| a.max(b);
    let relu = |lane: u16| if (lane as i16) < 0 { 0 } else { lane };
    let forms: [(&str, Lane, bool); 6] = [
        ("min.s16x2", signed_min, false),
        ("max.s16x2", signed_max, false),
        ("min.u16x2", unsigned_min, false),
        ("max.u16x2", unsigned_max, false),
        ("min.relu.s16x2", signed_min, true),
        ("max.relu.s16x2", signed_max, true),
    ];
    for (instruction, lane, with_relu) in forms {
        let output = run_rows_at("sm_90", "8.0", "u32", "", &format!("{instruction} %d0, %a0, %a1;"), &rows, 1);
        for (row, got) in rows.iter().zip(&output) {
            let (a, b) = (row[0] as u32, row[1] as u32);
            let lanes = |word: u32| [word as u16, (word >> 16) as u16];
            let [a_low, a_high] = lanes(a);
            let [b_low, b_high] = lanes(b);
            let finish = |value: u16| if with_relu { relu(value) } else { value };
            let expected = u32::from(finish(lane(a_low, b_low))) | u32::from(finish(lane(a_high, b_high))) << 16;
            assert_eq!(got[0] as u32, expected, "{instruction} {a:#010x}, {b:#010x}");
        }
    }
    for (instruction, minimum) in [("min.relu.s32", true), ("max.relu.s32", false)] {
        let output = run_rows_at("sm_90", "8.0", "u32", "", &format!("{instruction} %d0, %a0, %a1;"), &rows, 1);
        for (row, got) in rows.iter().zip(&output) {
            let (a, b) = (row[0] as u32 as i32, row[1] as u32 as i32);
            let chosen = if minimum { a.min(b) } else { a.max(b) };
            assert_eq!(got[0] as u32, chosen.max(0) as u32, "{instruction} {a:#x}, {b:#x}");
        }
    }
}
