//! `wmma.load`, `wmma.mma` and `wmma.store` on `.m16n16k16` and `.m32n8k16` (ISA 7.8 section 9.7.13.3) on the
//! CPU and, when an OpenCL platform is set up (`OCL_ICD_VENDORS`), on SPIR-V through OpenCL
//! (where the `mma` halves are built from sub-group shuffles): a warp loads A, B and C from memory in every combination of `.row`/`.col`, with and
//! without a stride, from `.global`, generic and `.shared` addresses, multiplies, and stores D.
//! The model is independent of how ptxr spreads the matrices over the lanes (PTX leaves that
//! unspecified): A and B hold multiples of 1/64 of at most 4 and C multiples of 1/64 of at most
//! 16, so every product and every partial sum is exact in `f64`, and D is A·B + C rounded once
//! to D's type (the `half` crate for `.f16`), which is what ptxr computes on the CPU
//! (`runtime/src/cooperative/matrix.rs`: one rounding of the sum).
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

/// ptxas accepts the NVPTX output (two `mma.sync.aligned.m16n8k16` per `wmma.mma`), spirv-val
/// the SPIR-V and llvm-readelf finds the kernel in the AMDGPU code object.
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
