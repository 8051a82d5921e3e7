//! Property tests: no configuration text makes `gen` panic, print more than
//! one line of error, or leave a half-written build folder.
//!
//! The inputs come from `seeded_inputs::hostile::config_text` over the embedded
//! default: arbitrary text, the default with a few edits, and sparse files
//! of the default's keys with out-of-range and wrongly typed values. The seed
//! is printed; `TB_SEED=<n>` replays a run.

use std::process::Command;

use seeded_inputs::hostile::{check_all, config_text, one_line, Outcome};

/// Inputs for the in-process parsers (fast: no generation).
const PARSER_CASES: u32 = 3000;
/// Inputs for the binary (an accepted one generates a whole build folder).
const BINARY_CASES: u32 = 48;

#[test]
fn parser_and_resolver_end_in_a_design_or_one_line_error() {
    let t = check_all("config parser", PARSER_CASES, config_text(config::DEFAULT_TOML), |text| {
        let resolved = match config::resolve(text) {
            Ok(r) => Some(r.annotated()),
            Err(e) => {
                one_line(&e.to_string())?;
                None
            }
        };
        match gen::parse_config(text) {
            Ok(design) => {
                if resolved.is_none() {
                    return Err("parse_config accepted what resolve refused".into());
                }
                if !(1..=config::MAX_SESSIONS).contains(&design.sessions)
                    || !config::DATA_WIDTHS.contains(&design.data_width)
                {
                    return Err(format!(
                        "accepted an invalid design: {} sessions of {} bits",
                        design.sessions, design.data_width
                    ));
                }
                Ok(Outcome::Accepted)
            }
            Err(e) => one_line(&e.to_string()).map(|()| Outcome::Refused),
        }
    });
    // The generator is built to get past the TOML syntax: both outcomes must
    // be common, or the test is probing only one of them.
    assert!(t.accepted >= t.cases / 20, "only {} of {} inputs were valid designs", t.accepted, t.cases);
    assert!(t.refused >= t.cases / 2, "only {} of {} inputs were refused", t.refused, t.cases);
}

#[test]
fn the_binary_writes_a_whole_build_or_nothing_with_one_line_and_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("in.toml");
    let mut run = 0;
    let t = check_all("gen binary", BINARY_CASES, config_text(config::DEFAULT_TOML), |text| {
        run += 1;
        let out = tmp.path().join(format!("out{run}"));
        std::fs::write(&cfg, text).map_err(|e| e.to_string())?;
        let o = Command::new(env!("CARGO_BIN_EXE_gen"))
            .args(["--config", cfg.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .output()
            .map_err(|e| e.to_string())?;
        let stderr = String::from_utf8_lossy(&o.stderr);
        let outcome = match o.status.code() {
            Some(0) => {
                let files = std::fs::read_dir(out.join("rtl")).map(|d| d.count()).unwrap_or(0);
                if files == 0 {
                    return Err(format!("exit 0 but no rtl/ in {}", out.display()));
                }
                let _ = std::fs::remove_dir_all(&out);
                Outcome::Accepted
            }
            Some(2) => {
                one_line(&stderr)?;
                if !stderr.starts_with("gen: error: ") {
                    return Err(format!("error without the tool's prefix: {stderr:?}"));
                }
                if out.exists() {
                    return Err(format!("refused, yet {} was written", out.display()));
                }
                Outcome::Refused
            }
            code => return Err(format!("exit {code:?}, stderr {stderr:?}")),
        };
        let p = Command::new(env!("CARGO_BIN_EXE_gen"))
            .args(["--print-config", cfg.to_str().unwrap()])
            .output()
            .map_err(|e| e.to_string())?;
        match (outcome, p.status.code()) {
            (Outcome::Accepted, Some(0)) if !p.stdout.is_empty() => Ok(outcome),
            (Outcome::Refused, Some(2)) => one_line(&String::from_utf8_lossy(&p.stderr)).map(|()| outcome),
            (_, code) => Err(format!("--print-config exit {code:?} after {outcome:?}")),
        }
    });
    assert!(t.accepted > 0 && t.refused > 0, "one outcome never happened: {t:?}");
}
