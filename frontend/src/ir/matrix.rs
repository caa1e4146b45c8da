//! The vocabulary of the warp-level matrix instructions `mma` and `ldmatrix` (ISA 7.8 sections
//! 9.7.13.4.14 and 9.7.13.4.15): shapes, element types, and how many 32-bit registers each
//! lane's fragment of each operand takes.

use std::fmt;

/// `.mMnNkK`: the product of an M×K matrix A and a K×N matrix B, added to an M×N matrix C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixShape {
    M8n8k4,
    M8n8k16,
    M8n8k32,
    M8n8k128,
    M16n8k4,
    M16n8k8,
    M16n8k16,
    M16n8k32,
    M16n8k64,
    M16n8k128,
    M16n8k256,
}

impl MatrixShape {
    pub fn from_ptx(name: &str) -> Option<MatrixShape> {
        Some(match name {
            "m8n8k4" => MatrixShape::M8n8k4,
            "m8n8k16" => MatrixShape::M8n8k16,
            "m8n8k32" => MatrixShape::M8n8k32,
            "m8n8k128" => MatrixShape::M8n8k128,
            "m16n8k4" => MatrixShape::M16n8k4,
            "m16n8k8" => MatrixShape::M16n8k8,
            "m16n8k16" => MatrixShape::M16n8k16,
            "m16n8k32" => MatrixShape::M16n8k32,
            "m16n8k64" => MatrixShape::M16n8k64,
            "m16n8k128" => MatrixShape::M16n8k128,
            "m16n8k256" => MatrixShape::M16n8k256,
            _ => return None,
        })
    }

    /// (M, N, K).
    pub fn dimensions(self) -> (u32, u32, u32) {
        match self {
            MatrixShape::M8n8k4 => (8, 8, 4),
            MatrixShape::M8n8k16 => (8, 8, 16),
            MatrixShape::M8n8k32 => (8, 8, 32),
            MatrixShape::M8n8k128 => (8, 8, 128),
            MatrixShape::M16n8k4 => (16, 8, 4),
            MatrixShape::M16n8k8 => (16, 8, 8),
            MatrixShape::M16n8k16 => (16, 8, 16),
            MatrixShape::M16n8k32 => (16, 8, 32),
            MatrixShape::M16n8k64 => (16, 8, 64),
            MatrixShape::M16n8k128 => (16, 8, 128),
            MatrixShape::M16n8k256 => (16, 8, 256),
        }
    }
}

impl fmt::Display for MatrixShape {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (m, n, k) = self.dimensions();
        write!(formatter, ".m{m}n{n}k{k}")
    }
}

/// The element types of `mma`'s operands. The sub-byte, `.b1` and `.f64` kinds are read so that
/// every form of the spec decodes, even where no target computes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixElement {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S8,
    U8,
    S4,
    U4,
    B1,
    S32,
    /// The 8-bit floats of ISA 8.4's `mma` on sm_89 (one sign, four exponent and three mantissa
    /// bits, no infinity) and
    E4m3,
    /// (five exponent and two mantissa bits, IEEE's infinities and NaNs).
    E5m2,
}

impl MatrixElement {
    pub fn from_ptx(name: &str) -> Option<MatrixElement> {
        Some(match name {
            "f16" => MatrixElement::F16,
            "bf16" => MatrixElement::Bf16,
            "tf32" => MatrixElement::Tf32,
            "f32" => MatrixElement::F32,
            "f64" => MatrixElement::F64,
            "s8" => MatrixElement::S8,
            "u8" => MatrixElement::U8,
            "s4" => MatrixElement::S4,
            "u4" => MatrixElement::U4,
            "b1" => MatrixElement::B1,
            "s32" => MatrixElement::S32,
            "e4m3" => MatrixElement::E4m3,
            "e5m2" => MatrixElement::E5m2,
            _ => return None,
        })
    }

    pub fn bits(self) -> u32 {
        match self {
            MatrixElement::F16 | MatrixElement::Bf16 => 16,
            MatrixElement::Tf32 | MatrixElement::F32 | MatrixElement::S32 => 32,
            MatrixElement::F64 => 64,
            MatrixElement::S8 | MatrixElement::U8 | MatrixElement::E4m3 | MatrixElement::E5m2 => 8,
            MatrixElement::S4 | MatrixElement::U4 => 4,
            MatrixElement::B1 => 1,
        }
    }
}

impl fmt::Display for MatrixElement {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            MatrixElement::F16 => ".f16",
            MatrixElement::Bf16 => ".bf16",
            MatrixElement::Tf32 => ".tf32",
            MatrixElement::F32 => ".f32",
            MatrixElement::F64 => ".f64",
            MatrixElement::S8 => ".s8",
            MatrixElement::U8 => ".u8",
            MatrixElement::S4 => ".s4",
            MatrixElement::U4 => ".u4",
            MatrixElement::B1 => ".b1",
            MatrixElement::S32 => ".s32",
            MatrixElement::E4m3 => ".e4m3",
            MatrixElement::E5m2 => ".e5m2",
        })
    }
}

/// `.row` or `.col`: how a multiplicand's elements are spread over the lanes' fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixLayout {
    Row,
    Column,
}

impl MatrixLayout {
    pub fn from_ptx(name: &str) -> Option<MatrixLayout> {
        match name {
            "row" => Some(MatrixLayout::Row),
            "col" => Some(MatrixLayout::Column),
            _ => None,
        }
    }
}

impl fmt::Display for MatrixLayout {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            MatrixLayout::Row => ".row",
            MatrixLayout::Column => ".col",
        })
    }
}

/// One `mma.sync.aligned.shape.alayout.blayout{.satfinite}.dtype.atype.btype.ctype`:
/// D = A·B + C, computed by the 32 lanes of a warp together. Only `.m8n8k4` takes layouts other
/// than `.row.col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixMultiply {
    pub shape: MatrixShape,
    pub a_layout: MatrixLayout,
    pub b_layout: MatrixLayout,
    pub d: MatrixElement,
    pub a: MatrixElement,
    pub b: MatrixElement,
    pub c: MatrixElement,
    /// `.satfinite` on integer forms: D saturates to the s32 range instead of wrapping.
    pub saturate: bool,
    /// `.b1`: how a bit of A meets a bit of B before the population count (`.xor.popc` or
    /// `.and.popc`); `None` on the other types.
    pub bit_operation: Option<BitOperation>,
}

/// What `mma.sp` adds to `mma` (ISA 7.8 section 9.7.13.5): A is structured-sparse, and the lane
/// gives only its non-zero elements; the metadata register `e` says where each lies in its
/// chunk of A's row, and the sparsity selector `f` which lanes of each group of four give the
/// metadata that counts.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseMatrixA {
    pub metadata: crate::ir::Operand,
    pub selector: u32,
}

/// The operation of a `.b1` matrix multiply: D = C + popc(A's row `op` B's column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BitOperation {
    Xor,
    And,
}

impl fmt::Display for BitOperation {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            BitOperation::Xor => ".xor.popc",
            BitOperation::And => ".and.popc",
        })
    }
}

impl MatrixMultiply {
    /// How many registers one lane holds of a `rows`×`columns` operand of `element`s (32-bit
    /// ones, or `.f64` ones for `.f64` elements):
    /// the warp's 32 lanes share the matrix evenly, several narrow elements to a register. This
    /// holds for every element type narrower than `.f64` and every shape but `.m8n8k4`, which
    /// on `.f16` four groups of eight lanes compute separately (each its own 8×8×4 product), so
    /// that its lanes hold four times as much.
    fn registers(&self, rows: u32, columns: u32, element: MatrixElement) -> u32 {
        if element == MatrixElement::F64 {
            // One `.f64` register per element.
            return rows * columns / 32;
        }
        let replication = if self.shape == MatrixShape::M8n8k4 && self.a == MatrixElement::F16 { 4 } else { 1 };
        (replication * rows * columns * element.bits()).div_ceil(32 * 32)
    }

    pub fn a_registers(&self) -> u32 {
        let (m, _, k) = self.shape.dimensions();
        self.registers(m, k, self.a)
    }

    pub fn b_registers(&self) -> u32 {
        let (_, n, k) = self.shape.dimensions();
        self.registers(k, n, self.b)
    }

    pub fn c_registers(&self) -> u32 {
        let (m, n, _) = self.shape.dimensions();
        self.registers(m, n, self.c)
    }

    pub fn d_registers(&self) -> u32 {
        let (m, n, _) = self.shape.dimensions();
        self.registers(m, n, self.d)
    }
}

/// The matrix a `wmma.load` or `wmma.store` moves: D is stored with C's fragments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpMatrixFragment {
    A,
    B,
    C,
}

/// The `wmma` shapes (ISA 7.8 section 9.7.13.3). ptxr spreads each over the lanes as the
/// `mma` tiles that compute it ([`WarpMatrixGeometry::tiling`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpMatrixGeometry {
    /// 16×16 A, B, C and D (`.f16`, `.bf16`, `.s8`/`.u8`): two `mma.m16n8k16`, one per 8-column
    /// half of D.
    M16n16k16,
    /// 32×16 A, 16×8 B, 32×8 C and D: two `mma.m16n8k16`, one per 16-row half of D.
    M32n8k16,
    /// 8×16 A, 16×32 B, 8×32 C and D: the transpose of `.m32n8k16` (Dᵀ = Bᵀ·Aᵀ + Cᵀ).
    M8n32k16,
    /// `.tf32`: 16×8 A, 8×16 B, 16×16 C and D: two `mma.m16n8k8`, one per 8-column half of D.
    M16n16k8,
    /// `.f64`: one `mma.m8n8k4`.
    M8n8k4,
    /// `.s4`/`.u4`: one `mma.m8n8k32`.
    M8n8k32,
    /// `.b1`: one `mma.m8n8k128`.
    M8n8k128,
}

/// How a `wmma` shape is made of `mma` tiles, each an operand of one `mma` with that `mma`'s
/// fragments (as `runtime/src/cooperative/matrix.rs` states them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpMatrixTiling {
    /// Two tiles side by side: A whole, B's and C's/D's left 8 columns, then the right 8.
    Columns,
    /// Two tiles stacked: B whole, A's and C's/D's top 16 rows, then the bottom 16.
    Rows,
    /// `Rows` of the transposed matrices (`.m8n32k16`): A's fragment is the tiles' B of Aᵀ, B's
    /// is the two tiles' A of Bᵀ, and C's/D's the two tiles' C of Cᵀ.
    TransposedRows,
    /// One tile.
    Single,
}

impl WarpMatrixGeometry {
    pub fn from_ptx(name: &str) -> Option<WarpMatrixGeometry> {
        Some(match name {
            "m16n16k16" => WarpMatrixGeometry::M16n16k16,
            "m32n8k16" => WarpMatrixGeometry::M32n8k16,
            "m8n32k16" => WarpMatrixGeometry::M8n32k16,
            "m16n16k8" => WarpMatrixGeometry::M16n16k8,
            "m8n8k4" => WarpMatrixGeometry::M8n8k4,
            "m8n8k32" => WarpMatrixGeometry::M8n8k32,
            "m8n8k128" => WarpMatrixGeometry::M8n8k128,
            _ => return None,
        })
    }

    /// (M, N, K).
    pub fn dimensions(self) -> (u32, u32, u32) {
        match self {
            WarpMatrixGeometry::M16n16k16 => (16, 16, 16),
            WarpMatrixGeometry::M32n8k16 => (32, 8, 16),
            WarpMatrixGeometry::M8n32k16 => (8, 32, 16),
            WarpMatrixGeometry::M16n16k8 => (16, 16, 8),
            WarpMatrixGeometry::M8n8k4 => (8, 8, 4),
            WarpMatrixGeometry::M8n8k32 => (8, 8, 32),
            WarpMatrixGeometry::M8n8k128 => (8, 8, 128),
        }
    }

    /// The shape of the `mma` that computes one tile.
    pub fn tile_shape(self) -> MatrixShape {
        match self {
            WarpMatrixGeometry::M16n16k16 | WarpMatrixGeometry::M32n8k16 | WarpMatrixGeometry::M8n32k16 => {
                MatrixShape::M16n8k16
            }
            WarpMatrixGeometry::M16n16k8 => MatrixShape::M16n8k8,
            WarpMatrixGeometry::M8n8k4 => MatrixShape::M8n8k4,
            WarpMatrixGeometry::M8n8k32 => MatrixShape::M8n8k32,
            WarpMatrixGeometry::M8n8k128 => MatrixShape::M8n8k128,
        }
    }

    pub fn tiling(self) -> WarpMatrixTiling {
        match self {
            WarpMatrixGeometry::M16n16k16 | WarpMatrixGeometry::M16n16k8 => WarpMatrixTiling::Columns,
            WarpMatrixGeometry::M32n8k16 => WarpMatrixTiling::Rows,
            WarpMatrixGeometry::M8n32k16 => WarpMatrixTiling::TransposedRows,
            WarpMatrixGeometry::M8n8k4 | WarpMatrixGeometry::M8n8k32 | WarpMatrixGeometry::M8n8k128 => {
                WarpMatrixTiling::Single
            }
        }
    }

    /// (rows, columns) of `fragment` (C's for D).
    pub fn fragment_dimensions(self, fragment: WarpMatrixFragment) -> (u32, u32) {
        let (m, n, k) = self.dimensions();
        match fragment {
            WarpMatrixFragment::A => (m, k),
            WarpMatrixFragment::B => (k, n),
            WarpMatrixFragment::C => (m, n),
        }
    }

    /// How many registers one lane's fragment of `fragment` with `element`s takes: the matrix's
    /// bits spread evenly over the 32 lanes in 32-bit registers (or one `.f64` per element),
    /// except `.f16` A and B, whose fragments are eight `.f16x2` registers on every shape (ptxr
    /// repeats the registers its tiles use in the others).
    pub fn registers(self, fragment: WarpMatrixFragment, element: MatrixElement) -> u32 {
        let (rows, columns) = self.fragment_dimensions(fragment);
        match element {
            MatrixElement::F64 => rows * columns / 32,
            MatrixElement::F16 if fragment != WarpMatrixFragment::C => 8,
            _ => rows * columns * element.bits() / (32 * 32),
        }
    }
}

impl WarpMatrixGeometry {
    /// The operand of a tile's `mma` that holds (part of) `fragment`'s matrix: A and B trade
    /// places in `TransposedRows`.
    pub fn tile_operand(self, fragment: WarpMatrixFragment) -> WarpMatrixFragment {
        match (self.tiling(), fragment) {
            (WarpMatrixTiling::TransposedRows, WarpMatrixFragment::A) => WarpMatrixFragment::B,
            (WarpMatrixTiling::TransposedRows, WarpMatrixFragment::B) => WarpMatrixFragment::A,
            _ => fragment,
        }
    }

    /// How many tiles `fragment`'s matrix spans (1 or 2).
    pub fn tiles(self, fragment: WarpMatrixFragment) -> u32 {
        match (self.tiling(), self.tile_operand(fragment)) {
            (WarpMatrixTiling::Single, _) => 1,
            (WarpMatrixTiling::Columns, WarpMatrixFragment::A) => 1,
            (WarpMatrixTiling::Rows | WarpMatrixTiling::TransposedRows, WarpMatrixFragment::B) => 1,
            _ => 2,
        }
    }

    /// The registers of one tile's `mma` operand ([`Self::tile_operand`]) of `element`s.
    pub fn tile_registers(self, fragment: WarpMatrixFragment, element: MatrixElement) -> u32 {
        let operation = MatrixMultiply {
            shape: self.tile_shape(),
            a_layout: MatrixLayout::Row,
            b_layout: MatrixLayout::Column,
            d: element,
            a: element,
            b: element,
            c: element,
            saturate: false,
            bit_operation: None,
        };
        match self.tile_operand(fragment) {
            WarpMatrixFragment::A => operation.a_registers(),
            WarpMatrixFragment::B => operation.b_registers(),
            WarpMatrixFragment::C => operation.c_registers(),
        }
    }
}

impl fmt::Display for WarpMatrixGeometry {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (m, n, k) = self.dimensions();
        write!(formatter, ".m{m}n{n}k{k}")
    }
}

/// What a `wmma.load` or `wmma.store` moves, and where: the matrix in memory is `layout`
/// (`.row` or `.col`) with elements of `element` in `state_space`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpMatrixShape {
    pub geometry: WarpMatrixGeometry,
    pub fragment: WarpMatrixFragment,
    pub layout: MatrixLayout,
    pub element: MatrixElement,
    pub state_space: crate::vocabulary::StateSpace,
}

/// One `wmma.mma.sync.aligned.alayout.blayout.shape{.rnd}.dtype{.atype.btype}.ctype{.satfinite}`
/// (ISA 7.8 section 9.7.13.3): D = A·B + C by the 32 lanes of a warp, each holding its
/// fragments of `geometry`'s matrices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpMatrixMultiply {
    pub geometry: WarpMatrixGeometry,
    /// How A and B were loaded: NVPTX's own `wmma` needs them; ptxr's fragments do not.
    pub a_layout: MatrixLayout,
    pub b_layout: MatrixLayout,
    pub d: MatrixElement,
    pub a: MatrixElement,
    pub b: MatrixElement,
    pub c: MatrixElement,
    /// `.satfinite` on the integer forms.
    pub saturate: bool,
    /// `.f64`'s rounding as written (`None`: `.rn`, the default).
    pub rounding: Option<crate::ir::RoundingMode>,
    /// `.xor.popc` or `.and.popc` on `.b1`.
    pub bit_operation: Option<BitOperation>,
}

impl WarpMatrixMultiply {
    /// The `mma` that computes one tile ([`WarpMatrixGeometry::tiling`]): A and B trade places
    /// in the transposed tiling.
    pub fn tile(&self) -> MatrixMultiply {
        let (a, b) = match self.geometry.tile_operand(WarpMatrixFragment::A) {
            WarpMatrixFragment::A => (self.a, self.b),
            _ => (self.b, self.a),
        };
        MatrixMultiply {
            shape: self.geometry.tile_shape(),
            a_layout: MatrixLayout::Row,
            b_layout: MatrixLayout::Column,
            d: self.d,
            a,
            b,
            c: self.c,
            saturate: self.saturate,
            bit_operation: self.bit_operation,
        }
    }
}
