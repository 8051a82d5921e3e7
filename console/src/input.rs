//! Parsing what a person types, with the reference console's two kinds of
//! rejection: a value that is a number but outside the valid range
//! (`OUT-OF-RANGE INPUT`) and text that is not a valid input at all
//! (`INVALID INPUT`).

use std::fmt;
use std::net::Ipv4Addr;

/// Why an input was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputError {
    /// A well-formed value outside `range`.
    OutOfRange { what: String, input: String, range: String },
    /// Not a value of the expected form.
    Invalid { what: String, input: String, form: String },
}

/// The reference console's two messages.
pub const OUT_OF_RANGE: &str = "OUT-OF-RANGE INPUT";
pub const INVALID: &str = "INVALID INPUT";

impl InputError {
    /// The reference's headline: [`OUT_OF_RANGE`] or [`INVALID`].
    pub fn headline(&self) -> &'static str {
        match self {
            InputError::OutOfRange { .. } => OUT_OF_RANGE,
            InputError::Invalid { .. } => INVALID,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::OutOfRange { what, input, range } => {
                write!(f, "{OUT_OF_RANGE}: {what} {input:?}: valid range is {range}")
            }
            InputError::Invalid { what, input, form } => {
                write!(f, "{INVALID}: {what} {input:?}: expected {form}")
            }
        }
    }
}

impl std::error::Error for InputError {}

fn invalid(what: &str, input: &str, form: &str) -> InputError {
    InputError::Invalid { what: what.into(), input: input.into(), form: form.into() }
}

fn out_of_range(what: &str, input: &str, range: String) -> InputError {
    InputError::OutOfRange { what: what.into(), input: input.into(), range }
}

/// A decimal number, or hexadecimal with `0x` (underscores allowed in hex,
/// as the reference writes 0xFFFF_FFFF_FFFF), in `min..=max`.
pub fn number(what: &str, input: &str, min: u64, max: u64) -> Result<u64, InputError> {
    let t = input.trim();
    let parsed = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        let h: String = h.chars().filter(|c| *c != '_').collect();
        if h.is_empty() || !h.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(invalid(what, input, "a decimal number or 0x and hexadecimal digits"));
        }
        u64::from_str_radix(&h, 16).ok()
    } else {
        if t.is_empty() || !t.chars().all(|c| c.is_ascii_digit()) {
            return Err(invalid(what, input, "a decimal number or 0x and hexadecimal digits"));
        }
        t.parse::<u64>().ok()
    };
    let range = || {
        if max > 0xFFFF {
            format!("{min:#x}-{max:#x}")
        } else {
            format!("{min}-{max}")
        }
    };
    match parsed {
        Some(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(out_of_range(what, input, range())),
    }
}

/// One of the listed codes (`0`, `1`, `2`...), as the menu asks for modes.
pub fn code(what: &str, input: &str, codes: &[u64]) -> Result<u64, InputError> {
    let lo = *codes.iter().min().expect("codes");
    let hi = *codes.iter().max().expect("codes");
    let v = number(what, input, 0, u64::MAX).map_err(|e| match e {
        InputError::OutOfRange { .. } => out_of_range(what, input, list(codes)),
        other => other,
    })?;
    if codes.contains(&v) {
        Ok(v)
    } else {
        Err(out_of_range(
            what,
            input,
            if hi - lo + 1 == codes.len() as u64 { format!("{lo}-{hi}") } else { list(codes) },
        ))
    }
}

fn list(codes: &[u64]) -> String {
    codes.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
}

/// A MAC address: `0x` and 12 hexadecimal digits.
pub fn mac(what: &str, input: &str) -> Result<u64, InputError> {
    let t = input.trim();
    let form = "0x and 12 hexadecimal digits";
    let h = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).ok_or_else(|| invalid(what, input, form))?;
    let h: String = h.chars().filter(|c| *c != '_').collect();
    if h.is_empty() || !h.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(invalid(what, input, form));
    }
    if h.len() != 12 {
        return Err(out_of_range(what, input, "12 hexadecimal digits (48 bits)".into()));
    }
    Ok(u64::from_str_radix(&h, 16).expect("12 hex digits"))
}

/// An IPv4 address: four decimal numbers 0-255 separated by dots.
pub fn ipv4(what: &str, input: &str) -> Result<Ipv4Addr, InputError> {
    let t = input.trim();
    let parts: Vec<&str> = t.split('.').collect();
    let form = "four decimal numbers separated by dots";
    if parts.len() != 4 || parts.iter().any(|p| p.is_empty() || p.len() > 3 || !p.chars().all(|c| c.is_ascii_digit())) {
        return Err(invalid(what, input, form));
    }
    let mut o = [0u8; 4];
    for (i, p) in parts.iter().enumerate() {
        let v: u32 = p.parse().expect("digits");
        if v > 255 {
            return Err(out_of_range(what, input, "0-255 for each number".into()));
        }
        o[i] = v as u8;
    }
    Ok(Ipv4Addr::from(o))
}

/// `1`/`0` for on/off questions.
pub fn flag(what: &str, input: &str) -> Result<bool, InputError> {
    Ok(code(what, input, &[0, 1])? == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_in_decimal_and_hex_with_the_two_kinds_of_rejection() {
        assert_eq!(number("size", "1000", 1, 0xFFFF_FFFF_FFFF), Ok(1000));
        assert_eq!(number("size", "0xFFFF_FFFF_FFFF", 1, 0xFFFF_FFFF_FFFF), Ok(0xFFFF_FFFF_FFFF));
        assert_eq!(number("size", "0", 1, 10).unwrap_err().headline(), OUT_OF_RANGE);
        assert_eq!(number("size", "0x1000000000000", 1, 0xFFFF_FFFF_FFFF).unwrap_err().headline(), OUT_OF_RANGE);
        assert_eq!(number("size", "99999999999999999999999", 1, 10).unwrap_err().headline(), OUT_OF_RANGE);
        for bad in ["", "12a", "0x", "0xg", "-1", "1.5", "ten"] {
            assert_eq!(number("size", bad, 1, 10).unwrap_err().headline(), INVALID, "{bad:?}");
        }
        assert_eq!(
            number("Max speed", "101", 1, 100).unwrap_err().to_string(),
            "OUT-OF-RANGE INPUT: Max speed \"101\": valid range is 1-100"
        );
    }

    #[test]
    fn codes_macs_and_addresses() {
        assert_eq!(code("mode", "2", &[0, 2]), Ok(2));
        assert_eq!(
            code("mode", "1", &[0, 2]).unwrap_err().to_string(),
            "OUT-OF-RANGE INPUT: mode \"1\": valid range is 0, 2"
        );
        assert_eq!(code("mode", "x", &[0, 1, 2]).unwrap_err().headline(), INVALID);
        assert_eq!(mac("mac", "0x000102030405"), Ok(0x0001_0203_0405));
        assert_eq!(mac("mac", "0x0001020304").unwrap_err().headline(), OUT_OF_RANGE);
        assert_eq!(mac("mac", "000102030405").unwrap_err().headline(), INVALID);
        assert_eq!(ipv4("ip", "192.168.200.42"), Ok(Ipv4Addr::new(192, 168, 200, 42)));
        assert_eq!(ipv4("ip", "192.168.256.1").unwrap_err().headline(), OUT_OF_RANGE);
        assert_eq!(ipv4("ip", "192.168.1").unwrap_err().headline(), INVALID);
    }
}
