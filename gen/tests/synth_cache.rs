//! `scripts/synth-one.sh`, one yosys run of `make synth-estimate` and its
//! netlist cache, on a four-bit accumulator (a second of yosys), with a
//! `yosys` in front of the real one that counts the synthesis runs:
//!
//! - the same inputs twice: yosys synthesises once, the second run's netlist
//!   is the first's, byte for byte, and its log says it came from the cache;
//! - a changed file: yosys runs again, and its netlist differs;
//! - `SYNTH_CACHE=off`: yosys runs though the netlist is cached;
//! - a cache that cannot be written (a file where its folder would be):
//!   yosys runs, the netlist is written, no error;
//! - `--prune` keeps the newest netlists that fit in `SYNTH_CACHE_MB`.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("gen sits in the workspace").to_path_buf()
}

/// The accumulator, adding (`op` "+") or subtracting ("-") `a` each clock.
fn accumulator(op: &str) -> String {
    format!(
        "module acc (\n    input  wire       clk,\n    input  wire [3:0] a,\n    output reg  [3:0] q\n);\n    \
         always @(posedge clk) q <= q {op} a;\nendmodule\n"
    )
}

struct Rig {
    dir: tempfile::TempDir,
    /// The folder of the counting `yosys`, put first on PATH.
    bin: PathBuf,
}

impl Rig {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let real = Command::new("sh").args(["-c", "command -v yosys"]).output().expect("sh");
        let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
        assert!(!real.is_empty(), "yosys is not on PATH (make deps installs it)");
        let bin = dir.path().join("bin");
        fs::create_dir_all(&bin).unwrap();
        let count = dir.path().join("runs");
        let shim = bin.join("yosys");
        fs::write(
            &shim,
            format!(
                "#!/bin/sh\ncase \" $* \" in *\" -p \"*) echo run >>'{}' ;; esac\nexec '{real}' \"$@\"\n",
                count.display()
            ),
        )
        .unwrap();
        fs::set_permissions(&shim, fs::Permissions::from_mode(0o755)).unwrap();
        fs::create_dir_all(dir.path().join("build/rtl")).unwrap();
        fs::write(dir.path().join("build/rtl/files.f"), "rtl/acc.v\n").unwrap();
        Rig { dir, bin }
    }

    fn write(&self, op: &str) {
        fs::write(self.dir.path().join("build/rtl/acc.v"), accumulator(op)).unwrap();
    }

    /// Synthesis runs so far.
    fn runs(&self) -> usize {
        fs::read_to_string(self.dir.path().join("runs")).map(|s| s.lines().count()).unwrap_or(0)
    }

    /// One `synth-one.sh` run into `name`.json: the netlist and the log.
    fn synth(&self, cache: &Path, name: &str) -> (Vec<u8>, String) {
        let netlist = self.dir.path().join(format!("{name}.json"));
        let log = self.dir.path().join(format!("{name}.log"));
        let path = format!("{}:{}", self.bin.display(), std::env::var("PATH").unwrap_or_default());
        let o = Command::new("bash")
            .arg(repo().join("scripts/synth-one.sh"))
            .arg(self.dir.path().join("build"))
            .args(["acc".as_ref(), netlist.as_os_str(), log.as_os_str()])
            .env("PATH", path)
            .env("SYNTH_CACHE", cache)
            .output()
            .expect("cannot run bash scripts/synth-one.sh");
        let log = fs::read_to_string(&log).unwrap_or_default();
        assert!(o.status.success(), "synth-one.sh failed: {}\n{log}", String::from_utf8_lossy(&o.stderr));
        let netlist = fs::read(&netlist).unwrap_or_else(|e| panic!("no netlist {name}.json: {e}"));
        assert!(netlist.starts_with(b"{"), "{name}.json is not a JSON netlist");
        (netlist, log)
    }
}

#[test]
fn the_same_inputs_take_the_cached_netlist_and_a_change_runs_yosys() {
    let rig = Rig::new();
    let cache = rig.dir.path().join("cache");
    rig.write("+");
    let (first, log) = rig.synth(&cache, "first");
    assert_eq!(rig.runs(), 1, "the first run synthesises");
    assert!(!log.contains("cached"), "the first run has no cached netlist: {log}");

    let (again, log) = rig.synth(&cache, "again");
    assert_eq!(rig.runs(), 1, "the same inputs again: no synthesis");
    assert!(log.starts_with("synth-one: cached netlist "), "the log says where the netlist came from: {log}");
    assert_eq!(first, again, "the cached netlist is the first run's");

    rig.write("-");
    let (changed, _) = rig.synth(&cache, "changed");
    assert_eq!(rig.runs(), 2, "a changed file: yosys runs again");
    assert_ne!(first, changed, "a subtracting accumulator's netlist is not the adding one's");
    let entries =
        fs::read_dir(&cache).unwrap().filter(|e| e.as_ref().unwrap().path().to_string_lossy().ends_with(".json.gz"));
    assert_eq!(entries.count(), 2, "one cached netlist per set of inputs");

    let off = Path::new("off");
    rig.synth(off, "off");
    assert_eq!(rig.runs(), 3, "SYNTH_CACHE=off: yosys runs, cached netlist or not");

    let blocked = rig.dir.path().join("a-file");
    fs::write(&blocked, "").unwrap();
    let (unwritable, _) = rig.synth(&blocked.join("cache"), "unwritable");
    assert_eq!(rig.runs(), 4, "a cache that cannot be written: yosys runs");
    assert_eq!(unwritable, changed, "and writes its netlist all the same");

    // --prune within a budget of 2 MB keeps the newest netlist that fits and
    // removes the rest; with no budget, every one. (Each netlist carries the
    // cell library's definitions: some 1.1 MB gzipped, whatever the design.)
    let prune = |mb: &str| {
        let o = Command::new("bash")
            .arg(repo().join("scripts/synth-one.sh"))
            .arg("--prune")
            .env("SYNTH_CACHE", &cache)
            .env("SYNTH_CACHE_MB", mb)
            .output()
            .expect("cannot run synth-one.sh --prune");
        assert!(o.status.success(), "--prune failed: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), cache.display().to_string(), "--prune prints the folder");
        fs::read_dir(&cache).unwrap().count()
    };
    let sizes: Vec<u64> = fs::read_dir(&cache).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).collect();
    assert!(sizes.iter().all(|&n| n < 2 << 20), "an accumulator's netlist gzips under 2 MB: {sizes:?}");
    assert!(sizes.iter().sum::<u64>() > 2 << 20, "the two netlists together are over 2 MB: {sizes:?}");
    assert_eq!(prune("2"), 1, "a 2 MB budget keeps one netlist");
    assert_eq!(prune("0"), 0, "no budget keeps none");
}
