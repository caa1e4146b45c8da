//! Aggregate kernel arguments of the launch spec, an extension of LAUNCH_SPEC.md: a by-value
//! struct parameter (`.param .align 8 .b8 NAME[16]`, as CUB's device-wide kernels take their tile
//! state) given as raw bytes, `{ "bytes": ["0x01", 2, ...] }`, or as fields,
//! `{ "fields": [ {"type": T, "value": V}, {"buffer": NAME}, {"bytes": [...]}, ... ] }`.
//!
//! A field without an `offset` is placed at the next offset of its natural alignment after the
//! previous field (as a C compiler lays out a struct); one with `"offset": N` is placed there,
//! which must be a multiple of its alignment and must not overlap another field. A `buffer`
//! field holds that buffer's 64-bit address. The bytes not covered are zero. Here the layout is
//! checked on its own; [`crate::launch::prepare`] checks it against the parameter (its size, and
//! that no field needs more alignment than the parameter has).

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::element::{ElementType, ValueError};

/// An aggregate argument laid out: its bytes (buffer addresses left zero) and where buffer
/// addresses go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AggregateSpec {
    /// The bytes from offset 0 to the end of the last field; the parameter's remaining bytes are
    /// zero.
    pub bytes: Vec<u8>,
    /// Byte offset and buffer name of each 64-bit buffer address.
    pub buffers: Vec<(usize, String)>,
    /// The largest alignment a field needs (1 for raw bytes).
    pub align: usize,
    /// Raw `bytes`: the parameter must have exactly this many bytes, not more.
    pub exact_size: bool,
}

/// One entry of `fields`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawField<'a> {
    #[serde(default)]
    buffer: Option<String>,
    #[serde(default, rename = "type")]
    element: Option<String>,
    #[serde(default, borrow)]
    value: Option<&'a RawValue>,
    #[serde(default, borrow)]
    bytes: Option<Vec<&'a RawValue>>,
    #[serde(default)]
    offset: Option<u64>,
}

/// The most bytes an aggregate argument may have: CUDA's limit on all of a kernel's parameters
/// together (32764 bytes since CUDA 12.1).
const MAX_AGGREGATE_BYTES: u64 = 32764;

/// `{ "bytes": [...] }`: the parameter's bytes, exactly.
pub(crate) fn from_bytes(bytes: &[&RawValue]) -> Result<AggregateSpec, String> {
    let bytes = parse_bytes(bytes).map_err(|error| format!("bytes{error}"))?;
    Ok(AggregateSpec { bytes, buffers: Vec::new(), align: 1, exact_size: true })
}

/// `{ "fields": [...] }`, laid out; `parse_scalar` reads a field's `value` as its element type.
pub(crate) fn from_fields(
    fields: Vec<RawField<'_>>,
    buffer_exists: impl Fn(&str) -> bool,
    parse_scalar: impl Fn(ElementType, &RawValue) -> Result<u64, ValueError>,
) -> Result<AggregateSpec, String> {
    if fields.is_empty() {
        return Err("`fields` is empty; give at least one field".into());
    }
    let mut layout = AggregateSpec { bytes: Vec::new(), buffers: Vec::new(), align: 1, exact_size: false };
    // Which bytes some field already holds, to refuse overlaps.
    let mut taken: Vec<bool> = Vec::new();
    let mut next = 0u64;
    for (index, field) in fields.into_iter().enumerate() {
        let fail = |message: String| format!("fields[{index}]: {message}");
        let offset_given = field.offset;
        let (contents, align, buffer) = match (field.buffer, field.element, field.value, field.bytes) {
            (Some(name), None, None, None) => {
                if !buffer_exists(&name) {
                    return Err(fail(format!("no buffer named `{name}`")));
                }
                (vec![0u8; 8], 8usize, Some(name))
            }
            (None, Some(type_name), Some(value), None) => {
                let element: ElementType = type_name.parse().map_err(|error: ValueError| fail(error.to_string()))?;
                let bits = parse_scalar(element, value).map_err(|error| fail(format!("value: {error}")))?;
                let mut bytes = vec![0u8; element.size_bytes()];
                element.write_bits(bits, &mut bytes);
                (bytes, element.size_bytes(), None)
            }
            (None, None, None, Some(raw)) => {
                let bytes = parse_bytes(&raw).map_err(|error| fail(format!("bytes{error}")))?;
                (bytes, 1, None)
            }
            (None, Some(_), None, None) => return Err(fail("a scalar field needs a `value`".into())),
            (None, None, Some(_), None) => return Err(fail("a scalar field needs a `type`".into())),
            _ => {
                return Err(fail(
                    "expected one of { \"buffer\": NAME }, { \"type\": T, \"value\": V } or { \"bytes\": [...] }, \
                     each with an optional \"offset\""
                        .into(),
                ))
            }
        };
        let offset = match offset_given {
            Some(offset) if offset % align as u64 != 0 => {
                return Err(fail(format!("offset {offset} is not a multiple of the field's alignment, {align}")))
            }
            Some(offset) => offset,
            None => next.next_multiple_of(align as u64),
        };
        let end = offset + contents.len() as u64;
        if end > MAX_AGGREGATE_BYTES {
            return Err(fail(format!(
                "ends at byte {end}, beyond the {MAX_AGGREGATE_BYTES} bytes a kernel's parameters may have"
            )));
        }
        let (start, end) = (offset as usize, end as usize);
        if end > layout.bytes.len() {
            layout.bytes.resize(end, 0);
            taken.resize(end, false);
        }
        if let Some(overlap) = (start..end).find(|&byte| taken[byte]) {
            return Err(fail(format!("bytes {start} to {} overlap an earlier field at byte {overlap}", end - 1)));
        }
        taken[start..end].fill(true);
        layout.bytes[start..end].copy_from_slice(&contents);
        if let Some(name) = buffer {
            layout.buffers.push((start, name));
        }
        layout.align = layout.align.max(align);
        next = end as u64;
    }
    Ok(layout)
}

/// A list of bytes, each a number 0 to 255 or a hex string ("0xff"); the error starts with the
/// index at fault (`[3]: ...`).
fn parse_bytes(raw: &[&RawValue]) -> Result<Vec<u8>, String> {
    if raw.is_empty() {
        return Err(" is empty; give at least one byte".into());
    }
    raw.iter()
        .enumerate()
        .map(|(index, value)| {
            let text = value.get();
            let bits = if text.starts_with('"') {
                let string: String = serde_json::from_str(text).map_err(|error| format!("[{index}]: {error}"))?;
                if !(string.starts_with("0x") || string.starts_with("0X")) {
                    return Err(format!("[{index}]: {text} is not a byte (a number 0 to 255 or \"0x00\" to \"0xff\")"));
                }
                ElementType::U8.parse_bits(&string).map_err(|error| format!("[{index}]: {error}"))?
            } else {
                ElementType::U8.parse_number(text).map_err(|error| format!("[{index}]: {error}"))?
            };
            Ok(bits as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::spec::{ArgumentSpec, LaunchSpec};

    use super::AggregateSpec;

    fn aggregate(args: &str) -> AggregateSpec {
        let text = format!(r#"{{"buffers": {{"tiles": {{"type": "u64", "len": 4}}}}, "args": [{args}]}}"#);
        match LaunchSpec::from_json(&text).unwrap_or_else(|error| panic!("{text}: {error}")).args.remove(0) {
            ArgumentSpec::Aggregate(aggregate) => aggregate,
            other => panic!("{text} gave {other:?}"),
        }
    }

    fn error(args: &str) -> String {
        let text = format!(r#"{{"buffers": {{"tiles": {{"type": "u64", "len": 4}}}}, "args": [{args}]}}"#);
        match LaunchSpec::from_json(&text) {
            Ok(spec) => panic!("{text} was accepted: {spec:?}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn raw_bytes_are_taken_as_written() {
        let bytes = aggregate(r#"{"bytes": ["0x01", 2, "0xFF", 0]}"#);
        assert_eq!(bytes, AggregateSpec { bytes: vec![1, 2, 255, 0], buffers: vec![], align: 1, exact_size: true });
    }

    #[test]
    fn fields_take_their_natural_alignment_in_order() {
        // struct { u8 a; u32 b; void *p; u16 c; }: b at 4, p at 8, c at 16, 18 bytes used.
        let layout = aggregate(
            r#"{"fields": [{"type": "u8", "value": 7}, {"type": "u32", "value": "0x04030201"},
                           {"buffer": "tiles"}, {"type": "s16", "value": -2}]}"#,
        );
        let mut expected = vec![0u8; 18];
        expected[0] = 7;
        expected[4..8].copy_from_slice(&[1, 2, 3, 4]);
        expected[16..18].copy_from_slice(&(-2i16).to_le_bytes());
        assert_eq!(layout.bytes, expected);
        assert_eq!(layout.buffers, [(8, "tiles".to_owned())]);
        assert_eq!((layout.align, layout.exact_size), (8, false));
    }

    #[test]
    fn explicit_offsets_place_fields_and_the_next_follows() {
        let layout = aggregate(
            r#"{"fields": [{"offset": 8, "type": "f32", "value": 1.0}, {"type": "u8", "value": 9},
                           {"offset": 0, "bytes": ["0xaa", "0xbb"]}]}"#,
        );
        assert_eq!(layout.bytes, [0xaa, 0xbb, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f, 9]);
        assert_eq!(layout.align, 4);
    }

    #[test]
    fn layout_errors_name_the_field() {
        assert_eq!(
            error(r#"{"fields": [{"type": "u32", "value": 1}, {"offset": 2, "type": "u16", "value": 1}]}"#),
            "args[0]: fields[1]: bytes 2 to 3 overlap an earlier field at byte 2"
        );
        assert_eq!(
            error(r#"{"fields": [{"offset": 4, "buffer": "tiles"}]}"#),
            "args[0]: fields[0]: offset 4 is not a multiple of the field's alignment, 8"
        );
        assert_eq!(error(r#"{"fields": [{"buffer": "nothing"}]}"#), "args[0]: fields[0]: no buffer named `nothing`");
        assert_eq!(
            error(r#"{"fields": [{"type": "u8", "value": 256}]}"#),
            "args[0]: fields[0]: value: 256 is out of range for u8 (0 to 255)"
        );
        assert_eq!(error(r#"{"fields": [{"type": "u8"}]}"#), "args[0]: fields[0]: a scalar field needs a `value`");
        assert!(error(r#"{"fields": [{"buffer": "tiles", "type": "u8", "value": 1}]}"#)
            .starts_with("args[0]: fields[0]: expected one of"));
        assert_eq!(error(r#"{"fields": []}"#), "args[0]: `fields` is empty; give at least one field");
        assert_eq!(
            error(r#"{"fields": [{"offset": 40000, "type": "u8", "value": 1}]}"#),
            "args[0]: fields[0]: ends at byte 40001, beyond the 32764 bytes a kernel's parameters may have"
        );
        assert!(error(r#"{"fields": [{"type": "u8", "value": 1, "size": 4}]}"#).contains("unknown field `size`"));
        assert_eq!(error(r#"{"bytes": []}"#), "args[0]: bytes is empty; give at least one byte");
        assert_eq!(error(r#"{"bytes": [1, 256]}"#), "args[0]: bytes[1]: 256 is out of range for u8 (0 to 255)");
        assert_eq!(
            error(r#"{"bytes": ["ab"]}"#),
            "args[0]: bytes[0]: \"ab\" is not a byte (a number 0 to 255 or \"0x00\" to \"0xff\")"
        );
        assert_eq!(
            error(r#"{"bytes": [1], "fields": [{"type": "u8", "value": 1}]}"#),
            "args[0]: give either `bytes` or `fields`, not both"
        );
        assert_eq!(
            error(r#"{"bytes": [1], "type": "u8"}"#),
            "args[0]: an aggregate argument is only { \"bytes\": [...] } or { \"fields\": [...] }"
        );
    }
}
