//! Without Verilator on PATH, `load_cached` says so and how to install it.
//! Its own test binary: it empties PATH for the whole process.

use verilate::{load_cached, Error, Source};

#[test]
fn missing_verilator_says_make_deps() {
    let root = tempfile::tempdir().unwrap();
    let empty = root.path().join("bin");
    std::fs::create_dir(&empty).unwrap();
    std::env::set_var("PATH", &empty);
    let sources =
        [Source { path: "m.v".into(), contents: "module m(input a, output b); assign b = a; endmodule\n".into() }];
    let err = load_cached("m", "m", &sources, None, "k", &root.path().join("cache"), false, &mut |_| {})
        .expect_err("no verilator");
    let message = err.to_string();
    assert!(matches!(err, Error::ToolMissing { tool: "verilator", .. }), "{message}");
    assert!(message.contains("install it with `make deps`"), "{message}");
    assert!(!root.path().join("cache").exists());
}
