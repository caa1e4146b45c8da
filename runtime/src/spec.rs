//! The launch spec of `ptxr run --launch SPEC.json` (see the conformance folder's `LAUNCH_SPEC.md`):
//! reading the JSON and checking everything that can be checked without the kernel, so that a
//! mistake is reported with the field, buffer or argument at fault before anything is allocated.
//!
//! Reading has two stages: serde reads the text into private `Raw*` structs that mirror the JSON
//! (catching syntax errors, unknown fields and wrong JSON types, with line and column), then
//! validation turns them into the public [`LaunchSpec`], whose values are already converted to
//! element bit patterns. Numbers are kept as their literal text until the element type is known
//! (serde_json's `RawValue`), so that a `u64` beyond 2^53 or an `f32` is read exactly.
//!
//! Extensions of the contract (it may be extended, never changed): `grid`/`block` may be a single
//! number and default to 1; `shared_bytes`, `buffers` and `args` may be left out; a scalar
//! argument's `value` may also be a hex bit pattern (`"0x3f800000"`); an argument may be an
//! aggregate, `{ "bytes": [...] }` or `{ "fields": [...] }`, for a by-value struct parameter
//! (`crate::aggregate_spec`); `"cooperative": true` asks for a cooperative launch
//! (`crate::grid_workspace`). Unknown fields are errors, so that a misspelt field is not
//! silently ignored.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;
use std::path::PathBuf;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::element::{ElementType, ValueError};
use crate::error::RuntimeError;

/// Most threads in one block, and the most along each axis (CUDA's limits).
pub const MAX_THREADS_PER_BLOCK: u64 = 1024;
pub const MAX_BLOCK_DIMENSIONS: [u64; 3] = [1024, 1024, 64];
/// Most blocks along each grid axis (CUDA's limits).
pub const MAX_GRID_DIMENSIONS: [u64; 3] = [(1 << 31) - 1, 65535, 65535];

/// A checked launch spec.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchSpec {
    /// The `.entry` to launch; `None` when the spec leaves it to the module's only entry.
    pub kernel: Option<String>,
    /// Grid size in blocks, x y z.
    pub grid: [u32; 3],
    /// Block size in threads, x y z.
    pub block: [u32; 3],
    /// Bytes of dynamic shared memory per block.
    pub shared_bytes: u32,
    /// The buffers in the order the spec declares them, which is also the output's order.
    pub buffers: Vec<BufferSpec>,
    /// One per kernel parameter, in order.
    pub args: Vec<ArgumentSpec>,
    /// Textures and surfaces over the buffers (`crate::texture_spec`), by name.
    pub textures: Vec<crate::texture_spec::TextureSpec>,
    /// A cooperative launch (`cudaLaunchCooperativeKernel`): every block runs at the same time
    /// and the kernel gets a grid-barrier workspace (`crate::grid_workspace`).
    pub cooperative: bool,
}

/// A named buffer of the spec.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    pub name: String,
    pub element: ElementType,
    pub contents: BufferContents,
}

/// Where a buffer's initial contents come from.
#[derive(Clone, Debug, PartialEq)]
pub enum BufferContents {
    /// Elements written in the spec (`data` or `bits`), as bit patterns zero-extended to 64 bits.
    Elements(Vec<u64>),
    /// Raw little-endian elements from a file, its path as written in the spec (relative paths
    /// are relative to the spec file's folder); `len` is the element count the spec also gave.
    File { path: PathBuf, len: Option<u64> },
    /// `len` zero elements.
    Zeroed { len: u64 },
}

/// One kernel argument.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgumentSpec {
    /// The address of the named buffer.
    Buffer(String),
    /// A scalar value of `element` type, as a bit pattern zero-extended to 64 bits.
    Scalar { element: ElementType, bits: u64 },
    /// The address of the named texture's descriptor: a texture or surface object.
    Texture(String),
    /// The bytes of a by-value struct parameter.
    Aggregate(crate::aggregate_spec::AggregateSpec),
}

impl LaunchSpec {
    /// Reads and checks a spec. Errors name the field, buffer (and element index) or argument at
    /// fault; JSON syntax and shape errors carry serde_json's line and column.
    pub fn from_json(text: &str) -> Result<LaunchSpec, RuntimeError> {
        let raw: RawSpec<'_> = serde_json::from_str(text).map_err(|error| syntax_error(text, &error))?;
        raw.validate()
    }

    /// The kernel the spec names, if it names one.
    pub fn kernel_name(&self) -> Option<&str> {
        self.kernel.as_deref()
    }

    /// Number of blocks in the grid.
    pub fn block_count(&self) -> u64 {
        self.grid.iter().map(|&size| u64::from(size)).product()
    }

    /// Number of threads in one block.
    pub fn threads_per_block(&self) -> u64 {
        self.block.iter().map(|&size| u64::from(size)).product()
    }
}

/// Checks grid and block sizes against CUDA's limits (also done by `prepare`, since the fields of
/// [`LaunchSpec`] are public).
pub fn check_dimensions(grid: [u32; 3], block: [u32; 3]) -> Result<(), RuntimeError> {
    check_each_dimension("grid", grid.map(u64::from), MAX_GRID_DIMENSIONS)?;
    check_each_dimension("block", block.map(u64::from), MAX_BLOCK_DIMENSIONS)?;
    let threads: u64 = block.iter().map(|&size| u64::from(size)).product();
    if threads > MAX_THREADS_PER_BLOCK {
        return Err(RuntimeError::field(
            "block",
            format!(
                "{} x {} x {} = {threads} threads per block, more than {MAX_THREADS_PER_BLOCK}",
                block[0], block[1], block[2]
            ),
        ));
    }
    Ok(())
}

fn check_each_dimension(field: &'static str, sizes: [u64; 3], limits: [u64; 3]) -> Result<(), RuntimeError> {
    for ((axis, size), limit) in ["x", "y", "z"].into_iter().zip(sizes).zip(limits) {
        if size == 0 {
            return Err(RuntimeError::field(field, format!("{axis} is 0; every size is at least 1")));
        }
        if size > limit {
            return Err(RuntimeError::field(field, format!("{axis} is {size}, more than {limit}")));
        }
    }
    Ok(())
}

/// serde_json's message, with a hint where the cause is Python's `json.dump` writing NaN or an
/// infinity as a bare (invalid JSON) token.
fn syntax_error(text: &str, error: &serde_json::Error) -> RuntimeError {
    let mut message = error.to_string();
    if error.is_syntax() && error.line() > 0 {
        let line = text.lines().nth(error.line() - 1).unwrap_or("");
        let column = error.column().saturating_sub(1);
        let near = line.get(column.saturating_sub(1)..).unwrap_or("");
        let bare_special = ["NaN", "Infinity", "-Infinity"]
            .iter()
            .any(|token| near.starts_with(token) || near.get(1..).is_some_and(|rest| rest.starts_with(token)));
        if bare_special {
            message.push_str(" (NaN and infinities are written as the strings \"NaN\", \"inf\" and \"-inf\")");
        }
    }
    RuntimeError::SpecSyntax { message }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec<'a> {
    #[serde(default)]
    kernel: Option<String>,
    #[serde(default)]
    grid: Option<serde_json::Value>,
    #[serde(default)]
    block: Option<serde_json::Value>,
    #[serde(default)]
    shared_bytes: Option<u64>,
    #[serde(default, borrow, deserialize_with = "ordered_buffers")]
    buffers: Vec<(String, RawBuffer<'a>)>,
    #[serde(default, borrow)]
    args: Vec<RawArgument<'a>>,
    #[serde(default)]
    textures: std::collections::BTreeMap<String, crate::texture_spec::RawTexture>,
    #[serde(default)]
    cooperative: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBuffer<'a> {
    #[serde(default, rename = "type")]
    element: Option<String>,
    #[serde(default, borrow)]
    data: Option<Vec<&'a RawValue>>,
    #[serde(default, borrow)]
    bits: Option<Vec<Cow<'a, str>>>,
    #[serde(default)]
    file: Option<PathBuf>,
    #[serde(default)]
    len: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArgument<'a> {
    #[serde(default)]
    buffer: Option<String>,
    #[serde(default, rename = "type")]
    element: Option<String>,
    #[serde(default, borrow)]
    value: Option<&'a RawValue>,
    #[serde(default)]
    texture: Option<String>,
    #[serde(default, borrow)]
    bytes: Option<Vec<&'a RawValue>>,
    #[serde(default, borrow)]
    fields: Option<Vec<crate::aggregate_spec::RawField<'a>>>,
}

/// Reads the `buffers` object into a list in the order of the text (a map would lose it, and the
/// output must list buffers in input order); a name given twice is an error, not "last wins".
fn ordered_buffers<'de, D>(deserializer: D) -> Result<Vec<(String, RawBuffer<'de>)>, D::Error>
where
    D: Deserializer<'de>,
{
    struct OrderedBuffers;

    impl<'de> Visitor<'de> for OrderedBuffers {
        type Value = Vec<(String, RawBuffer<'de>)>;

        fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
            formatter.write_str("an object of buffers by name")
        }

        fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
            let mut buffers = Vec::new();
            let mut names = HashSet::new();
            while let Some(name) = map.next_key::<String>()? {
                if !names.insert(name.clone()) {
                    return Err(de::Error::custom(format!("buffer `{name}` is declared twice")));
                }
                let buffer = map.next_value::<RawBuffer<'de>>()?;
                buffers.push((name, buffer));
            }
            Ok(buffers)
        }
    }

    deserializer.deserialize_map(OrderedBuffers)
}

impl RawSpec<'_> {
    fn validate(self) -> Result<LaunchSpec, RuntimeError> {
        let grid = dimensions("grid", self.grid.as_ref())?;
        let block = dimensions("block", self.block.as_ref())?;
        check_dimensions(grid, block)?;
        let shared_bytes = match self.shared_bytes {
            None => 0,
            Some(bytes) => u32::try_from(bytes)
                .map_err(|_| RuntimeError::field("shared_bytes", format!("{bytes} is more than 4 GiB")))?,
        };
        let buffers =
            self.buffers.into_iter().map(|(name, buffer)| buffer.validate(name)).collect::<Result<Vec<_>, _>>()?;
        let textures = self
            .textures
            .into_iter()
            .map(|(name, texture)| texture.validate(name, &buffers))
            .collect::<Result<Vec<_>, _>>()?;
        let args = self
            .args
            .into_iter()
            .enumerate()
            .map(|(index, argument)| argument.validate(index, &buffers, &textures))
            .collect::<Result<Vec<_>, _>>()?;
        if self.cooperative {
            crate::grid_workspace::check_grid(grid.iter().map(|&size| u64::from(size)).product())?;
        }
        Ok(LaunchSpec {
            kernel: self.kernel,
            grid,
            block,
            shared_bytes,
            buffers,
            args,
            textures,
            cooperative: self.cooperative,
        })
    }
}

/// `grid`/`block`: 1 to 3 positive integers (missing ones are 1), or one integer; absent is 1.
fn dimensions(field: &'static str, value: Option<&serde_json::Value>) -> Result<[u32; 3], RuntimeError> {
    let wrong = |value: &serde_json::Value| {
        RuntimeError::field(field, format!("expected 1 to 3 positive integers like [4, 1, 1], got {value}"))
    };
    let mut sizes = [1u32; 3];
    let items: &[serde_json::Value] = match value {
        None => return Ok(sizes),
        Some(serde_json::Value::Array(items)) if (1..=3).contains(&items.len()) => items,
        Some(number @ serde_json::Value::Number(_)) => std::slice::from_ref(number),
        Some(other) => return Err(wrong(other)),
    };
    for (size, item) in sizes.iter_mut().zip(items) {
        let number = item.as_u64().ok_or_else(|| wrong(value.unwrap_or(item)))?;
        // Sizes beyond u32 are beyond every limit; saturating keeps the message's number honest
        // enough ("x is 4294967295, more than 1024") without a second message form.
        *size = u32::try_from(number).unwrap_or(u32::MAX);
    }
    Ok(sizes)
}

impl RawBuffer<'_> {
    fn validate(self, name: String) -> Result<BufferSpec, RuntimeError> {
        let fail = |message: String| RuntimeError::Buffer { buffer: name.clone(), message };
        let Some(type_name) = self.element else {
            return Err(fail("no `type` (one of b8..b64 u8..u64 s8..s64 f16 bf16 f32 f64)".into()));
        };
        let element: ElementType = type_name.parse().map_err(|error: ValueError| fail(error.to_string()))?;
        let given: Vec<&str> =
            [("data", self.data.is_some()), ("bits", self.bits.is_some()), ("file", self.file.is_some())]
                .into_iter()
                .filter_map(|(field, present)| present.then_some(field))
                .collect();
        if given.len() > 1 {
            return Err(fail(format!("give only one of `data`, `bits` and `file`, not `{}`", given.join("` and `"))));
        }
        let check_len = |count: usize| match self.len {
            Some(len) if len != count as u64 => Err(fail(format!(
                "`len` is {len} but {count} element{} given",
                if count == 1 { " is" } else { "s are" }
            ))),
            _ => Ok(()),
        };
        let contents = if let Some(data) = &self.data {
            check_len(data.len())?;
            let elements = data
                .iter()
                .enumerate()
                .map(|(index, raw)| {
                    parse_scalar(element, raw, false).map_err(|error| fail(format!("data[{index}]: {error}")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            BufferContents::Elements(elements)
        } else if let Some(bits) = &self.bits {
            check_len(bits.len())?;
            let elements = bits
                .iter()
                .enumerate()
                .map(|(index, text)| element.parse_bits(text).map_err(|error| fail(format!("bits[{index}]: {error}"))))
                .collect::<Result<Vec<_>, _>>()?;
            BufferContents::Elements(elements)
        } else if let Some(path) = self.file {
            BufferContents::File { path, len: self.len }
        } else if let Some(len) = self.len {
            BufferContents::Zeroed { len }
        } else {
            return Err(fail("give its contents: `data`, `bits`, `file` or `len`".into()));
        };
        Ok(BufferSpec { name, element, contents })
    }
}

impl RawArgument<'_> {
    fn validate(
        self,
        index: usize,
        buffers: &[BufferSpec],
        textures: &[crate::texture_spec::TextureSpec],
    ) -> Result<ArgumentSpec, RuntimeError> {
        let fail = |message: String| RuntimeError::argument(index, message);
        if let Some(name) = self.texture {
            if self.buffer.is_some() || self.element.is_some() || self.value.is_some() {
                return Err(fail("a texture argument is only { \"texture\": NAME }".into()));
            }
            if !textures.iter().any(|texture| texture.name == name) {
                return Err(fail(format!("no texture named `{name}`")));
            }
            return Ok(ArgumentSpec::Texture(name));
        }
        if self.bytes.is_some() || self.fields.is_some() {
            if self.buffer.is_some() || self.element.is_some() || self.value.is_some() {
                return Err(fail("an aggregate argument is only { \"bytes\": [...] } or { \"fields\": [...] }".into()));
            }
            let aggregate = match (self.bytes, self.fields) {
                (Some(bytes), None) => crate::aggregate_spec::from_bytes(&bytes),
                (None, Some(fields)) => crate::aggregate_spec::from_fields(
                    fields,
                    |name| buffers.iter().any(|buffer| buffer.name == name),
                    |element, value| parse_scalar(element, value, true),
                ),
                _ => Err("give either `bytes` or `fields`, not both".into()),
            };
            return aggregate.map(ArgumentSpec::Aggregate).map_err(fail);
        }
        match (self.buffer, self.element, self.value) {
            (Some(name), None, None) => {
                if buffers.iter().any(|buffer| buffer.name == name) {
                    Ok(ArgumentSpec::Buffer(name))
                } else {
                    let names: Vec<&str> = buffers.iter().map(|buffer| buffer.name.as_str()).collect();
                    Err(fail(format!(
                        "no buffer named `{name}` (the buffers are: {})",
                        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
                    )))
                }
            }
            (None, Some(type_name), Some(value)) => {
                let element: ElementType = type_name.parse().map_err(|error: ValueError| fail(error.to_string()))?;
                let bits = parse_scalar(element, value, true).map_err(|error| fail(format!("value: {error}")))?;
                Ok(ArgumentSpec::Scalar { element, bits })
            }
            (None, Some(_), None) => Err(fail("a scalar argument needs a `value`".into())),
            (None, None, Some(_)) => Err(fail("a scalar argument needs a `type`".into())),
            (None, None, None) => Err(fail("expected { \"buffer\": NAME } or { \"type\": T, \"value\": V }".into())),
            (Some(_), _, _) => Err(fail("give either `buffer`, or `type` and `value`, not both".into())),
        }
    }
}

/// One scalar as written in the spec: a number literal, or a string ("NaN", "inf", "-inf"; with
/// `hex_allowed`, also a bit pattern "0x...").
fn parse_scalar(element: ElementType, raw: &RawValue, hex_allowed: bool) -> Result<u64, ValueError> {
    let text = raw.get();
    if text.starts_with('"') {
        let string: String =
            serde_json::from_str(text).map_err(|error| ValueError::new(format!("bad string {text}: {error}")))?;
        let looks_hex = string.starts_with("0x") || string.starts_with("0X");
        if hex_allowed && looks_hex {
            element.parse_bits(&string)
        } else {
            element.parse_special(&string)
        }
    } else if text.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        element.parse_number(text)
    } else {
        Err(ValueError::new(format!(
            "expected a number{}, got {text}",
            if element.kind() == crate::element::ElementKind::Float { " or \"NaN\", \"inf\", \"-inf\"" } else { "" }
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> LaunchSpec {
        LaunchSpec::from_json(text).unwrap_or_else(|error| panic!("{text}: {error}"))
    }

    fn error(text: &str) -> String {
        match LaunchSpec::from_json(text) {
            Ok(spec) => panic!("{text} was accepted: {spec:?}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn cooperative_launches_are_asked_for_and_bounded() {
        assert!(!parse(r#"{"grid": 4}"#).cooperative);
        assert!(!parse(r#"{"grid": 4, "cooperative": false}"#).cooperative);
        assert!(parse(r#"{"grid": [4, 2, 1], "cooperative": true}"#).cooperative);
        let too_large = error(r#"{"grid": [1025, 1, 1], "cooperative": true}"#);
        assert!(too_large.contains("cooperative") && too_large.contains("at most 1024 blocks"), "{too_large}");
        // The same grid is fine for a launch that is not cooperative.
        assert!(!parse(r#"{"grid": [1025, 1, 1]}"#).cooperative);
        let not_a_bool = error(r#"{"cooperative": 1}"#);
        assert!(not_a_bool.contains("expected a boolean"), "{not_a_bool}");
    }

    #[test]
    fn the_contract_example() {
        let spec = parse(
            r#"{
              "kernel": "add",
              "grid": [1, 1, 1],
              "block": [64, 1, 1],
              "shared_bytes": 1024,
              "buffers": {
                "in":  { "type": "u64", "data": [1, 2, 3] },
                "out": { "type": "u64", "len": 3 },
                "raw": { "type": "f32", "bits": ["0x3f800000", "0x7fc00000"] }
              },
              "args": [ { "buffer": "in" }, { "buffer": "out" }, { "type": "u32", "value": 3 } ]
            }"#,
        );
        assert_eq!(spec.kernel_name(), Some("add"));
        assert_eq!(spec.grid, [1, 1, 1]);
        assert_eq!(spec.block, [64, 1, 1]);
        assert_eq!(spec.shared_bytes, 1024);
        let names: Vec<&str> = spec.buffers.iter().map(|buffer| buffer.name.as_str()).collect();
        assert_eq!(names, ["in", "out", "raw"]);
        assert_eq!(spec.buffers[0].element, ElementType::U64);
        assert_eq!(spec.buffers[0].contents, BufferContents::Elements(vec![1, 2, 3]));
        assert_eq!(spec.buffers[1].contents, BufferContents::Zeroed { len: 3 });
        assert_eq!(spec.buffers[2].contents, BufferContents::Elements(vec![0x3f80_0000, 0x7fc0_0000]));
        assert_eq!(
            spec.args,
            [
                ArgumentSpec::Buffer("in".into()),
                ArgumentSpec::Buffer("out".into()),
                ArgumentSpec::Scalar { element: ElementType::U32, bits: 3 }
            ]
        );
    }

    #[test]
    fn buffer_order_is_the_texts_not_alphabetical() {
        let spec = parse(
            r#"{"buffers": {"zeta": {"type": "u8", "len": 1}, "alpha": {"type": "u8", "len": 2},
                "mid": {"type": "u8", "len": 0}}}"#,
        );
        let names: Vec<&str> = spec.buffers.iter().map(|buffer| buffer.name.as_str()).collect();
        assert_eq!(names, ["zeta", "alpha", "mid"]);
    }

    #[test]
    fn defaults_and_short_dimensions() {
        let spec = parse("{}");
        assert_eq!(spec.kernel_name(), None);
        assert_eq!((spec.grid, spec.block, spec.shared_bytes), ([1, 1, 1], [1, 1, 1], 0));
        assert!(spec.buffers.is_empty() && spec.args.is_empty());
        let spec = parse(r#"{"grid": [4, 2], "block": 32}"#);
        assert_eq!((spec.grid, spec.block), ([4, 2, 1], [32, 1, 1]));
        assert_eq!((spec.block_count(), spec.threads_per_block()), (8, 32));
    }

    #[test]
    fn every_buffer_form() {
        let spec = parse(
            r#"{"buffers": {
                "numbers": {"type": "f32", "data": [1.5, -0.0, "NaN", "inf", "-inf", 3]},
                "halves": {"type": "f16", "data": [1.0], "len": 1},
                "signed": {"type": "s8", "data": [-128, 127]},
                "pattern": {"type": "u16", "bits": ["0xffff", "1", "0X00A"]},
                "loaded": {"type": "u32", "file": "input/values.bin", "len": 4},
                "loaded_any": {"type": "u32", "file": "/abs/values.bin"},
                "zeros": {"type": "f64", "len": 5}
            }}"#,
        );
        let contents: Vec<&BufferContents> = spec.buffers.iter().map(|buffer| &buffer.contents).collect();
        assert_eq!(
            contents,
            [
                &BufferContents::Elements(vec![
                    0x3fc0_0000,
                    0x8000_0000,
                    0x7fc0_0000,
                    0x7f80_0000,
                    0xff80_0000,
                    0x4040_0000
                ]),
                &BufferContents::Elements(vec![0x3c00]),
                &BufferContents::Elements(vec![0x80, 0x7f]),
                &BufferContents::Elements(vec![0xffff, 1, 10]),
                &BufferContents::File { path: "input/values.bin".into(), len: Some(4) },
                &BufferContents::File { path: "/abs/values.bin".into(), len: None },
                &BufferContents::Zeroed { len: 5 },
            ]
        );
    }

    #[test]
    fn scalar_argument_forms() {
        let spec = parse(
            r#"{"args": [
                {"type": "f32", "value": 0.5},
                {"type": "f32", "value": "NaN"},
                {"type": "f64", "value": "-inf"},
                {"type": "f32", "value": "0x7fc00001"},
                {"type": "s32", "value": -2},
                {"type": "u64", "value": 18446744073709551615}
            ]}"#,
        );
        assert_eq!(
            spec.args,
            [
                ArgumentSpec::Scalar { element: ElementType::F32, bits: 0x3f00_0000 },
                ArgumentSpec::Scalar { element: ElementType::F32, bits: 0x7fc0_0000 },
                ArgumentSpec::Scalar { element: ElementType::F64, bits: 0xfff0_0000_0000_0000 },
                ArgumentSpec::Scalar { element: ElementType::F32, bits: 0x7fc0_0001 },
                ArgumentSpec::Scalar { element: ElementType::S32, bits: 0xffff_fffe },
                ArgumentSpec::Scalar { element: ElementType::U64, bits: u64::MAX },
            ]
        );
    }

    #[test]
    fn zluda_style_spec() {
        // The shape run_zluda.py writes (json.dump: compact separators, keys in insertion order).
        let spec = parse(
            r#"{"kernel": "add", "grid": [1, 1, 1], "block": [1, 1, 1], "shared_bytes": 1024, "buffers": {"out": {"type": "u64", "len": 1}, "in": {"type": "u64", "bits": ["0x0000000000000001"]}}, "args": [{"buffer": "in"}, {"buffer": "out"}]}"#,
        );
        assert_eq!(spec.buffers[0].name, "out");
        assert_eq!(spec.buffers[1].contents, BufferContents::Elements(vec![1]));
    }

    #[test]
    fn syntax_and_shape_errors() {
        assert!(error("{").starts_with("launch spec: EOF while parsing"), "{}", error("{"));
        let message = error(r#"{"grdi": [1]}"#);
        assert!(message.contains("unknown field `grdi`") && message.contains("line 1"), "{message}");
        let message = error(r#"{"shared_bytes": -1}"#);
        assert!(message.contains("line 1 column"), "{message}");
        let message = error(r#"{"buffers": {"a": {"type": "u8", "len": 1}, "a": {"type": "u8", "len": 1}}}"#);
        assert!(message.contains("buffer `a` is declared twice"), "{message}");
        let message = error(r#"{"buffers": {"a": {"type": "u8", "lenn": 1}}}"#);
        assert!(message.contains("unknown field `lenn`"), "{message}");
        let message = error(r#"{"buffers": {"a": {"type": "f32", "data": [NaN]}}}"#);
        assert!(message.contains("\"NaN\", \"inf\" and \"-inf\""), "{message}");
        let message = error(r#"{"buffers": {"a": {"type": "f32", "data": [1, -Infinity]}}}"#);
        assert!(message.contains("\"NaN\", \"inf\" and \"-inf\""), "{message}");
    }

    #[test]
    fn dimension_errors() {
        assert_eq!(error(r#"{"grid": [0]}"#), "grid: x is 0; every size is at least 1");
        assert_eq!(error(r#"{"grid": [1, 65536]}"#), "grid: y is 65536, more than 65535");
        assert_eq!(error(r#"{"grid": [2147483648]}"#), "grid: x is 2147483648, more than 2147483647");
        assert!(LaunchSpec::from_json(r#"{"grid": [2147483647, 65535, 65535]}"#).is_ok());
        assert_eq!(error(r#"{"block": [32, 64]}"#), "block: 32 x 64 x 1 = 2048 threads per block, more than 1024");
        assert_eq!(error(r#"{"block": [1, 1, 65]}"#), "block: z is 65, more than 64");
        assert_eq!(
            error(r#"{"block": [1, 2, 3, 4]}"#),
            "block: expected 1 to 3 positive integers like [4, 1, 1], got [1,2,3,4]"
        );
        assert!(error(r#"{"block": [1.5]}"#).starts_with("block: expected"));
        assert!(error(r#"{"block": "64"}"#).starts_with("block: expected"));
        assert!(error(r#"{"grid": []}"#).starts_with("grid: expected"));
        assert_eq!(error(r#"{"shared_bytes": 4294967296}"#), "shared_bytes: 4294967296 is more than 4 GiB");
    }

    #[test]
    fn buffer_errors() {
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "u8", "data": [1, 2, 300]}}}"#),
            "buffer `in`: data[2]: 300 is out of range for u8 (0 to 255)"
        );
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "u32", "data": [-1]}}}"#),
            "buffer `in`: data[0]: -1 is out of range for u32 (0 to 4294967295)"
        );
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "i32", "len": 1}}}"#),
            "buffer `in`: unknown element type `i32` (one of b8 b16 b32 b64 u8 u16 u32 u64 s8 \
             s16 s32 s64 f16 bf16 f32 f64)"
        );
        assert!(error(r#"{"buffers": {"in": {"len": 1}}}"#).starts_with("buffer `in`: no `type`"));
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "u8", "data": [1], "bits": ["0x1"]}}}"#),
            "buffer `in`: give only one of `data`, `bits` and `file`, not `data` and `bits`"
        );
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "u8"}}}"#),
            "buffer `in`: give its contents: `data`, `bits`, `file` or `len`"
        );
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "u8", "data": [1, 2], "len": 3}}}"#),
            "buffer `in`: `len` is 3 but 2 elements are given"
        );
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "u8", "bits": ["0x100"]}}}"#),
            "buffer `in`: bits[0]: \"0x100\" does not fit in the 8 bits of u8"
        );
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "u8", "data": ["NaN"]}}}"#),
            "buffer `in`: data[0]: \"NaN\" is only for float types, not u8"
        );
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "f32", "data": [true]}}}"#),
            "buffer `in`: data[0]: expected a number or \"NaN\", \"inf\", \"-inf\", got true"
        );
        assert_eq!(
            error(r#"{"buffers": {"in": {"type": "f32", "data": ["0x3f800000"]}}}"#),
            "buffer `in`: data[0]: \"0x3f800000\" is not a number (the only strings taken are \
             \"NaN\", \"inf\" and \"-inf\")"
        );
        let message = error(r#"{"buffers": {"in": {"type": "f32", "bits": [1]}}}"#);
        assert!(message.contains("expected a string") && message.contains("line 1"), "{message}");
    }

    #[test]
    fn argument_errors() {
        assert_eq!(
            error(r#"{"args": [{"buffer": "missing"}]}"#),
            "args[0]: no buffer named `missing` (the buffers are: none)"
        );
        assert_eq!(
            error(r#"{"buffers": {"a": {"type": "u8", "len": 1}}, "args": [{"buffer": "a"}, {"buffer": "b"}]}"#),
            "args[1]: no buffer named `b` (the buffers are: a)"
        );
        assert_eq!(error(r#"{"args": [{"type": "u32"}]}"#), "args[0]: a scalar argument needs a `value`");
        assert_eq!(error(r#"{"args": [{"value": 1}]}"#), "args[0]: a scalar argument needs a `type`");
        assert_eq!(
            error(r#"{"args": [{}]}"#),
            "args[0]: expected { \"buffer\": NAME } or { \"type\": T, \"value\": V }"
        );
        assert_eq!(
            error(
                r#"{"buffers": {"a": {"type": "u8", "len": 1}}, "args": [{"buffer": "a", "type": "u8", "value": 1}]}"#
            ),
            "args[0]: give either `buffer`, or `type` and `value`, not both"
        );
        assert_eq!(
            error(r#"{"args": [{"type": "s8", "value": 200}]}"#),
            "args[0]: value: 200 is out of range for s8 (-128 to 127)"
        );
        assert_eq!(
            error(r#"{"args": [{"type": "u16", "value": "0x10000"}]}"#),
            "args[0]: value: \"0x10000\" does not fit in the 16 bits of u16"
        );
        let message = error(r#"{"args": [{"buffer": "a", "extra": 1}]}"#);
        assert!(message.contains("unknown field `extra`"), "{message}");
    }
}
