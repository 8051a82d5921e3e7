//! docs/open_engine.md lists every counter the node keeps, in the node's
//! order, with the model's own words: the page cannot drift from the code.

use net_model::Counter;

/// The counter table as the page must hold it.
fn table() -> String {
    let mut t = String::from("| counter | counts |\n|---|---|\n");
    for c in Counter::ALL {
        t.push_str(&format!("| `{}` | {} |\n", c.name(), c.doc()));
    }
    t
}

#[test]
fn the_engine_page_lists_every_counter_in_order() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/open_engine.md");
    let page = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let want = table();
    assert!(page.contains(&want), "{path} should hold this table, exactly:\n\n{want}");
}
