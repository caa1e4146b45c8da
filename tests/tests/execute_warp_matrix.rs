//! `wmma.load`, `wmma.mma` and `wmma.store` (ISA 7.8 section 9.7.13.3) on every shape and type
//! family, on the CPU and, when an OpenCL platform is set up (`OCL_ICD_VENDORS`), on SPIR-V
//! through OpenCL (where the `mma` tiles are built from sub-group shuffles): a warp loads A, B
//! and C from memory in combinations of `.row`/`.col`, with and without a stride, multiplies,
//! and stores D. The models are independent of how ptxr spreads the matrices over the lanes
//! (PTX leaves that unspecified). Float operands are multiples of 1/64 of at most 4 (C: 16), so
//! every product and partial sum is exact in `f64` and D is A·B + C rounded once to D's type (the
//! `half` crate for `.f16`), which is what ptxr computes on the CPU
//! (`runtime/src/cooperative/matrix.rs`: one rounding of the sum); `.f64` adds the products to C
//! by fused multiply-adds in order of k, as ptxr documents; integers are exact, wrapping or
//! saturating to `.s32`. The GPU artefacts pass the vendors' checks (ptxas, spirv-val, the
//! AMDGPU code object's metadata).
use half::f16;
use ptxr_tests::vendor_checks::{compile, Compiled, Validators};
use ptxr_tests::{opencl, Buffer, Launch, Random};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Layout {
    Row,
    Column,
}

impl Layout {
    fn ptx(self) -> &'static str {
        match self {
            Layout::Row => "row",
            Layout::Column => "col",
        }
    }

    /// The element index of `(row, column)` with `leading` elements between rows or columns.
    fn index(self, row: usize, column: usize, leading: usize) -> usize {
        match self {
            Layout::Row => row * leading + column,
            Layout::Column => column * leading + row,
        }
    }
}

/// Where the kernel finds A.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Space {
    Global,
    Generic,
    /// Copied into a `.shared` tile first.
    Shared,
}

#[derive(Clone, Copy, Debug)]
struct Form {
    a: Layout,
    b: Layout,
    c: Layout,
    d: Layout,
    /// `.f32` C and D, or `.f16`.
    single: bool,
    /// `.m32n8k16` rather than `.m16n16k16`.
    tall: bool,
    /// Strides 40, 18, 36 and 34 for A, B, C and D, or none (the matrix's width or height).
    strided: bool,
    space: Space,
}

impl Form {
    /// `(m, n, k)`.
    fn dimensions(self) -> (usize, usize, usize) {
        if self.tall {
            (32, 8, 16)
        } else {
            (16, 16, 16)
        }
    }

    fn shape(self) -> &'static str {
        if self.tall {
            "m32n8k16"
        } else {
            "m16n16k16"
        }
    }

    /// `(rows, columns)` of A, B, C or D (0 to 3).
    fn size(self, matrix: usize) -> (usize, usize) {
        let (m, n, k) = self.dimensions();
        [(m, k), (k, n), (m, n), (m, n)][matrix]
    }

    fn layout(self, matrix: usize) -> Layout {
        [self.a, self.b, self.c, self.d][matrix]
    }

    /// The elements between rows (`.row`) or columns (`.col`).
    fn leading(self, matrix: usize) -> usize {
        let (rows, columns) = self.size(matrix);
        match (self.strided, self.layout(matrix)) {
            (true, _) => [40, 18, 36, 34][matrix],
            (false, Layout::Row) => columns,
            (false, Layout::Column) => rows,
        }
    }

    /// The elements the buffer of matrix `matrix` holds.
    fn elements(self, matrix: usize) -> usize {
        let (rows, columns) = self.size(matrix);
        self.leading(matrix) * if self.layout(matrix) == Layout::Row { rows } else { columns }
    }

    fn accumulator(self) -> &'static str {
        if self.single {
            "f32"
        } else {
            "f16"
        }
    }

    fn kernel(self) -> String {
        let accumulator = self.accumulator();
        let shape = self.shape();
        let (fragment_type, fragment_count) = if self.single { ("f32", 8) } else { ("b32", 4) };
        let list = |name: &str, count: usize| {
            format!("{{{}}}", (0..count).map(|index| format!("%{name}{index}")).collect::<Vec<_>>().join(", "))
        };
        let stride = |matrix: usize| if self.strided { format!(", %s{matrix}") } else { String::new() };
        let space = match self.space {
            Space::Global => ".global",
            Space::Generic => "",
            Space::Shared => ".shared",
        };
        let (tile, copy) = if self.space == Space::Shared {
            let elements = self.elements(0);
            (
                format!(".shared .align 4 .b16 tile[{elements}];"),
                format!(
                    "    mov.u32 %i, %tid.x;
COPY:
    setp.ge.u32 %p, %i, {elements};
    @%p bra COPIED;
    mul.wide.u32 %o, %i, 2;
    add.u64 %e, %g0, %o;
    ld.global.u16 %h, [%e];
    mov.u64 %e, tile;
    add.u64 %e, %e, %o;
    st.shared.u16 [%e], %h;
    add.u32 %i, %i, 32;
    bra COPY;
COPIED:
    bar.sync 0;
    mov.u64 %g0, tile;"
                ),
            )
        } else {
            (String::new(), String::new())
        };
        let space_of = |matrix: usize| {
            if matrix == 0 {
                space
            } else if self.space == Space::Global {
                ".global"
            } else {
                ""
            }
        };
        let to_global = if self.space == Space::Generic {
            ""
        } else {
            "    cvta.to.global.u64 %g0, %g0;
    cvta.to.global.u64 %g1, %g1;
    cvta.to.global.u64 %g2, %g2;
    cvta.to.global.u64 %g3, %g3;"
        };
        let (a_layout, b_layout, c_layout, d_layout) = (self.a.ptx(), self.b.ptx(), self.c.ptx(), self.d.ptx());
        let (space_a, space_b, space_c, space_d) = (space_of(0), space_of(1), space_of(2), space_of(3));
        let (stride_a, stride_b, stride_c, stride_d) = (stride(0), stride(1), stride(2), stride(3));
        let (a, b, c, d) = (list("a", 8), list("b", 8), list("c", fragment_count), list("d", fragment_count));
        format!(
            ".version 7.8
.target sm_80
.address_size 64
{tile}
.visible .entry test(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
    .reg .pred %p;
    .reg .b16 %h;
    .reg .b32 %i, %a<8>, %b<8>, %s<4>;
    .reg .{fragment_type} %c<8>, %d<8>;
    .reg .b64 %g<4>, %o, %e;
    ld.param.u64 %g0, [pa];
    ld.param.u64 %g1, [pb];
    ld.param.u64 %g2, [pc];
    ld.param.u64 %g3, [pd];
{to_global}
{copy}
    mov.u32 %s0, 40;
    mov.u32 %s1, 18;
    mov.u32 %s2, 36;
    mov.u32 %s3, 34;
    wmma.load.a.sync.aligned.{a_layout}.{shape}{space_a}.f16 {a}, [%g0]{stride_a};
    wmma.load.b.sync.aligned.{b_layout}.{shape}{space_b}.f16 {b}, [%g1]{stride_b};
    wmma.load.c.sync.aligned.{c_layout}.{shape}{space_c}.{accumulator} {c}, [%g2]{stride_c};
    wmma.mma.sync.aligned.{a_layout}.{b_layout}.{shape}.{accumulator}.{accumulator} {d}, {a}, {b}, {c};
    wmma.store.d.sync.aligned.{d_layout}.{shape}{space_d}.{accumulator} [%g3], {d}{stride_d};
    ret;
}}
"
        )
    }
}

/// A multiple of 1/64 of magnitude at most `bound`.
fn sixty_fourths(random: &mut Random, bound: u64) -> f64 {
    let steps = 64 * bound;
    (random.next_u64() % (2 * steps + 1)) as f64 / 64.0 - bound as f64
}

/// Checks `form` on the CPU, and on SPIR-V as well when `everywhere` (an OpenCL launch takes
/// seconds, so a few forms stand for all).
fn check(form: Form, seed: u64, everywhere: bool) {
    let mut random = Random::new(seed);
    let matrix = |random: &mut Random, (rows, columns): (usize, usize), bound: u64| -> Vec<Vec<f64>> {
        (0..rows).map(|_| (0..columns).map(|_| sixty_fourths(random, bound)).collect()).collect()
    };
    let a = matrix(&mut random, form.size(0), 4);
    let b = matrix(&mut random, form.size(1), 4);
    let c = matrix(&mut random, form.size(2), 16);
    let lay_out = |values: &Vec<Vec<f64>>, matrix: usize, encode: &dyn Fn(f64) -> u64| {
        let (layout, leading) = (form.layout(matrix), form.leading(matrix));
        let mut bits = vec![0u64; form.elements(matrix)];
        for (row, values) in values.iter().enumerate() {
            for (column, value) in values.iter().enumerate() {
                bits[layout.index(row, column, leading)] = encode(*value);
            }
        }
        bits
    };
    let half_bits = |value: f64| u64::from(f16::from_f64(value).to_bits());
    let single_bits = |value: f64| u64::from((value as f32).to_bits());
    let accumulator_bits: &dyn Fn(f64) -> u64 = if form.single { &single_bits } else { &half_bits };
    let accumulator_element = if form.single { "f32" } else { "u16" };
    let (m, n, k) = form.dimensions();
    let expected_d: Vec<Vec<f64>> = (0..m)
        .map(|row| {
            (0..n).map(|column| c[row][column] + (0..k).map(|k| a[row][k] * b[k][column]).sum::<f64>()).collect()
        })
        .collect();
    let buffers = [
        Buffer::new("u16", lay_out(&a, 0, &half_bits)),
        Buffer::new("u16", lay_out(&b, 1, &half_bits)),
        Buffer::new(accumulator_element, lay_out(&c, 2, accumulator_bits)),
        Buffer::zeroed(accumulator_element, form.elements(3)),
    ];
    // Rounded once from the exact sum; the gaps between rows or columns stay zero.
    let expected = lay_out(&expected_d, 3, accumulator_bits);
    let launch = Launch::threads(32);
    let results = if everywhere {
        opencl::run_everywhere(&form.kernel(), &launch, &buffers, OPENCL_CHILD)
    } else {
        vec![("cpu", ptxr_tests::run_ok(&form.kernel(), &launch, &buffers))]
    };
    for (device, output) in results {
        assert_eq!(output[3], expected, "{form:?} on {device}");
    }
}

#[test]
fn every_layout_with_and_without_stride() {
    let layouts = [Layout::Row, Layout::Column];
    let mut seed = 1;
    for tall in [false, true] {
        for single in [true, false] {
            for strided in [false, true] {
                for a in layouts {
                    for b in layouts {
                        for c in layouts {
                            let d =
                                if a == b { c } else { [Layout::Column, Layout::Row][(c == Layout::Column) as usize] };
                            seed += 1;
                            let everywhere = strided && a != b && c == a && (!tall || (single && a == Layout::Row));
                            let form = Form { a, b, c, d, tall, single, strided, space: Space::Global };
                            check(form, seed, everywhere);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn generic_and_shared_addresses() {
    for (seed, space) in [(100, Space::Generic), (101, Space::Shared)] {
        for (tall, single, strided) in [(false, true, true), (false, false, false), (true, false, true)] {
            let form = Form {
                a: Layout::Column,
                b: Layout::Row,
                c: Layout::Row,
                d: Layout::Column,
                tall,
                single,
                strided,
                space,
            };
            check(form, seed, single);
        }
    }
}

/// ptxas accepts the NVPTX output (NVPTX's own `wmma` instructions), spirv-val the SPIR-V and
/// llvm-readelf finds the kernel in the AMDGPU code object.
#[test]
fn gpu_artefacts_pass_the_vendors_checks() {
    let Some(validators) = Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-wmma-validation-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let forms = [(false, true, Space::Global, Layout::Row), (true, false, Space::Shared, Layout::Column)];
    for (index, (tall, single, space, layout)) in forms.into_iter().enumerate() {
        let form = Form { a: layout, b: Layout::Column, c: layout, d: Layout::Row, tall, single, strided: true, space };
        let source = form.kernel();
        for target in ["nvptx", "spirv", "amdgpu"] {
            let Compiled::Artefact(artefact) = compile(&source, target) else {
                panic!("{form:?} does not compile for {target}")
            };
            let name = format!("wmma{index}");
            if let Err(message) = validators.check(target, &name, &source, &artefact, &scratch) {
                panic!("{form:?} on {target}: {message}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The element types of one `wmma.mma` family (ISA 7.8 section 9.7.13.3).
#[derive(Clone, Copy, PartialEq, Debug)]
enum Family {
    /// `.f16` A and B; C and D each `.f16` or `.f32` (`true`).
    Half { c_single: bool, d_single: bool },
    /// `.bf16` A and B, `.f32` C and D.
    Brain,
    /// `.tf32` A and B (`.m16n16k8`), `.f32` C and D.
    Tensor,
    /// `.s8` (`signed`) or `.u8` A and B, `.s32` C and D, wrapping or with `.satfinite`.
    Byte { signed: bool, saturate: bool },
    /// `.f64` everywhere (`.m8n8k4`), with `.rn` written out or not.
    Double { rounding: bool },
    /// `.s4` (`signed`) or `.u4` A and B (`.m8n8k32`), `.s32` C and D.
    Nibble { signed: bool, saturate: bool },
    /// `.b1` A and B (`.m8n8k128`) with `.and.popc` (`and`) or `.xor.popc`, `.s32` C and D.
    Bit { and: bool },
}

/// One matrix's element: its PTX type, the register that holds a fragment's part of it, the
/// launch buffer's element (`u32` words for the sub-byte types, which pack their elements
/// first in the low bits) and its size in bits.
#[derive(Clone, Copy)]
struct Element {
    ptx: &'static str,
    register: &'static str,
    buffer: &'static str,
    bits: usize,
}

const HALF: Element = Element { ptx: "f16", register: "b32", buffer: "u16", bits: 16 };
const BRAIN: Element = Element { ptx: "bf16", register: "b32", buffer: "u16", bits: 16 };
const TENSOR: Element = Element { ptx: "tf32", register: "b32", buffer: "u32", bits: 32 };
const SINGLE: Element = Element { ptx: "f32", register: "f32", buffer: "u32", bits: 32 };
const SIGNED_BYTE: Element = Element { ptx: "s8", register: "b32", buffer: "u8", bits: 8 };
const UNSIGNED_BYTE: Element = Element { ptx: "u8", register: "b32", buffer: "u8", bits: 8 };
const WORD: Element = Element { ptx: "s32", register: "s32", buffer: "u32", bits: 32 };
const DOUBLE: Element = Element { ptx: "f64", register: "f64", buffer: "u64", bits: 64 };
const SIGNED_NIBBLE: Element = Element { ptx: "s4", register: "b32", buffer: "u32", bits: 4 };
const UNSIGNED_NIBBLE: Element = Element { ptx: "u4", register: "b32", buffer: "u32", bits: 4 };
const BIT: Element = Element { ptx: "b1", register: "b32", buffer: "u32", bits: 1 };

/// A `wmma` load, multiply and store of one family and shape, in layouts `layouts` (A, B, C,
/// D), with strides 16 bytes longer than the matrices' rows or columns or none.
#[derive(Clone, Copy, Debug)]
struct Case {
    family: Family,
    /// `(m, n, k)`.
    shape: (usize, usize, usize),
    layouts: [Layout; 4],
    strided: bool,
    /// D's registers are C's in reverse order, so that the first tile's D overwrites the C
    /// that the second reads (valid PTX: the instruction reads its operands before writing).
    reversed_in_place: bool,
}

impl Case {
    fn element(self, matrix: usize) -> Element {
        match (self.family, matrix) {
            (Family::Half { .. }, 0 | 1) => HALF,
            (Family::Half { c_single, .. }, 2) => [HALF, SINGLE][c_single as usize],
            (Family::Half { d_single, .. }, _) => [HALF, SINGLE][d_single as usize],
            (Family::Brain, 0 | 1) => BRAIN,
            (Family::Tensor, 0 | 1) => TENSOR,
            (Family::Brain | Family::Tensor, _) => SINGLE,
            (Family::Byte { signed, .. }, 0 | 1) => [UNSIGNED_BYTE, SIGNED_BYTE][signed as usize],
            (Family::Nibble { signed, .. }, 0 | 1) => [UNSIGNED_NIBBLE, SIGNED_NIBBLE][signed as usize],
            (Family::Bit { .. }, 0 | 1) => BIT,
            (Family::Byte { .. } | Family::Nibble { .. } | Family::Bit { .. }, _) => WORD,
            (Family::Double { .. }, _) => DOUBLE,
        }
    }

    /// `(rows, columns)` of A, B, C or D (0 to 3).
    fn size(self, matrix: usize) -> (usize, usize) {
        let (m, n, k) = self.shape;
        [(m, k), (k, n), (m, n), (m, n)][matrix]
    }

    fn leading(self, matrix: usize) -> usize {
        let (rows, columns) = self.size(matrix);
        let dense = if self.layouts[matrix] == Layout::Row { columns } else { rows };
        if self.strided {
            dense + 128 / self.element(matrix).bits
        } else {
            dense
        }
    }

    fn elements(self, matrix: usize) -> usize {
        let (rows, columns) = self.size(matrix);
        self.leading(matrix) * if self.layouts[matrix] == Layout::Row { rows } else { columns }
    }

    /// Registers of each lane's fragment of matrix `matrix` (ISA 7.8 section 9.7.13.3).
    fn registers(self, matrix: usize) -> usize {
        let element = self.element(matrix);
        let (rows, columns) = self.size(matrix);
        match element.ptx {
            "f16" if matrix < 2 => 8,
            "f64" => rows * columns / 32,
            _ => rows * columns * element.bits / (32 * 32),
        }
    }

    fn kernel(self) -> String {
        let (m, n, k) = self.shape;
        let shape = format!("m{m}n{n}k{k}");
        let names = ["a", "b", "c", "d"];
        let list = |matrix: usize| {
            let name = names[matrix];
            let mut registers = (0..self.registers(matrix)).map(|index| format!("%{name}{index}")).collect::<Vec<_>>();
            if matrix == 3 && self.reversed_in_place {
                registers = (0..self.registers(2)).rev().map(|index| format!("%c{index}")).collect();
            }
            format!("{{{}}}", registers.join(", "))
        };
        let declarations = (0..4)
            .map(|matrix| {
                format!("    .reg .{} %{}<{}>;", self.element(matrix).register, names[matrix], self.registers(matrix))
            })
            .collect::<Vec<_>>()
            .join("\n");
        let stride = |matrix: usize| if self.strided { format!(", %s{matrix}") } else { String::new() };
        let access = |matrix: usize| {
            let layout = self.layouts[matrix].ptx();
            let ty = self.element(matrix).ptx;
            if matrix == 3 {
                format!("wmma.store.d.sync.aligned.{layout}.{shape}.global.{ty} [%g3], {}{};", list(3), stride(3))
            } else {
                let which = names[matrix];
                format!(
                    "wmma.load.{which}.sync.aligned.{layout}.{shape}.global.{ty} {}, [%g{matrix}]{};",
                    list(matrix),
                    stride(matrix)
                )
            }
        };
        let (d, a, b, c) = (self.element(3).ptx, self.element(0).ptx, self.element(1).ptx, self.element(2).ptx);
        let (types, extra) = match self.family {
            Family::Half { .. } => (format!(".{d}.{c}"), ""),
            Family::Byte { saturate: true, .. } | Family::Nibble { saturate: true, .. } => {
                (format!(".{d}.{a}.{b}.{c}"), ".satfinite")
            }
            Family::Double { rounding: true } => (format!(".rn.{d}.{a}.{b}.{c}"), ""),
            _ => (format!(".{d}.{a}.{b}.{c}"), ""),
        };
        let (a_layout, b_layout) = (self.layouts[0].ptx(), self.layouts[1].ptx());
        let strides =
            (0..4).map(|matrix| format!("    mov.u32 %s{matrix}, {};", self.leading(matrix))).collect::<Vec<_>>();
        format!(
            ".version 7.8
.target sm_80
.address_size 64
.visible .entry test(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
    .reg .b32 %s<4>;
    .reg .b64 %g<4>;
{declarations}
    ld.param.u64 %g0, [pa];
    ld.param.u64 %g1, [pb];
    ld.param.u64 %g2, [pc];
    ld.param.u64 %g3, [pd];
    cvta.to.global.u64 %g0, %g0;
    cvta.to.global.u64 %g1, %g1;
    cvta.to.global.u64 %g2, %g2;
    cvta.to.global.u64 %g3, %g3;
{strides}
    {load_a}
    {load_b}
    {load_c}
    wmma.mma{operation}.sync.aligned.{a_layout}.{b_layout}.{shape}{types}{extra} {dl}, {al}, {bl}, {cl};
    {store}
    ret;
}}
",
            strides = strides.join("\n"),
            operation = match self.family {
                Family::Bit { and: true } => ".and.popc",
                Family::Bit { and: false } => ".xor.popc",
                _ => "",
            },
            load_a = access(0),
            load_b = access(1),
            load_c = access(2),
            store = access(3),
            dl = list(3),
            al = list(0),
            bl = list(1),
            cl = list(2),
        )
    }

    /// Lays out `values` (row by row) as matrix `matrix` in its buffer, the gaps zero; sub-byte
    /// elements packed into 32-bit words, the first in the low bits.
    fn lay_out(self, matrix: usize, values: &[Vec<u64>]) -> Vec<u64> {
        let (layout, leading) = (self.layouts[matrix], self.leading(matrix));
        let width = self.element(matrix).bits;
        let per_word = if width < 8 { 32 / width } else { 1 };
        let mut bits = vec![0u64; self.elements(matrix) / per_word];
        for (row, values) in values.iter().enumerate() {
            for (column, value) in values.iter().enumerate() {
                let index = layout.index(row, column, leading);
                let mask = if width < 8 { (1 << width) - 1 } else { u64::MAX };
                bits[index / per_word] |= (*value & mask) << (width * (index % per_word));
            }
        }
        bits
    }
}

/// The bits of a multiple of 1/64 of magnitude at most 4 (or 16 for C) in `element`'s format,
/// and its value: products and sums of these are exact in `f64`, so the model's only rounding
/// is D's. `.tf32` operands carry noise in the 13 low bits, which `.tf32` does not have.
fn float_operand(random: &mut Random, element: &Element, bound: u64) -> (u64, f64) {
    let value = sixty_fourths(random, bound);
    let bits = match element.ptx {
        "f16" => u64::from(f16::from_f64(value).to_bits()),
        "bf16" => u64::from(half::bf16::from_f64(value).to_bits()),
        "tf32" => u64::from((value as f32).to_bits() | (random.next_u32() & 0x1fff)),
        _ => u64::from((value as f32).to_bits()),
    };
    (bits, value)
}

/// A matrix's entries, row by row: each element's bits and its value.
type Entries = Vec<Vec<(u64, f64)>>;

/// D's expected bits for every family: floats as the exact sum rounded once to D's type
/// (`.f64`: fused multiply-adds in order of k, as ptxr documents), integers exactly, wrapped or
/// saturated to 32 bits.
fn check_case(case: Case, seed: u64, everywhere: bool) {
    let mut random = Random::new(seed);
    let (m, n, k) = case.shape;
    let matrix = |random: &mut Random, index: usize, entry: &mut dyn FnMut(&mut Random) -> (u64, f64)| {
        let (rows, columns) = case.size(index);
        (0..rows).map(|_| (0..columns).map(|_| entry(random)).collect::<Vec<_>>()).collect::<Vec<_>>()
    };
    let (a, b, c): (Entries, Entries, Entries) = match case.family {
        Family::Byte { .. } | Family::Nibble { .. } | Family::Bit { .. } => {
            let (width, signed) = match case.family {
                Family::Byte { signed, .. } => (8, signed),
                Family::Nibble { signed, .. } => (4, signed),
                _ => (1, false),
            };
            let mut byte = |random: &mut Random| {
                let bits = random.next_u64() & ((1 << width) - 1);
                let value = if signed && bits >> (width - 1) == 1 { bits as i64 - (1 << width) } else { bits as i64 };
                (bits, value as f64)
            };
            let a = matrix(&mut random, 0, &mut byte);
            let b = matrix(&mut random, 1, &mut byte);
            // C near both ends of the `.s32` range where it saturates or wraps, elsewhere anywhere.
            let mut word = |random: &mut Random| {
                let offset = (random.next_u64() % 300_000) as i64;
                let value = match random.next_u64() % 3 {
                    0 => i64::from(i32::MAX) - offset,
                    1 => i64::from(i32::MIN) + offset,
                    _ => i64::from(random.next_u32() as i32),
                };
                (value as i32 as u32 as u64, value as f64)
            };
            let c = matrix(&mut random, 2, &mut word);
            (a, b, c)
        }
        Family::Double { .. } => {
            let mut double = |random: &mut Random| {
                let value = (random.next_u64() as i64 as f64) / (1u64 << 60) as f64;
                (value.to_bits(), value)
            };
            (
                matrix(&mut random, 0, &mut double),
                matrix(&mut random, 1, &mut double),
                matrix(&mut random, 2, &mut double),
            )
        }
        _ => {
            let (ea, eb, ec) = (case.element(0), case.element(1), case.element(2));
            (
                matrix(&mut random, 0, &mut |random| float_operand(random, &ea, 4)),
                matrix(&mut random, 1, &mut |random| float_operand(random, &eb, 4)),
                matrix(&mut random, 2, &mut |random| float_operand(random, &ec, 16)),
            )
        }
    };
    let d: Vec<Vec<u64>> = (0..m)
        .map(|row| {
            (0..n)
                .map(|column| {
                    let products = (0..k).map(|index| (a[row][index].1, b[index][column].1));
                    let c = c[row][column].1;
                    match case.family {
                        Family::Bit { and } => {
                            let sum = products.fold(c as i64, |sum, (a, b)| {
                                let (a, b) = (a as i64, b as i64);
                                sum + if and { a & b } else { a ^ b }
                            });
                            u64::from(sum as i32 as u32)
                        }
                        Family::Byte { saturate, .. } | Family::Nibble { saturate, .. } => {
                            let sum = products.fold(c as i64, |sum, (a, b)| sum + a as i64 * b as i64);
                            let sum = if saturate { sum.clamp(i32::MIN.into(), i32::MAX.into()) } else { sum };
                            u64::from(sum as i32 as u32)
                        }
                        Family::Double { .. } => products.fold(c, |sum, (a, b)| a.mul_add(b, sum)).to_bits(),
                        _ => {
                            let sum = products.fold(c, |sum, (a, b)| sum + a * b);
                            if case.element(3).ptx == "f16" {
                                u64::from(f16::from_f64(sum).to_bits())
                            } else {
                                u64::from((sum as f32).to_bits())
                            }
                        }
                    }
                })
                .collect()
        })
        .collect();
    let bits = |values: &[Vec<(u64, f64)>]| {
        values.iter().map(|row| row.iter().map(|(bits, _)| *bits).collect()).collect::<Vec<Vec<u64>>>()
    };
    let buffers = [
        Buffer::new(case.element(0).buffer, case.lay_out(0, &bits(&a))),
        Buffer::new(case.element(1).buffer, case.lay_out(1, &bits(&b))),
        Buffer::new(case.element(2).buffer, case.lay_out(2, &bits(&c))),
        Buffer::zeroed(case.element(3).buffer, case.elements(3)),
    ];
    let expected = case.lay_out(3, &d);
    let launch = Launch::threads(32);
    let kernel = case.kernel();
    let results = if everywhere {
        opencl::run_everywhere(&kernel, &launch, &buffers, OPENCL_CHILD)
    } else {
        vec![("cpu", ptxr_tests::run_ok(&kernel, &launch, &buffers))]
    };
    for (device, output) in results {
        assert_eq!(output[3], expected, "{case:?} on {device}\n{kernel}");
    }
}

const STANDARD_SHAPES: [(usize, usize, usize); 3] = [(16, 16, 16), (32, 8, 16), (8, 32, 16)];

/// A, B, C and D layouts: every pair for A and B, C and D varied with them.
fn layouts() -> impl Iterator<Item = [Layout; 4]> {
    let both = [Layout::Row, Layout::Column];
    both.into_iter().flat_map(move |a| {
        both.into_iter().map(move |b| {
            let c = if a == b { Layout::Row } else { Layout::Column };
            [a, b, c, if c == Layout::Row { Layout::Column } else { Layout::Row }]
        })
    })
}

#[test]
fn every_half_precision_shape_with_mixed_accumulators() {
    let mut seed = 1000;
    for shape in STANDARD_SHAPES {
        for (c_single, d_single) in [(false, false), (false, true), (true, false), (true, true)] {
            for (index, layouts) in layouts().enumerate() {
                seed += 1;
                let case = Case {
                    family: Family::Half { c_single, d_single },
                    shape,
                    layouts,
                    strided: index % 2 == 0,
                    reversed_in_place: c_single == d_single && index == 3,
                };
                let everywhere = index == 1 && shape.1 == 32 && c_single != d_single;
                check_case(case, seed, everywhere);
            }
        }
    }
}

#[test]
fn bf16_and_tf32() {
    let mut seed = 2000;
    let cases = STANDARD_SHAPES.map(|shape| (Family::Brain, shape)).into_iter().chain([(Family::Tensor, (16, 16, 8))]);
    for (family, shape) in cases {
        for (index, layouts) in layouts().enumerate() {
            seed += 1;
            let everywhere = index == 2 && (shape.1 == 32 || family == Family::Tensor);
            check_case(
                Case { family, shape, layouts, strided: index % 2 == 1, reversed_in_place: index == 0 },
                seed,
                everywhere,
            );
        }
    }
}

#[test]
fn eight_bit_integers_wrap_or_saturate() {
    let mut seed = 3000;
    for shape in STANDARD_SHAPES {
        for signed in [true, false] {
            for saturate in [false, true] {
                for (index, layouts) in layouts().enumerate() {
                    seed += 1;
                    let case = Case {
                        family: Family::Byte { signed, saturate },
                        shape,
                        layouts,
                        strided: index % 2 == 0,
                        reversed_in_place: index == 1,
                    };
                    let everywhere = index == 3 && signed && saturate && shape.0 == 16;
                    check_case(case, seed, everywhere);
                }
            }
        }
    }
}

#[test]
fn double_precision() {
    let mut seed = 4000;
    for rounding in [false, true] {
        for (index, layouts) in layouts().enumerate() {
            seed += 1;
            let case = Case {
                family: Family::Double { rounding },
                shape: (8, 8, 4),
                layouts,
                strided: index % 2 == 0,
                reversed_in_place: index == 2,
            };
            check_case(case, seed, rounding && index == 1);
        }
    }
}

/// One case of every family and shape compiles for every GPU target, each artefact passing its
/// vendor's check; on NVPTX also for the oldest architecture of the form (sm_70 for `.f16`,
/// sm_72 for the 8-bit integers, sm_75 for `.s4`/`.u4` and `.b1` with `.xor.popc`, sm_80 for
/// `.bf16`, `.tf32`, `.f64` and `.and.popc`, section 9.7.13.3's
/// target notes), whose `wmma` ptxas assembles, and one just below it is E0302.
#[test]
fn every_family_compiles_for_the_gpus() {
    let Some(validators) = Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-wmma-families-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let half = Family::Half { c_single: true, d_single: false };
    let byte = Family::Byte { signed: false, saturate: true };
    let families = STANDARD_SHAPES
        .into_iter()
        .flat_map(|shape| [(half, shape, 70), (Family::Brain, shape, 80), (byte, shape, 72)])
        .chain([(Family::Tensor, (16, 16, 8), 80), (Family::Double { rounding: true }, (8, 8, 4), 80)])
        .chain([
            (Family::Nibble { signed: true, saturate: true }, (8, 8, 32), 75),
            (Family::Bit { and: false }, (8, 8, 128), 75),
            (Family::Bit { and: true }, (8, 8, 128), 80),
        ]);
    for (index, (family, shape, oldest)) in families.enumerate() {
        let sub_byte = matches!(family, Family::Nibble { .. } | Family::Bit { .. });
        let layouts = if sub_byte {
            [Layout::Row, Layout::Column, Layout::Column, Layout::Row]
        } else {
            [Layout::Column, Layout::Row, Layout::Row, Layout::Column]
        };
        let case = Case { family, shape, layouts, strided: index % 2 == 0, reversed_in_place: false };
        let source = case.kernel();
        for target in ["nvptx", "spirv", "amdgpu"] {
            let Compiled::Artefact(artefact) = compile(&source, target) else {
                panic!("{case:?} does not compile for {target}")
            };
            let name = format!("wmma-family{index}");
            if let Err(message) = validators.check(target, &name, &source, &artefact, &scratch) {
                panic!("{case:?} on {target}: {message}");
            }
        }
        let for_arch = |arch: u32| {
            let target = ptxr_driver::target::describe("nvptx", Some(&format!("sm_{arch}")), false)
                .unwrap_or_else(|error| panic!("{error}"));
            let options = ptxr_driver::CompileOptions { target, emit: None, optimization: 2 };
            ptxr_driver::compile_source(&source, "kernel", &options)
        };
        let oldest_ptx = for_arch(oldest).unwrap_or_else(|failure| panic!("{case:?} on sm_{oldest}: {failure:?}"));
        let text = String::from_utf8_lossy(&oldest_ptx.bytes);
        assert!(text.contains("wmma.mma"), "{case:?} on sm_{oldest}:\n{text}");
        if let Some(verdict) = ptxr_tests::vendor_checks::ptxas_accepts(
            &oldest_ptx.bytes,
            &format!("sm_{oldest}"),
            &format!("wmma-oldest{index}"),
        ) {
            verdict.unwrap_or_else(|message| panic!("{case:?} on sm_{oldest}: ptxas: {message}"));
        }
        let below = match oldest {
            70 => 62,
            72 => 70,
            75 => 72,
            _ => 75,
        };
        match for_arch(below) {
            Err(ptxr_driver::Failure::Diagnostics(diagnostics)) => assert!(
                diagnostics
                    .iter()
                    .any(|diagnostic| diagnostic.code == ptxr_frontend::diagnostic::Code::NeedsNewerTarget),
                "{case:?} on sm_{below}: {diagnostics:?}"
            ),
            other => panic!("{case:?} on sm_{below}: {:?}", other.map(|_| ())),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn sub_byte_integers_and_single_bits() {
    let mut seed = 5000;
    let families = [
        Family::Nibble { signed: true, saturate: false },
        Family::Nibble { signed: true, saturate: true },
        Family::Nibble { signed: false, saturate: false },
        Family::Nibble { signed: false, saturate: true },
        Family::Bit { and: false },
        Family::Bit { and: true },
    ];
    for family in families {
        let shape = if matches!(family, Family::Bit { .. }) { (8, 8, 128) } else { (8, 8, 32) };
        // A is `.row` and B `.col` in these shapes; C and D take either.
        for (index, (c, d)) in [(Layout::Row, Layout::Column), (Layout::Column, Layout::Row)].into_iter().enumerate() {
            seed += 1;
            let case = Case {
                family,
                shape,
                layouts: [Layout::Row, Layout::Column, c, d],
                strided: index == 0,
                reversed_in_place: index == 1,
            };
            check_case(
                case,
                seed,
                index == 0 && matches!(family, Family::Nibble { saturate: true, .. } | Family::Bit { and: false }),
            );
        }
    }
}

/// A kernel around one instruction, with registers of every fragment type.
fn wrapped(body: &str) -> String {
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry test(.param .u64 p)\n{{\n    .reg .b32 %r<9>;\n    .reg .s32 %s<9>;\n    .reg .f32 %f<9>;\n    .reg .f64 %fd<5>;\n    .reg .b64 %rd<2>;\n    ld.param.u64 %rd1, [p];\n    {body};\n    ret;\n}}\n"
    )
}

/// Forms the spec does not define are errors (not "unsupported"): mixed `.s8`/`.u8`, a type
/// that the shape does not take, sub-byte A in `.col`, `.xor.popc` off `.b1`, `.satfinite` on
/// `.bf16`, rounding off `.f64`.
#[test]
fn forms_outside_the_spec_are_errors() {
    let bodies = [
        "wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.u8.s32 {%s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8}, {%r1, %r2}, {%r3, %r4}, {%s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8}",
        "wmma.load.a.sync.aligned.row.m16n16k16.global.tf32 {%r1, %r2, %r3, %r4}, [%rd1]",
        "wmma.load.a.sync.aligned.col.m8n8k32.global.s4 {%r1}, [%rd1]",
        "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 {%s1, %s2}, {%r1}, {%r2}, {%s1, %s2}",
        "wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%s1, %s2}, {%r1}, {%r2}, {%s1, %s2}",
        "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32.satfinite {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}",
        "wmma.mma.sync.aligned.row.col.m16n16k8.rn.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}",
    ];
    for body in bodies {
        let (_, diagnostics) = ptxr_frontend::check_source(&wrapped(body));
        assert!(
            diagnostics.iter().any(|diagnostic| diagnostic.code == ptxr_frontend::diagnostic::Code::InvalidModifier),
            "{body}: {diagnostics:?}"
        );
    }
}

/// An `.f64` multiple of 2^-60, as that integer.
fn sixtieths(value: f64) -> i128 {
    (value * 2f64.powi(60)) as i128
}

/// `value` (in units of 2^-60) rounded to 53 significant bits toward zero (`'z'`), minus
/// infinity (`'m'`) or plus infinity (`'p'`); an exact zero is `-0` under `'m'`.
fn round_directed(value: i128, mode: char) -> f64 {
    if value == 0 {
        return if mode == 'm' { -0.0 } else { 0.0 };
    }
    let magnitude = value.unsigned_abs();
    let width = 128 - magnitude.leading_zeros();
    let mut kept = magnitude;
    if width > 53 {
        let shift = width - 53;
        let truncated = magnitude >> shift;
        let inexact = magnitude & ((1 << shift) - 1) != 0;
        let away = inexact && ((mode == 'p' && value > 0) || (mode == 'm' && value < 0));
        kept = (truncated + u128::from(away)) << shift;
    }
    let rounded = kept as f64 * 2f64.powi(-60);
    if value < 0 {
        -rounded
    } else {
        rounded
    }
}

/// `.m8n8k4.rz/.rm/.rp.f64`: each of the four products is added to the running sum (C first)
/// by a fused multiply-add rounded in the mode. A and B are multiples of 2^-30 below 2^-10 and C
/// has 53 significant bits near 2^20, so the exact sums need about 80 bits and every step
/// rounds; the model sums exactly in units of 2^-60 and rounds each step itself.
#[test]
fn double_precision_in_every_directed_rounding() {
    for (index, mode) in ['z', 'm', 'p'].into_iter().enumerate() {
        let mut random = Random::new(6000 + index as u64);
        let small = |random: &mut Random| ((random.next_u64() % (1 << 21)) as f64 - (1 << 20) as f64) * 2f64.powi(-30);
        let a: Vec<Vec<f64>> = (0..8).map(|_| (0..4).map(|_| small(&mut random)).collect()).collect();
        let b: Vec<Vec<f64>> = (0..4).map(|_| (0..8).map(|_| small(&mut random)).collect()).collect();
        let c: Vec<Vec<f64>> = (0..8)
            .map(|_| {
                (0..8)
                    .map(|_| {
                        let mantissa = (random.next_u64() >> 11) as f64;
                        let sign = if random.next_u64() % 2 == 0 { 1.0 } else { -1.0 };
                        sign * mantissa * 2f64.powi(-33)
                    })
                    .collect()
            })
            .collect();
        let d: Vec<Vec<u64>> = (0..8)
            .map(|row| {
                (0..8)
                    .map(|column| {
                        (0..4)
                            .fold(c[row][column], |sum, k| {
                                round_directed(
                                    sixtieths(a[row][k]) * sixtieths(b[k][column]) / (1 << 60) + sixtieths(sum),
                                    mode,
                                )
                            })
                            .to_bits()
                    })
                    .collect()
            })
            .collect();
        // The mode matters: round-to-nearest fused multiply-adds give other bits somewhere.
        let nearest = (0..64).filter(|index| {
            let (row, column) = (index / 8, index % 8);
            let sum = (0..4).fold(c[row][column], |sum, k| a[row][k].mul_add(b[k][column], sum));
            sum.to_bits() != d[row][column]
        });
        assert!(nearest.count() > 0, ".r{mode} rounds like .rn on every element");
        let layouts = [Layout::Row, Layout::Column, Layout::Row, Layout::Column];
        let case = Case {
            family: Family::Double { rounding: true },
            shape: (8, 8, 4),
            layouts,
            strided: true,
            reversed_in_place: false,
        };
        let bits = |values: &Vec<Vec<f64>>| {
            values.iter().map(|row| row.iter().map(|value| value.to_bits()).collect()).collect::<Vec<Vec<u64>>>()
        };
        let kernel = case.kernel().replace(".rn.f64", &format!(".r{mode}.f64"));
        let buffers = [
            Buffer::new("u64", case.lay_out(0, &bits(&a))),
            Buffer::new("u64", case.lay_out(1, &bits(&b))),
            Buffer::new("u64", case.lay_out(2, &bits(&c))),
            Buffer::zeroed("u64", case.elements(3)),
        ];
        let expected = case.lay_out(3, &d);
        for (device, output) in opencl::run_everywhere(&kernel, &Launch::threads(32), &buffers, OPENCL_CHILD) {
            assert_eq!(output[3], expected, ".r{mode} on {device}\n{kernel}");
        }
    }
}
