//! CUDA's device `printf` (`vprintf` in PTX, ptx-abi.md section 4.3): a format string and a
//! packed buffer of arguments, each aligned to its own size. What each conversion reads follows
//! C's default argument promotions, as the compiler packed them: `%d %i %u %x %X %o %c` an `int`
//! (8 bytes with `l`, `ll`, `j`, `z` or `t`), every floating conversion a `double`, `%s` and `%p`
//! a pointer of the module's address width, and `*` widths and precisions an `int`.
//!
//! Each conversion is formatted by the host C library's `snprintf` with a specification rebuilt
//! from the parsed pieces, so flags, widths, precisions, `%g` and `%a` behave exactly as C says.
//! The result is the number of arguments read, or -1 without a format string, as CUDA documents.

/// Where a conversion's argument comes from.
pub trait ArgumentSource {
    /// The next argument of `bytes` bytes (4 or 8), aligned to its size, zero-extended.
    fn next(&mut self, bytes: usize) -> u64;
    /// The NUL-terminated string at `address` (at most `limit` bytes of it).
    fn string(&mut self, address: u64, limit: usize) -> Vec<u8>;
}

/// Arguments packed in memory at a device address, as compiled code lays them out.
pub struct PackedArguments {
    base: *const u8,
    offset: usize,
}

impl PackedArguments {
    /// # Safety
    ///
    /// `base` points at the packed arguments that the format string asks for.
    pub unsafe fn new(base: *const u8) -> PackedArguments {
        PackedArguments { base, offset: 0 }
    }
}

impl ArgumentSource for PackedArguments {
    fn next(&mut self, bytes: usize) -> u64 {
        self.offset = self.offset.next_multiple_of(bytes);
        let mut value = [0u8; 8];
        if !self.base.is_null() {
            // SAFETY: the caller of `new` vouches for the buffer; an argument list that is shorter
            // than its format string is the kernel's bug, as it is in C.
            unsafe { std::ptr::copy_nonoverlapping(self.base.add(self.offset), value.as_mut_ptr(), bytes) };
        }
        self.offset += bytes;
        u64::from_le_bytes(value)
    }

    fn string(&mut self, address: u64, limit: usize) -> Vec<u8> {
        // SAFETY: a `%s` argument is a device address of a NUL-terminated string.
        unsafe { read_c_string(address, limit) }
    }
}

/// The NUL-terminated string at `address`, at most `limit` bytes of it.
///
/// # Safety
///
/// `address` is null or points at readable bytes up to a NUL or `limit`.
pub unsafe fn read_c_string(address: u64, limit: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    if address == 0 {
        return bytes;
    }
    let pointer = address as usize as *const u8;
    while bytes.len() < limit {
        // SAFETY: see the function's contract.
        let byte = unsafe { *pointer.add(bytes.len()) };
        if byte == 0 {
            break;
        }
        bytes.push(byte);
    }
    bytes
}

/// The longest `%s` argument read, and the widest field a conversion may ask for: a kernel's
/// mistake must not exhaust the host's memory.
const STRING_LIMIT: usize = 1 << 20;
const FIELD_LIMIT: u64 = 1 << 16;

/// One parsed conversion specification, `%[flags][width][.precision][length]conversion`.
#[derive(Debug, Default)]
struct Specification {
    flags: Vec<u8>,
    width: Option<u64>,
    width_argument: bool,
    precision: Option<u64>,
    precision_argument: bool,
    length: Vec<u8>,
    conversion: u8,
}

impl Specification {
    /// Reads the specification after a `%` at `format[start..]`; returns it and where it ends,
    /// or `None` for an incomplete one.
    fn parse(format: &[u8], start: usize) -> Option<(Specification, usize)> {
        let mut position = start;
        let mut specification = Specification::default();
        while let Some(&byte @ (b'-' | b'+' | b' ' | b'#' | b'0')) = format.get(position) {
            specification.flags.push(byte);
            position += 1;
        }
        let number = |position: &mut usize| -> Option<u64> {
            let digits_start = *position;
            let mut value: u64 = 0;
            while let Some(&digit @ b'0'..=b'9') = format.get(*position) {
                value = value.saturating_mul(10).saturating_add(u64::from(digit - b'0'));
                *position += 1;
            }
            (*position > digits_start).then_some(value)
        };
        if format.get(position) == Some(&b'*') {
            specification.width_argument = true;
            position += 1;
        } else {
            specification.width = number(&mut position);
        }
        if format.get(position) == Some(&b'.') {
            position += 1;
            if format.get(position) == Some(&b'*') {
                specification.precision_argument = true;
                position += 1;
            } else {
                specification.precision = Some(number(&mut position).unwrap_or(0));
            }
        }
        while let Some(&byte @ (b'h' | b'l' | b'j' | b'z' | b't' | b'L' | b'q')) = format.get(position) {
            specification.length.push(byte);
            position += 1;
        }
        specification.conversion = *format.get(position)?;
        Some((specification, position + 1))
    }

    /// Whether the integer argument is 8 bytes wide rather than a promoted `int`.
    fn long_integer(&self) -> bool {
        self.length.iter().any(|&byte| matches!(byte, b'l' | b'j' | b'z' | b't' | b'q'))
    }
}

/// What one conversion formats.
enum Value {
    Integer { value: u64, wide: bool },
    Float(f64),
    String(Vec<u8>),
    Pointer(u64),
}

/// Formats `format` with the arguments from `arguments`; `pointer_bytes` is the width of `%s`
/// and `%p` arguments (the module's address size). Returns the text and the number of
/// arguments read.
pub fn format(format: &[u8], arguments: &mut dyn ArgumentSource, pointer_bytes: usize) -> (Vec<u8>, i32) {
    let mut output = Vec::new();
    let mut count = 0;
    let mut position = 0;
    while position < format.len() {
        let byte = format[position];
        if byte != b'%' {
            output.push(byte);
            position += 1;
            continue;
        }
        if format.get(position + 1) == Some(&b'%') {
            output.push(b'%');
            position += 2;
            continue;
        }
        let Some((mut specification, end)) = Specification::parse(format, position + 1) else {
            // An incomplete specification at the end: C leaves it undefined; print it as written.
            output.extend_from_slice(&format[position..]);
            break;
        };
        if specification.width_argument {
            let width = arguments.next(4) as u32 as i32;
            count += 1;
            if width < 0 {
                specification.flags.push(b'-');
            }
            specification.width = Some(u64::from(width.unsigned_abs()));
        }
        if specification.precision_argument {
            let precision = arguments.next(4) as u32 as i32;
            count += 1;
            // A negative precision is taken as if it were omitted.
            specification.precision = u64::try_from(precision).ok();
        }
        let value = match specification.conversion {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => {
                let wide = specification.long_integer() && specification.conversion != b'c';
                Some(Value::Integer { value: arguments.next(if wide { 8 } else { 4 }), wide })
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                Some(Value::Float(f64::from_bits(arguments.next(8))))
            }
            b's' => {
                let address = arguments.next(pointer_bytes);
                let limit = specification
                    .precision
                    .map_or(STRING_LIMIT, |precision| precision.min(STRING_LIMIT as u64) as usize);
                Some(Value::String(if address == 0 { b"(null)".to_vec() } else { arguments.string(address, limit) }))
            }
            b'p' => Some(Value::Pointer(arguments.next(pointer_bytes))),
            _ => None,
        };
        // `%n` and unknown conversions: CUDA prints nothing for them and reads nothing.
        if let Some(value) = value {
            count += 1;
            output.extend_from_slice(&convert(&specification, &value));
        }
        position = end;
    }
    (output, count)
}

/// One conversion through the C library.
#[cfg(unix)]
fn convert(specification: &Specification, value: &Value) -> Vec<u8> {
    use std::ffi::{c_char, c_int, c_longlong, CString};

    let mut spec = vec![b'%'];
    spec.extend_from_slice(&specification.flags);
    if let Some(width) = specification.width {
        spec.extend_from_slice(width.min(FIELD_LIMIT).to_string().as_bytes());
    }
    if let Some(precision) = specification.precision {
        spec.push(b'.');
        spec.extend_from_slice(precision.min(FIELD_LIMIT).to_string().as_bytes());
    }
    let conversion = specification.conversion;
    match value {
        Value::Integer { wide: true, .. } => spec.extend_from_slice(b"ll"),
        // `h` and `hh` narrow the printed value; `l` on `%c` would ask for a wide character.
        Value::Integer { wide: false, .. } if conversion != b'c' => {
            spec.extend(specification.length.iter().filter(|&&byte| byte == b'h'))
        }
        _ => {}
    }
    spec.push(conversion);
    let Ok(spec) = CString::new(spec) else { return Vec::new() };
    let string_argument = match value {
        Value::String(bytes) => {
            CString::new(bytes.iter().copied().take_while(|&byte| byte != 0).collect::<Vec<u8>>()).unwrap_or_default()
        }
        _ => CString::default(),
    };
    let print = |buffer: *mut c_char, size: usize| -> c_int {
        // SAFETY: `spec` holds exactly one conversion, and the argument passed has the C type
        // that the conversion (with the length modifier chosen above) reads.
        unsafe {
            match value {
                Value::Integer { value, wide: true } => {
                    libc::snprintf(buffer, size, spec.as_ptr(), *value as c_longlong)
                }
                Value::Integer { value, wide: false } => {
                    libc::snprintf(buffer, size, spec.as_ptr(), *value as u32 as c_int)
                }
                Value::Float(value) => libc::snprintf(buffer, size, spec.as_ptr(), *value),
                Value::String(_) => libc::snprintf(buffer, size, spec.as_ptr(), string_argument.as_ptr()),
                Value::Pointer(address) => {
                    libc::snprintf(buffer, size, spec.as_ptr(), *address as usize as *const std::ffi::c_void)
                }
            }
        }
    };
    let Ok(length) = usize::try_from(print(std::ptr::null_mut(), 0)) else { return Vec::new() };
    let mut buffer = vec![0u8; length + 1];
    print(buffer.as_mut_ptr().cast::<c_char>(), buffer.len());
    buffer.truncate(length);
    buffer
}

/// Without a C library to format through, a conversion prints as written.
#[cfg(not(unix))]
fn convert(specification: &Specification, _value: &Value) -> Vec<u8> {
    vec![b'%', specification.conversion]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments packed the way compilers pack them, from a list of (bytes, value).
    struct Packed {
        bytes: Vec<u8>,
    }

    impl Packed {
        fn new(values: &[(usize, u64)]) -> Packed {
            let mut bytes = Vec::new();
            for &(size, value) in values {
                while bytes.len() % size != 0 {
                    bytes.push(0xee);
                }
                bytes.extend_from_slice(&value.to_le_bytes()[..size]);
            }
            Packed { bytes }
        }

        fn print(&self, text: &str) -> (String, i32) {
            // SAFETY: the buffer holds what the format strings of these tests read.
            let mut arguments = unsafe { PackedArguments::new(self.bytes.as_ptr()) };
            let (output, count) = format(text.as_bytes(), &mut arguments, 8);
            (String::from_utf8(output).expect("ASCII output"), count)
        }
    }

    #[test]
    fn integers_follow_c_with_promotion_and_alignment() {
        // An int, then a long long that starts at the next multiple of 8.
        let packed = Packed::new(&[(4, (-42i32) as u32 as u64), (8, u64::MAX), (4, 255), (4, 'A' as u64)]);
        assert_eq!(packed.print("%d %llu %#06x %c"), ("-42 18446744073709551615 0x00ff A".to_string(), 4));
        let packed = Packed::new(&[(4, 300), (4, 0xffff_ffff), (8, 1 << 40)]);
        assert_eq!(packed.print("[%hhd|%-5u|%+ld]").0, "[44|4294967295|+1099511627776]");
    }

    #[test]
    fn floats_are_doubles_with_c_forms() {
        let packed = Packed::new(&[(8, 1.5f64.to_bits()), (8, 1e-5f64.to_bits()), (8, f64::NAN.to_bits())]);
        assert_eq!(packed.print("%f %g %e").0, "1.500000 1e-05 nan");
        let packed = Packed::new(&[(8, (-0.0f64).to_bits()), (8, 123456789.0f64.to_bits()), (8, 1.0f64.to_bits())]);
        assert_eq!(packed.print("%.2f %.3E %a").0, "-0.00 1.235E+08 0x1p+0");
    }

    #[test]
    fn strings_pointers_stars_and_percent() {
        let text = b"kernel\0";
        let address = text.as_ptr() as u64;
        let packed = Packed::new(&[(8, address), (4, 8), (8, address), (8, 0), (8, 0x1000)]);
        assert_eq!(packed.print("%s|%*s|%s|%p %%").0, format!("kernel|  kernel|(null)|0x1000 %"));
        assert_eq!(packed.print("%.3s").0, "ker");
    }

    #[test]
    fn counts_arguments_and_keeps_plain_text() {
        assert_eq!(Packed::new(&[]).print("no arguments\n"), ("no arguments\n".to_string(), 0));
        assert_eq!(Packed::new(&[(4, 7)]).print("%d%").0, "7%");
    }

    #[test]
    fn hostile_specifications_stay_bounded() {
        // A huge width is clamped; `%n` prints and reads nothing; `%ls` and `%Lf` read a pointer
        // and a double; a negative `*` width left-justifies.
        let packed = Packed::new(&[(4, 1)]);
        assert_eq!(packed.print("%99999999999d").0.len(), FIELD_LIMIT as usize);
        let text = b"wide\0";
        let packed =
            Packed::new(&[(8, text.as_ptr() as u64), (8, 2.5f64.to_bits()), (4, (-4i32) as u32 as u64), (4, 7)]);
        assert_eq!(packed.print("%n%ls %Lf|%*d|"), ("wide 2.500000|7   |".to_string(), 4));
    }
}
