//! Identifier renaming over Verilog text: rust-hdl's printer writes the
//! block's code with its own names (`credit$q`, `State$Idle`); the emitter
//! maps each identifier token, leaving numbers, based literals
//! (`8'hff`), comments, strings, system tasks and compiler directives as
//! they are.

/// `text` with every identifier `id` for which `map(id)` is `Some(new)`
/// replaced by `new`.
pub fn rename(text: &str, map: &dyn Fn(&str) -> Option<String>) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c == b'/' && bytes.get(i + 1) == Some(&b'/') {
            i = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
        } else if c == b'/' && bytes.get(i + 1) == Some(&b'*') {
            i = text[i + 2..].find("*/").map_or(bytes.len(), |e| i + 2 + e + 2);
        } else if c == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(bytes.len());
        } else if c == b'\'' {
            // A based literal's base and digits: 'h1f, 'sd3, 'b1010.
            i += 1;
            if matches!(bytes.get(i), Some(b's' | b'S')) {
                i += 1;
            }
            if matches!(bytes.get(i), Some(b'h' | b'H' | b'd' | b'D' | b'b' | b'B' | b'o' | b'O')) {
                i += 1;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
            }
        } else if c == b'`' || c == b'$' {
            // A directive (`ifdef) or a system task ($display): not ours,
            // nor the macro a directive names (`ifdef VERILATOR).
            i += 1;
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            if c == b'`' && matches!(&text[start + 1..i], "ifdef" | "ifndef" | "elsif" | "define" | "undef") {
                while i < bytes.len() && bytes[i] == b' ' {
                    i += 1;
                }
                while i < bytes.len() && is_ident(bytes[i]) {
                    i += 1;
                }
            }
        } else if c.is_ascii_digit() {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && is_ident(bytes[i]) {
                i += 1;
            }
            let id = &text[start..i];
            match map(id) {
                Some(new) => out.push_str(&new),
                None => out.push_str(id),
            }
            continue;
        } else {
            i += text[i..].chars().next().map_or(1, char::len_utf8);
        }
        out.push_str(&text[start..i]);
    }
    out
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// The identifiers of `text`, in order, as [`rename`] sees them.
pub fn identifiers(text: &str) -> Vec<String> {
    let found = std::cell::RefCell::new(Vec::new());
    rename(text, &|id| {
        found.borrow_mut().push(id.to_string());
        None
    });
    found.into_inner()
}

/// `State$OpenReq` -> `STATE_OPEN_REQ`.
pub fn enum_constant(rust: &str) -> String {
    rust.split('$').map(|part| super::module_name::snake_case(part).to_uppercase()).collect::<Vec<_>>().join("_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_identifiers_are_renamed() {
        let map = |id: &str| match id {
            "h1" | "dead_beef" | "VERILATOR" | "display" => Some("RENAMED".to_string()),
            _ => id.contains('$').then(|| id.replace('$', "_")),
        };
        let text = "x$q = 8'h1f + h1; // a$b\n`ifdef VERILATOR y$d = 4'sd3; $display(\"a$b\"); 32'hdead_beef";
        assert_eq!(
            rename(text, &map),
            "x_q = 8'h1f + RENAMED; // a$b\n`ifdef VERILATOR y_d = 4'sd3; $display(\"a$b\"); 32'hdead_beef"
        );
        assert_eq!(identifiers("a = b$c[3:0] + 8'hff;"), ["a", "b$c"]);
    }

    #[test]
    fn enum_values_become_upper_case_constants() {
        assert_eq!(enum_constant("State$OpenReq"), "STATE_OPEN_REQ");
    }
}
