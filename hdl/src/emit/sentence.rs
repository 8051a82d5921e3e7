//! The first sentence of a description, on one line: what a port comment
//! in the generated Verilog says. Shared by `hdl/build.rs` (the blocks' Rust
//! doc comments) and the register file's wrapper (the map's descriptions),
//! so both cut a text the same way.

/// The first sentence of `text` (its words joined by single spaces), without
/// its full stop. A sentence ends at a full stop that follows a word and is
/// followed by a space and anything but a lower-case letter, so
/// "1 .. 2^48-1" and "e.g. a value" do not end one, "connection. 0: never"
/// and "(menu 1). `init_done` falls" do.
pub fn first_sentence(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = joined
        .match_indices(". ")
        .find(|(p, _)| {
            let before = joined[..*p].chars().next_back();
            let after = joined[p + 2..].chars().next();
            before.is_some_and(|c| c != '.' && c != ' ') && after.is_some_and(|c| !c.is_lowercase())
        })
        .map_or(joined.len(), |(p, _)| p + 1);
    joined[..cut].trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::first_sentence;

    #[test]
    fn a_sentence_ends_at_a_full_stop_before_a_capital() {
        assert_eq!(first_sentence("Bytes to send,\n 1 .. 2^48-1. Taken at start."), "Bytes to send, 1 .. 2^48-1");
        assert_eq!(first_sentence("One sentence only."), "One sentence only");
        assert_eq!(first_sentence("Port number"), "Port number");
        assert_eq!(first_sentence("No progress in the connection. 0: wait"), "No progress in the connection");
        assert_eq!(first_sentence("Parameters (menu 1). `done` falls"), "Parameters (menu 1)");
        assert_eq!(first_sentence("Values, e.g. a port. More"), "Values, e.g. a port");
    }
}
