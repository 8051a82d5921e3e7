//! The yardstick wrapper as `make yardstick` uses it: the `yardstick` binary
//! writes the two files and names the modules `compare.sh` synthesises, and
//! the wrapper with its datapath lints clean under Verilator `-Wall` with the
//! project's rust-hdl waivers and, verilated with `yardstick_driver.cpp`,
//! loops one beat a cycle (or `pct` % of the cycles) with no error until
//! `inject`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `verilator --lint-only -Wall` on the files in `dir`, top `top`: its complaint, if any.
fn lint(dir: &Path, files: &[&str]) -> Option<String> {
    let o = Command::new("verilator")
        .current_dir(dir)
        .args(["--lint-only", "-Wall"])
        .arg(verilate::write_waivers(dir).unwrap())
        .args(files)
        .args(["--top-module", "top"])
        .output()
        .expect("run verilator");
    let log = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (!o.status.success() || !log.trim().is_empty()).then_some(log)
}

fn verilator_present() -> bool {
    Command::new("verilator").arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn the_binary_writes_the_wrapper_and_the_datapath_modules_and_names_the_generator_and_verifier() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ys");
    let o = Command::new(env!("CARGO_BIN_EXE_yardstick")).arg("--out").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<(&str, &str)> = text.lines().map(|l| l.split_once(' ').unwrap()).collect();
    let design = gen::parse_config(config::DEFAULT_TOML).unwrap();
    let y = gen::yardstick::yardstick(&design).unwrap();
    let keys: Vec<&str> = lines.iter().map(|(k, _)| *k).collect();
    let mut want_keys = vec!["wrapper"];
    want_keys.extend(y.datapath.iter().map(|_| "datapath"));
    want_keys.extend(["generator", "verifier"]);
    assert_eq!(keys, want_keys, "{text}");
    let wrapper = PathBuf::from(lines[0].1);
    assert_eq!(wrapper.parent(), Some(out.as_path()), "{text}");
    assert_eq!(fs::read_to_string(&wrapper).unwrap(), y.wrapper.contents);
    for ((_, path), file) in lines[1..].iter().zip(&y.datapath) {
        let path = PathBuf::from(path);
        assert_eq!(path, out.join(&file.path), "{text}");
        assert_eq!(fs::read_to_string(&path).unwrap(), file.contents);
    }
    for (key, module) in &lines[lines.len() - 2..] {
        let path = out.join(format!("{module}.v"));
        let written = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{key} module {module}: {e}"));
        assert!(written.contains(&format!("module {module} (")), "{key} module {module} is not in {}", path.display());
    }
    let mut names: Vec<String> =
        fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    let mut want = vec![gen::MANIFEST.to_string(), y.wrapper.path.clone()];
    want.extend(y.datapath.iter().map(|f| f.path.clone()));
    want.sort();
    assert_eq!(names, want, "only the wrapper, the datapath's modules and gen's manifest");
}

#[test]
fn the_binary_refuses_a_bad_configuration_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("bad.toml");
    fs::write(&config, "[design]\ndata_width = 100\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_yardstick"))
        .args(["--config", config.to_str().unwrap(), "--out", tmp.path().join("ys").to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("yardstick: error:") && err.contains("bad.toml"), "{err}");
    assert!(!tmp.path().join("ys").exists());
}

/// The wrapper and its datapath at every width, `verilator --lint-only -Wall`
/// (skipped, saying so, when verilator is not on PATH).
#[test]
fn the_wrapper_lints_clean_at_every_width() {
    if !verilator_present() {
        eprintln!("verilator not on PATH: lint of the yardstick wrapper skipped (install it with `make deps`)");
        return;
    }
    let base = gen::parse_config(config::DEFAULT_TOML).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for &width in config::DATA_WIDTHS.iter() {
        let design = config::Design { data_width: width, ..base.clone() };
        let y = gen::yardstick::yardstick(&design).unwrap();
        let dir = tmp.path().join(width.to_string());
        fs::create_dir_all(&dir).unwrap();
        for f in y.files() {
            fs::write(dir.join(&f.path), &f.contents).unwrap();
        }
        let files: Vec<&str> = y.datapath.iter().chain([&y.wrapper]).map(|f| f.path.as_str()).collect();
        if let Some(log) = lint(&dir, &files) {
            failures.push(format!("{width} bits:\n{log}"));
        }
    }
    assert!(failures.is_empty(), "the yardstick wrapper does not lint clean:\n{}", failures.join("\n"));
}

/// `key=value` pairs of one driver run.
fn run_driver(bin: &Path, cycles: u64, pct: u32, inject_at: i64) -> std::collections::HashMap<String, i64> {
    let o = Command::new(bin).args([cycles.to_string(), pct.to_string(), inject_at.to_string()]).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{text}{}", String::from_utf8_lossy(&o.stderr));
    text.split_whitespace()
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or_else(|| panic!("unexpected output `{text}`"));
            (k.to_string(), v.parse().unwrap_or_else(|_| panic!("unexpected output `{text}`")))
        })
        .collect()
}

/// The default wrapper verilated with a small driver (`yardstick_driver.cpp`):
/// `en` starts a transfer that runs one beat a cycle at 100 %, `pct` % of
/// the cycles otherwise, RX one register behind TX, no error until `inject`,
/// then the sticky error (skipped, saying so, when verilator is not on PATH).
#[test]
fn the_verilated_wrapper_loops_at_pct_and_sees_only_the_injected_error() {
    if !verilator_present() {
        eprintln!("verilator not on PATH: simulation of the yardstick wrapper skipped (install it with `make deps`)");
        return;
    }
    let design = gen::parse_config(config::DEFAULT_TOML).unwrap();
    let y = gen::yardstick::yardstick(&design).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for f in y.files() {
        fs::write(tmp.path().join(&f.path), &f.contents).unwrap();
    }
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/yardstick_driver.cpp");
    let o = Command::new("verilator")
        .current_dir(tmp.path())
        .args(["--cc", "--exe", "--build", "-O1", "-Wno-fatal", "--top-module", "top", "-Mdir", "obj"])
        .args(y.files().iter().map(|f| &f.path))
        .arg(&driver)
        .output()
        .unwrap();
    assert!(o.status.success(), "verilator failed:\n{}", String::from_utf8_lossy(&o.stderr));
    let bin = tmp.path().join("obj/Vtop");

    let cycles = 4000;
    let r = run_driver(&bin, cycles, 100, -1);
    // A few cycles from `en` to the first beat, then one beat every cycle.
    assert!((cycles as i64 - 8..cycles as i64).contains(&r["tx"]), "{r:?}");
    assert!((r["tx"] - 4..=r["tx"]).contains(&r["rx"]), "{r:?}");
    assert_eq!(r["err"], 0, "an error without injection: {r:?}");

    let r = run_driver(&bin, cycles, 30, -1);
    let want = (cycles * 30 / 100) as i64;
    assert!((want - 4..=want + 1).contains(&r["tx"]), "30 %: {r:?}");
    assert_eq!(r["err"], 0, "an error without injection at 30 %: {r:?}");

    let r = run_driver(&bin, cycles, 100, 2000);
    assert_eq!((r["err_before"], r["err"]), (0, 1), "the injected error: {r:?}");
}
