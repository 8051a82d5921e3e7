//! Golden files: the outputs of the default configuration, byte for byte.
//! After an intended change, refresh them with `make golden` (or
//! `UPDATE_GOLDEN=1 cargo test -p regmap golden`) and review the diff.

use std::path::PathBuf;

fn default_design() -> config::Design {
    config::parse(config::DEFAULT_TOML).expect("the default config is valid")
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("golden")
}

fn check(file_name: &str, actual: &str) {
    let path = golden_dir().join(file_name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("cannot read {} ({e}); run `UPDATE_GOLDEN=1 cargo test -p regmap golden`", path.display())
    });
    if expected != actual {
        let line = expected.lines().zip(actual.lines()).position(|(e, a)| e != a).map_or_else(
            || format!("lengths differ ({} vs {} lines)", expected.lines().count(), actual.lines().count()),
            |i| {
                format!(
                    "first difference at line {}:\n  golden: {}\n  actual: {}",
                    i + 1,
                    expected.lines().nth(i).unwrap_or(""),
                    actual.lines().nth(i).unwrap_or("")
                )
            },
        );
        panic!("{file_name} differs from its golden file; {line}\nIf the change is intended, run `make golden` and review the diff.");
    }
}

#[test]
fn golden_outputs_of_the_default_config() {
    let design = default_design();
    let map = regmap::RegisterMap::for_design(&design);
    let outputs = regmap::outputs(&map, &design);
    let names: Vec<&str> = outputs.iter().map(|o| o.file_name.as_str()).collect();
    assert_eq!(
        names,
        [
            "toe_user_logic.h",
            "toe_user_logic_selftest.c",
            "REGISTERS.md",
            "regmap.json",
            "regmap_accessors.rs",
            "csr.csv"
        ]
    );
    for output in &outputs {
        check(&output.file_name, &output.contents);
    }
}

#[test]
fn golden_outputs_open_with_the_banner() {
    let design = default_design();
    let map = regmap::RegisterMap::for_design(&design);
    let [line1, line2] = design.banner();
    for output in regmap::outputs(&map, &design) {
        let name = &output.file_name;
        if name.ends_with(".json") {
            let json: serde_json::Value = serde_json::from_str(&output.contents).unwrap();
            assert_eq!(json["banner"], serde_json::json!([line1, line2]), "{name}");
            continue;
        }
        let head: Vec<&str> = output.contents.lines().take(2).collect();
        assert_eq!(head.len(), 2, "{name}");
        let marker = head[0].strip_suffix(line1.as_str()).unwrap_or_else(|| panic!("{name} line 1: {}", head[0]));
        assert!(["/* ", "<!-- ", "// ", "# "].contains(&marker), "{name}: comment marker {marker:?}");
        assert!(head[1].contains(&line2), "{name} line 2: {}", head[1]);
    }
}
