//! How values become text in the generated files: names as Tcl words that
//! reach Vivado and Quartus literally, periods with a fixed number of
//! decimals and frequencies as their shortest exact decimal, so the output is
//! byte-identical for the same inputs.

/// A Tcl word that stands for `s` literally: braced when that is enough,
/// otherwise every special character backslash-escaped. rust-hdl names such as
/// `iface$field` must reach Vivado and Quartus unsubstituted.
pub fn tcl_word(s: &str) -> String {
    let braceable = !s.is_empty() && !s.chars().any(|c| matches!(c, '{' | '}' | '\\' | '\n' | '\r'));
    if braceable {
        return format!("{{{s}}}");
    }
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '/' || c == '-' => out.push(c),
            c => {
                out.push('\\');
                out.push(c);
            }
        }
    }
    if out.is_empty() {
        out.push_str("{}");
    }
    out
}

/// A clock period in ns, three decimals.
pub(crate) fn period(ns: f64) -> String {
    format!("{ns:.3}")
}

/// A frequency in MHz as its shortest exact decimal: 161.1328125 stays whole,
/// 100.0 prints as 100.
pub(crate) fn mhz(f: f64) -> String {
    let s = format!("{f}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcl_word_braces_dollar_names() {
        assert_eq!(tcl_word("iface$field"), "{iface$field}");
        assert_eq!(tcl_word("a[0]"), "{a[0]}");
        assert_eq!(tcl_word("True Differential Signaling"), "{True Differential Signaling}");
        assert_eq!(tcl_word("odd{name"), "odd\\{name");
        assert_eq!(tcl_word("a$b}c"), "a\\$b\\}c");
        assert_eq!(tcl_word(""), "{}");
    }
}
