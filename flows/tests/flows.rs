//! The generated flows, checked two ways: every Tcl script run by `tclsh`
//! against recording stand-ins of the vendor commands, and a matrix of
//! boards x sessions x widths. Byte for byte, the flows' files are checked
//! as users get them, in the example build trees (`examples/golden/`, one
//! example per board: `gen/tests/examples.rs`).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use config::crossings::Crossings;
use config::ports::{Direction, Group, Port, PortPlan};
use flows::{board_names, load_board, render, Board, BoardClock, ClockPort, FlowInputs, Vendor};

const USER_RTL: &str = "rtl/toe_user_logic.v";

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

// ---------------------------------------------------------------- designs

fn design_for(board: &str, sessions: usize, width: usize) -> config::Design {
    let text = config::Variant::default().sessions(sessions).data_width(width).board(board).to_toml();
    let d = config::parse(&text).unwrap_or_else(|e| panic!("{board} {sessions} {width}: {e}"));
    assert_eq!((d.board.as_str(), d.sessions, d.data_width), (board, sessions, width));
    d
}

fn default_design() -> config::Design {
    config::parse(config::DEFAULT_TOML).unwrap()
}

/// The user logic's ports as `gen` declares them (clocks, AXI4-Lite, TOE
/// parameters, per-session TOE interface), for the board top.
fn user_ports(design: &config::Design) -> PortPlan {
    let (i, o) = (Direction::Input, Direction::Output);
    let mut v: Vec<Port> = vec![
        Port::new(Group::Clock, "user_clk", i, 1),
        Port::new(Group::Clock, "user_rst", i, 1),
        Port::new(Group::Bus, "aclk", i, 1),
        Port::new(Group::Bus, "aresetn", i, 1),
    ];
    for (n, d, w) in [
        ("awaddr", i, flows::MASTER_ADDRESS_BITS),
        ("awvalid", i, 1),
        ("awready", o, 1),
        ("wdata", i, 32),
        ("wstrb", i, 4),
        ("wvalid", i, 1),
        ("wready", o, 1),
        ("bresp", o, 2),
        ("bvalid", o, 1),
        ("bready", i, 1),
        ("araddr", i, flows::MASTER_ADDRESS_BITS),
        ("arvalid", i, 1),
        ("arready", o, 1),
        ("rdata", o, 32),
        ("rresp", o, 2),
        ("rvalid", o, 1),
        ("rready", i, 1),
    ] {
        v.push(Port::new(Group::Bus, n, d, w));
    }
    for (n, d, w) in [("init", o, 1), ("init_done", i, 1), ("mode", o, 2), ("fpga_mac", o, 48), ("target_ip", o, 32)] {
        v.push(Port::new(Group::ToeGlobal, n, d, w));
    }
    let dw = design.data_width;
    for s in 0..design.sessions {
        for (n, d, w) in [
            ("conn_req_valid", o, 1),
            ("conn_req_ready", i, 1),
            ("peer_mss", i, 16),
            ("tx_tdata", o, dw),
            ("tx_tkeep", o, dw / 8),
            ("tx_tready", i, 1),
            ("rx_tdata", i, dw),
            ("rx_tready", o, 1),
        ] {
            v.push(Port::new(Group::ToeSession(s), n, d, w));
        }
    }
    PortPlan::new(v)
}

/// The register file's crossings as its crossing block exports them.
fn crossings() -> Crossings {
    hdl::register_file::crossings()
}

fn inputs(design: &config::Design, rtl: &[&str]) -> FlowInputs {
    FlowInputs::standard(design, rtl.iter().map(|s| s.to_string()).collect())
        .with_ports(user_ports(design))
        .with_crossings(crossings())
}

/// The platform module the user supplies, beside the TOE netlist.
fn platform_rel(design: &config::Design, top: &str) -> String {
    let dir = Path::new(&design.toe_netlist).parent().map(|p| p.display().to_string()).unwrap_or_default();
    if dir.is_empty() {
        format!("{top}_platform.v")
    } else {
        format!("{dir}/{top}_platform.v")
    }
}

/// Period of the clock `port` of `inputs`.
fn period_of(inputs: &FlowInputs, port: &str) -> f64 {
    inputs.clocks.iter().find(|c| c.port == port).unwrap().period_ns
}

/// Each held register of [`crossings`] with the clock port of the domain that reads it.
fn held_registers() -> Vec<(String, &'static str)> {
    let x = crossings();
    let to_user = x.to_user.into_iter().map(|r| (r, "user_clk"));
    to_user.chain(x.to_bus.into_iter().map(|r| (r, "s_axil_aclk"))).collect()
}

/// Every synchroniser flip-flop of [`crossings`] marked for the tool: ASYNC_REG (Vivado) or
/// SYNCHRONIZER_IDENTIFICATION (Quartus).
fn assert_synchronizers(run: &Run, what: &str, vendor: Vendor) {
    for ff in &crossings().sync_flops {
        match vendor {
            Vendor::Amd => run.assert_has(
                what,
                "set_property",
                &["ASYNC_REG", "TRUE", &format!("cell:IS_SEQUENTIAL && (NAME =~ */{ff}*)")],
            ),
            Vendor::Intel => run.assert_has(
                what,
                "set_instance_assignment",
                &["-name", "SYNCHRONIZER_IDENTIFICATION", "FORCED", "-to", &format!("*|{}*", ff.replace('/', "|"))],
            ),
        }
    }
}

/// No clock group between the two user-logic clocks (`dest` maps a clock port to the
/// recorded clock object): it would override the crossing's max delays.
fn assert_no_user_clock_group(run: &Run, what: &str, dest: &dyn Fn(&str) -> String) {
    let overridden =
        run.cmds("set_clock_groups").any(|r| r.contains(&dest("user_clk")) && r.contains(&dest("s_axil_aclk")));
    assert!(
        !overridden,
        "{what}: a clock group between the user-logic clocks would override the crossing's max delays"
    );
}

/// The register-file crossing constraints (docs/register_file.md) of Vivado as the stand-ins
/// record them: ASYNC_REG on the four synchroniser flip-flops and a max delay of one
/// destination period on the held values, with no clock group between the two clocks
/// overriding them. `dest` maps a clock port to the recorded clock object.
fn assert_cdc(run: &Run, what: &str, inputs: &FlowInputs, dest: &dyn Fn(&str) -> String) {
    assert_synchronizers(run, what, Vendor::Amd);
    for (r, port) in held_registers() {
        let period = period_of(inputs, port);
        let found = run.cmds("set_max_delay").any(|rec| {
            rec.iter().any(|a| a.starts_with("cell:IS_SEQUENTIAL") && a.contains(&format!("NAME =~ */{r}*")))
                && rec.iter().any(|a| a == "-datapath_only")
                && contains_seq(&rec[1..], &["-to", &dest(port)])
                && rec.last().map(|p| close(p, period)).unwrap_or(false)
        });
        assert!(
            found,
            "{what}: no set_max_delay from {r} to {port} ({period} ns); recorded: {:?}",
            run.cmds("set_max_delay").collect::<Vec<_>>()
        );
    }
    assert_no_user_clock_group(run, what, dest);
}

// ---------------------------------------------------------------- stand-in runs

fn tclsh() -> PathBuf {
    for dir in std::env::var("PATH").unwrap_or_default().split(':').chain(["/usr/bin"]) {
        let p = Path::new(dir).join("tclsh");
        if p.is_file() {
            return p;
        }
    }
    panic!("tclsh not found on PATH: the generated Tcl scripts cannot be checked. Install it (Debian: `apt-get install tcl`).");
}

/// One stand-in run: the recorded commands and how the script ended.
struct Run {
    records: Vec<Vec<String>>,
    stderr: String,
    status: i32,
}

impl Run {
    fn completed(&self) -> bool {
        self.status == 0 && self.records.last().map(|r| r[0].as_str()) == Some("DONE")
    }
    fn assert_completed(&self, what: &str) {
        assert!(
            self.completed(),
            "{what}: script did not complete (status {}):\nstderr: {}\nlast records: {:?}",
            self.status,
            self.stderr,
            self.records.iter().rev().take(3).collect::<Vec<_>>()
        );
    }
    fn cmds<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Vec<String>> + 'a {
        self.records.iter().filter(move |r| r[0] == name)
    }
    fn has(&self, name: &str, args: &[&str]) -> bool {
        self.cmds(name).any(|r| contains_seq(&r[1..], args))
    }
    fn assert_has(&self, what: &str, name: &str, args: &[&str]) {
        assert!(
            self.has(name, args),
            "{what}: no `{name}` with {args:?}; recorded `{name}`: {:?}",
            self.cmds(name).collect::<Vec<_>>()
        );
    }
}

/// `needle` appears in `hay` as a contiguous run.
fn contains_seq(hay: &[String], needle: &[&str]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w.iter().zip(needle).all(|(a, b)| a == b))
}

/// Runs `script` under tclsh with the named stand-in sets, from `cwd`.
fn run_standin(sets: &[&str], script: &Path, cwd: &Path) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record");
    let standin = manifest().join("tests").join("standin");
    let mut driver = format!("set ::record_path {{{}}}\n", record.display());
    driver.push_str(&format!("source {{{}}}\n", standin.join("common.tcl").display()));
    for s in sets {
        driver.push_str(&format!("source {{{}}}\n", standin.join(format!("{s}.tcl")).display()));
    }
    driver.push_str(&format!("cd {{{}}}\nsource {{{}}}\n::standin_done\n", cwd.display(), script.display()));
    let driver_path = dir.path().join("driver.tcl");
    fs::write(&driver_path, driver).unwrap();
    let out = Command::new(tclsh()).arg(&driver_path).output().expect("tclsh runs");
    let text = fs::read_to_string(&record).unwrap_or_default();
    let records = text
        .split('\u{1e}')
        .filter(|r| !r.is_empty())
        .map(|r| r.split('\u{1f}').map(str::to_string).collect())
        .collect();
    Run { records, stderr: String::from_utf8_lossy(&out.stderr).into_owned(), status: out.status.code().unwrap_or(-1) }
}

/// A build folder with the rendered files and the RTL files of `inputs`.
struct BuildDir {
    dir: tempfile::TempDir,
}

impl BuildDir {
    fn new(files: &[(String, String)], inputs: &FlowInputs) -> BuildDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        let b = BuildDir { dir };
        for f in &inputs.rtl_files {
            b.touch(f);
        }
        b
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
    fn abs(&self, rel: &str) -> String {
        self.path(rel).display().to_string()
    }
    fn touch(&self, rel: &str) {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, "// stand-in file\n").unwrap();
    }
    fn run(&self, sets: &[&str], script: &str) -> Run {
        run_standin(sets, &self.path(script), self.dir.path())
    }
}

/// The board `vendor`'s OOC synthesis targets: `board` if it is that vendor's, otherwise
/// the first board of that vendor.
fn ooc_board(board: &Board, vendor: Vendor) -> Board {
    if board.vendor == vendor {
        return board.clone();
    }
    board_names().into_iter().map(|n| load_board(n).unwrap()).find(|b| b.vendor == vendor).unwrap()
}

fn close(text: &str, expected: f64) -> bool {
    text.parse::<f64>().map(|v| (v - expected).abs() < 0.0005).unwrap_or(false)
}

/// create_clock of `name` with `period` on port `port` (Vivado or SDC form).
fn assert_clock(run: &Run, what: &str, name: &str, port: &str, period_ns: f64) {
    let found = run.cmds("create_clock").any(|r| {
        contains_seq(&r[1..], &["-name", name])
            && r.last().map(|p| p == &format!("port:{port}")).unwrap_or(false)
            && r.iter().position(|a| a == "-period").map(|i| close(&r[i + 1], period_ns)).unwrap_or(false)
    });
    assert!(
        found,
        "{what}: no create_clock -name {name} -period {period_ns} on port {port}; recorded: {:?}",
        run.cmds("create_clock").collect::<Vec<_>>()
    );
    assert!(run.has("get_ports", &[port]), "{what}: port {port} was not looked up by its literal name");
}

/// One set_clock_groups -asynchronous holding each of `groups` as a group.
fn assert_async_groups(run: &Run, what: &str, groups: &[String]) {
    let found = run.cmds("set_clock_groups").any(|r| {
        r.iter().any(|a| a == "-asynchronous") && groups.iter().all(|g| contains_seq(&r[1..], &["-group", g.as_str()]))
    });
    assert!(
        found,
        "{what}: no asynchronous clock groups {groups:?}; recorded: {:?}",
        run.cmds("set_clock_groups").collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------- the checks

/// Renders `design` on `board` and runs every generated script against the
/// stand-ins, asserting what each must do.
fn check_flows(design: &config::Design, board: &Board, inputs: &FlowInputs) {
    let what = format!("{} s{} w{}", board.name, design.sessions, design.data_width);
    let files = render(design, board, inputs).unwrap_or_else(|e| panic!("{what}: {e}"));
    let paths: BTreeSet<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    for (path, text) in &files {
        assert!(text.contains(&design.banner()[0]), "{what}: {path} lacks the banner");
    }
    let b = BuildDir::new(&files, inputs);
    let rtl_abs: Vec<String> = inputs.rtl_files.iter().map(|f| b.abs(f)).collect();

    // Vivado OOC synthesis (always: on the board, or on the first AMD board).
    let amd = ooc_board(board, Vendor::Amd);
    let run = b.run(&["vivado"], "vivado/ooc_synth.tcl");
    let w = format!("{what}: vivado/ooc_synth.tcl");
    run.assert_completed(&w);
    let read: Vec<&String> = run.cmds("read_verilog").map(|r| r.last().unwrap()).collect();
    assert_eq!(read, rtl_abs.iter().collect::<Vec<_>>(), "{w}: RTL files read");
    run.assert_has(&w, "synth_design", &["-top", &inputs.top_module]);
    run.assert_has(&w, "synth_design", &["-part", &amd.part]);
    run.assert_has(&w, "synth_design", &["-mode", "out_of_context"]);
    run.assert_has(&w, "read_xdc", &["-mode", "out_of_context"]);
    for c in &inputs.clocks {
        assert_clock(&run, &w, &c.port, &c.port, c.period_ns);
    }
    assert_cdc(&run, &w, inputs, &|p| format!("clock:{p}"));
    run.assert_has(&w, "report_utilization", &[]);
    run.assert_has(&w, "report_timing_summary", &[]);
    run.assert_has(&w, "report_design_analysis", &["-logic_level_distribution"]);
    // the synthesis runs after every file and constraint is read
    let pos = |name: &str| run.records.iter().rposition(|r| r[0] == name).unwrap();
    assert!(pos("read_verilog") < pos("synth_design") && pos("create_clock") < pos("synth_design"), "{w}: order");

    // Quartus OOC synthesis (always).
    let intel = ooc_board(board, Vendor::Intel);
    let run = b.run(&["quartus"], "quartus/ooc_synth.tcl");
    let w = format!("{what}: quartus/ooc_synth.tcl");
    run.assert_completed(&w);
    run.assert_has(&w, "set_global_assignment", &["-name", "DEVICE", &intel.part]);
    run.assert_has(&w, "set_global_assignment", &["-name", "FAMILY", &intel.family]);
    run.assert_has(&w, "set_global_assignment", &["-name", "TOP_LEVEL_ENTITY", &inputs.top_module]);
    for f in &rtl_abs {
        run.assert_has(&w, "set_global_assignment", &["-name", "VERILOG_FILE", f]);
    }
    run.assert_has(&w, "set_global_assignment", &["-name", "SDC_FILE", &b.abs("quartus/ooc.sdc")]);
    for tool in ["syn", "fit", "sta"] {
        run.assert_has(&w, "execute_module", &["-tool", tool]);
    }
    for c in &inputs.clocks {
        run.assert_has(&w, "set_instance_assignment", &["-name", "VIRTUAL_PIN", "OFF", "-to", &c.port]);
    }
    assert_synchronizers(&run, &w, Vendor::Intel);
    let sdc = b.run(&["sdc"], "quartus/ooc.sdc");
    let w = format!("{what}: quartus/ooc.sdc");
    sdc.assert_completed(&w);
    for c in &inputs.clocks {
        assert_clock(&sdc, &w, &c.port, &c.port, c.period_ns);
    }
    assert_cdc_sdc(&sdc, &w, inputs);
    let sta = b.run(&["sta"], "quartus/sta_report.tcl");
    sta.assert_completed(&format!("{what}: quartus/sta_report.tcl"));
    sta.assert_has(&what, "report_logic_depth", &[]);
    sta.assert_has(&what, "create_timing_summary", &["-setup"]);

    match board.vendor {
        Vendor::Amd => check_vivado_board(&what, design, board, inputs, &files, &paths),
        Vendor::Intel => check_quartus_board(&what, design, board, inputs, &files, &paths),
    }
}

fn toe_abs(b: &BuildDir, design: &config::Design) -> String {
    b.abs(&design.toe_netlist)
}

/// The board build generated `own` and the board top, and not the other vendor's board
/// build script `other`.
fn assert_board_build_files(what: &str, paths: &BTreeSet<&str>, inputs: &FlowInputs, own: &[&str], other: &str) {
    for p in own {
        assert!(paths.contains(p), "{what}: {p} not generated");
    }
    assert!(!paths.contains(other), "{what}: {other} generated: a board gets only its own vendor's board build");
    assert!(paths.contains(format!("rtl/{}_board.v", inputs.top_module).as_str()), "{what}: board top not generated");
}

/// The build stopped (status 1) with `error` on stderr because `why`.
fn assert_stopped(run: &Run, w: &str, why: &str, error: &str) {
    assert_eq!(run.status, 1, "{w}: must stop when {why}");
    assert!(run.stderr.contains(error), "{w}: stderr {:?}", run.stderr);
}

/// Each QSFP lane pin of `board` with the board-top port it is assigned to.
fn lane_pins(board: &Board) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for (i, l) in board.qsfp.lanes.iter().enumerate() {
        for (pin, dir) in [(&l.tx_p, "tx_p"), (&l.tx_n, "tx_n"), (&l.rx_p, "rx_p"), (&l.rx_n, "rx_n")] {
            v.push((pin.clone(), format!("{}_{dir}[{i}]", board.qsfp.name)));
        }
    }
    v
}

/// create_clock of the board clock `c` on its `_p` port.
fn assert_board_clock(run: &Run, what: &str, c: &BoardClock) {
    assert_clock(run, what, &c.port, &format!("{}_p", c.port), 1000.0 / c.freq_mhz);
}

fn check_vivado_board(
    what: &str,
    design: &config::Design,
    board: &Board,
    inputs: &FlowInputs,
    files: &[(String, String)],
    paths: &BTreeSet<&str>,
) {
    assert_board_build_files(
        what,
        paths,
        inputs,
        &["vivado/build.tcl", "vivado/ip.tcl", "vivado/board.xdc"],
        "quartus/build.tcl",
    );
    // The default netlist is Verilog, which Vivado reads as it is: no stub.
    {
        let b = BuildDir::new(files, inputs);
        b.touch(&design.toe_netlist);
        b.touch(&platform_rel(design, &inputs.top_module));
        let run = b.run(&["vivado"], "vivado/build.tcl");
        run.assert_completed(&format!("{what}: vivado/build.tcl, Verilog netlist"));
        run.assert_has(what, "read_verilog", &[&toe_abs(&b, design)]);
        let stub = b.abs(&format!("rtl/stub/{}_toe.v", inputs.top_module));
        assert!(
            !run.has("read_verilog", &[&stub]),
            "{what}: a Verilog netlist defines the module; the stub is not read"
        );
    }
    // The rest with an EDIF netlist, which fills the black box of the stub.
    let mut design = design.clone();
    design.toe_netlist = "toe/toe_core.edf".into();
    let design = &design;
    let files = render(design, board, inputs).unwrap();
    let b = BuildDir::new(&files, inputs);
    let w = format!("{what}: vivado/build.tcl");
    let board_top = format!("{}_board", inputs.top_module);

    // Without the TOE core (everything else there): the clear error, before anything is read.
    let run = b.run(&["vivado"], "vivado/build.tcl");
    assert_stopped(
        &run,
        &w,
        "the TOE netlist is missing",
        &format!("ERROR: TOE core netlist not found: {}", toe_abs(&b, design)),
    );
    assert!(
        run.cmds("read_verilog").next().is_none() && run.cmds("create_project").next().is_none(),
        "{w}: ran past the check"
    );

    // With the TOE core but without the platform: the clear error, before anything is read.
    b.touch(&design.toe_netlist);
    let platform = platform_rel(design, &inputs.top_module);
    let run = b.run(&["vivado"], "vivado/build.tcl");
    assert_stopped(
        &run,
        &w,
        "the platform is missing",
        &format!("ERROR: platform module not found: {}", b.abs(&platform)),
    );
    assert!(run.cmds("read_verilog").next().is_none(), "{w}: ran past the check");

    // With the TOE core and the platform: the whole build.
    b.touch(&platform);
    let run = b.run(&["vivado"], "vivado/build.tcl");
    run.assert_completed(&w);
    run.assert_has(&w, "read_verilog", &[&b.abs(&platform)]);
    // An EDIF fills the black box the generated stub declares: the stub is read, before the netlist.
    let stub = b.abs(&format!("rtl/stub/{}_toe.v", inputs.top_module));
    let stub_at = run
        .records
        .iter()
        .position(|r| r[0] == "read_verilog" && r.last() == Some(&stub))
        .unwrap_or_else(|| panic!("{w}: stub not read"));
    let edif_at = run.records.iter().position(|r| r[0] == "read_edif").unwrap();
    assert!(stub_at < edif_at, "{w}: the stub must be read before the netlist");
    for f in &inputs.rtl_files {
        assert!(!f.contains("/stub/"), "{w}: a stub in the user-logic sources");
    }
    run.assert_has(&w, "create_project", &["-part", &board.part]);
    run.assert_has(&w, "synth_design", &["-top", &board_top, "-part", &board.part]);
    run.assert_has(&w, "read_edif", &[&toe_abs(&b, design)]);
    for f in &inputs.rtl_files {
        run.assert_has(&w, "read_verilog", &[&b.abs(f)]);
    }
    run.assert_has(&w, "read_verilog", &[&b.abs(&format!("rtl/{board_top}.v"))]);
    run.assert_has(&w, "create_ip", &["-name", "xdma"]);
    run.assert_has(&w, "create_ip", &["-name", "cmac_usplus"]);
    let cmac_dict = run
        .cmds("set_property")
        .find(|r| r.last().map(|l| l == "ip:cmac_eth").unwrap_or(false))
        .unwrap_or_else(|| panic!("{w}: CMAC not configured"))
        .join(" ");
    assert!(cmac_dict.contains(&format!("CONFIG.GT_REF_CLK_FREQ {}", board.qsfp.refclk.freq_mhz)), "{w}: {cmac_dict}");
    if let Some(site) = &board.qsfp.mac_site {
        assert!(cmac_dict.contains(&format!("CONFIG.CMAC_CORE_SELECT {site}")), "{w}: {cmac_dict}");
    }
    let xdma_dict =
        run.cmds("set_property").find(|r| r.last().map(|l| l == "ip:xdma_regs").unwrap_or(false)).unwrap().join(" ");
    assert!(xdma_dict.contains("CONFIG.axilite_master_en true"), "{w}: {xdma_dict}");
    for step in ["opt_design", "place_design", "route_design", "write_bitstream", "report_cdc"] {
        run.assert_has(&w, step, &[]);
    }
    run.assert_has(&w, "report_design_analysis", &["-logic_level_distribution"]);
    run.assert_has(&w, "read_xdc", &[&b.abs("vivado/board.xdc")]);

    // board.xdc, run through read_xdc: pins, clocks, crossings.
    let w = format!("{what}: vivado/board.xdc");
    let f = &board.free_clock;
    run.assert_has(&w, "set_property", &["PACKAGE_PIN", &f.pin_p, &format!("port:{}_p", f.port)]);
    if let Some(io) = &f.io_standard {
        run.assert_has(&w, "set_property", &["IOSTANDARD", io, &format!("port:{}_p", f.port)]);
    }
    assert_board_clock(&run, &w, f);
    let r = &board.qsfp.refclk;
    run.assert_has(&w, "set_property", &["PACKAGE_PIN", &r.pin_p, &format!("port:{}_p", r.port)]);
    assert_board_clock(&run, &w, r);
    for (pin, port) in lane_pins(board) {
        run.assert_has(&w, "set_property", &["PACKAGE_PIN", &pin, &format!("port:{port}")]);
    }
    let pcie = board.register_path.pcie.as_ref().unwrap();
    run.assert_has(&w, "set_property", &["PACKAGE_PIN", &pcie.perst_pin, &format!("port:{}", pcie.perst_port)]);
    run.assert_has(&w, "set_property", &["IOSTANDARD", &pcie.perst_io_standard, &format!("port:{}", pcie.perst_port)]);
    assert_board_clock(&run, &w, &pcie.refclk);
    assert_cdc(&run, &w, inputs, &|p| format!("clock:of(pin:u_user_logic/{p})"));
    assert_async_groups(
        &run,
        &w,
        &[format!("clock:{}", f.port), format!("clock:{}", r.port), format!("clock:{}", pcie.refclk.port)],
    );
}

fn check_quartus_board(
    what: &str,
    design: &config::Design,
    board: &Board,
    inputs: &FlowInputs,
    files: &[(String, String)],
    paths: &BTreeSet<&str>,
) {
    assert_board_build_files(
        what,
        paths,
        inputs,
        &["quartus/build.tcl", "quartus/board.qsf", "quartus/board.sdc"],
        "vivado/build.tcl",
    );
    let b = BuildDir::new(files, inputs);
    let w = format!("{what}: quartus/build.tcl");
    b.touch("quartus/ip/reg_bridge.ip");
    b.touch("quartus/ip/eth_mac.ip");

    // Without the TOE core (everything else there): the clear error, before anything is read.
    let run = b.run(&["quartus"], "quartus/build.tcl");
    assert_stopped(
        &run,
        &w,
        "the TOE netlist is missing",
        &format!("ERROR: TOE core netlist not found: {}", toe_abs(&b, design)),
    );
    assert!(run.cmds("project_new").next().is_none(), "{w}: ran past the check");

    // A netlist type only Quartus reads.
    let mut design = design.clone();
    design.toe_netlist = "toe/toe_core.vqm".into();
    let files = render(&design, board, inputs).unwrap();
    let b = BuildDir::new(&files, inputs);
    let board_top = format!("{}_board", inputs.top_module);
    b.touch(&design.toe_netlist);
    let platform = platform_rel(&design, &inputs.top_module);
    let run = b.run(&["quartus"], "quartus/build.tcl");
    assert_stopped(
        &run,
        &w,
        "the platform is missing",
        &format!("ERROR: platform module not found: {}", b.abs(&platform)),
    );
    b.touch(&platform);
    let run = b.run(&["quartus"], "quartus/build.tcl");
    assert_stopped(
        &run,
        &w,
        "the IP is missing",
        &format!("ERROR: IP file {} not found", b.abs("quartus/ip/reg_bridge.ip")),
    );

    b.touch("quartus/ip/reg_bridge.ip");
    b.touch("quartus/ip/eth_mac.ip");
    let run = b.run(&["quartus"], "quartus/build.tcl");
    run.assert_completed(&w);
    run.assert_has(&w, "set_global_assignment", &["-name", "DEVICE", &board.part]);
    run.assert_has(&w, "set_global_assignment", &["-name", "TOP_LEVEL_ENTITY", &board_top]);
    run.assert_has(&w, "set_global_assignment", &["-name", "VQM_FILE", &toe_abs(&b, &design)]);
    for f in &inputs.rtl_files {
        run.assert_has(&w, "set_global_assignment", &["-name", "VERILOG_FILE", &b.abs(f)]);
    }
    run.assert_has(&w, "set_global_assignment", &["-name", "SDC_FILE", &b.abs("quartus/board.sdc")]);
    run.assert_has(&w, "set_global_assignment", &["-name", "VERILOG_FILE", &b.abs(&format!("rtl/{board_top}.v"))]);
    run.assert_has(&w, "set_global_assignment", &["-name", "VERILOG_FILE", &b.abs(&platform)]);
    run.assert_has(&w, "execute_flow", &["-compile"]);
    assert_synchronizers(&run, &w, Vendor::Intel);
    // board.qsf, sourced by build.tcl
    let f = &board.free_clock;
    run.assert_has(&w, "set_location_assignment", &[&format!("PIN_{}", f.pin_p), "-to", &format!("{}_p", f.port)]);
    if let Some(io) = &f.io_standard {
        run.assert_has(&w, "set_instance_assignment", &["-name", "IO_STANDARD", io, "-to", &format!("{}_p", f.port)]);
    }
    let r = &board.qsfp.refclk;
    run.assert_has(&w, "set_location_assignment", &[&format!("PIN_{}", r.pin_p), "-to", &format!("{}_p", r.port)]);
    for (pin, port) in lane_pins(board) {
        run.assert_has(&w, "set_location_assignment", &[&format!("PIN_{pin}"), "-to", &port]);
    }

    let sdc = b.run(&["sdc"], "quartus/board.sdc");
    let w = format!("{what}: quartus/board.sdc");
    sdc.assert_completed(&w);
    assert_board_clock(&sdc, &w, f);
    assert_board_clock(&sdc, &w, r);
    assert_cdc_sdc(&sdc, &w, inputs);
}

/// The SDC half of the crossing constraints (the QSF half is checked with the build).
fn assert_cdc_sdc(run: &Run, what: &str, inputs: &FlowInputs) {
    for (r, port) in held_registers() {
        let period = period_of(inputs, port);
        let from = format!("reg:*|{}*", r.replace('/', "|"));
        let to = format!("clock:{port}");
        let max = run.cmds("set_max_delay").any(|rec| {
            contains_seq(&rec[1..], &["-from", &from, "-to", &to])
                && rec.last().map(|p| close(p, period)).unwrap_or(false)
        });
        assert!(max, "{what}: no set_max_delay from {from} to {to} ({period} ns)");
        run.assert_has(what, "set_false_path", &["-hold", "-from", &from, "-to", &to]);
    }
    assert_no_user_clock_group(run, what, &|p| format!("clock:{p}"));
}

// ---------------------------------------------------------------- tests

#[test]
fn default_design_passes_the_standin_checks() {
    let d = default_design();
    let board = load_board(&d.board).unwrap();
    check_flows(&d, &board, &inputs(&d, &[USER_RTL]));
}

#[test]
fn config_matrix_renders_and_passes_the_standin_checks() {
    for name in board_names() {
        let board = load_board(name).unwrap();
        for sessions in [1, 4] {
            for width in [512, 1024] {
                let d = design_for(name, sessions, width);
                check_flows(&d, &board, &inputs(&d, &[USER_RTL, "rtl/toe_session.v"]));
            }
        }
    }
}

#[test]
fn dollar_names_reach_the_tools_literally() {
    let d = default_design();
    let board = load_board("alveo-u50").unwrap();
    let i = FlowInputs {
        top_module: "top$wrap".into(),
        rtl_files: vec!["rtl/a$b.v".into()],
        clocks: vec![
            ClockPort { port: "iface$user_clk".into(), period_ns: 4.0 },
            ClockPort { port: "s_axil$aclk".into(), period_ns: 8.0 },
        ],
        ports: user_ports(&d),
        crossings: crossings(),
    };
    let files = render(&d, &board, &i).unwrap();
    for (path, text) in &files {
        if path.ends_with(".tcl") || path.ends_with(".xdc") || path.ends_with(".sdc") || path.ends_with(".qsf") {
            for (n, line) in text.lines().enumerate() {
                let code = line.split(" ;#").next().unwrap_or("");
                if code.trim_start().starts_with('#') {
                    continue;
                }
                for name in ["$wrap", "$b.v", "$user_clk", "$aclk"] {
                    if let Some(at) = code.find(name) {
                        let before = &code[..at];
                        assert!(
                            before.rfind('{').map(|o| before[o..].find('}').is_none()).unwrap_or(false),
                            "{path}:{}: `{name}` not inside braces: {line}",
                            n + 1
                        );
                    }
                }
            }
        }
    }
    // And the stand-ins see the names unsubstituted.
    let b = BuildDir::new(&files, &i);
    let run = b.run(&["vivado"], "vivado/ooc_synth.tcl");
    run.assert_completed("dollar names, vivado");
    run.assert_has("dollar names", "synth_design", &["-top", "top$wrap"]);
    run.assert_has("dollar names", "read_verilog", &[&b.abs("rtl/a$b.v")]);
    assert_clock(&run, "dollar names", "iface$user_clk", "iface$user_clk", 4.0);
    assert_clock(&run, "dollar names", "s_axil$aclk", "s_axil$aclk", 8.0);
    let sdc = b.run(&["sdc"], "quartus/ooc.sdc");
    sdc.assert_completed("dollar names, sdc");
    assert_clock(&sdc, "dollar names sdc", "iface$user_clk", "iface$user_clk", 4.0);
    let run = b.run(&["vivado"], "vivado/build.tcl");
    assert_eq!(run.status, 1);
    b.touch(&d.toe_netlist);
    b.touch(&platform_rel(&d, "top$wrap"));
    let run = b.run(&["vivado"], "vivado/build.tcl");
    run.assert_completed("dollar names, board build");
    assert_async_groups(
        &run,
        "dollar names board.xdc",
        &["clock:of(pin:u_user_logic/iface$user_clk)".into(), "clock:of(pin:u_user_logic/s_axil$aclk)".into()],
    );
}

#[test]
fn stand_in_rejects_commands_the_tool_lacks() {
    // The stand-in is only worth something if an unknown command fails.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.tcl");
    fs::write(&script, "read_verilog a.v\nsynth_desing -top x\n").unwrap();
    let run = run_standin(&["vivado"], &script, dir.path());
    assert!(!run.completed());
    assert!(run.stderr.contains("unknown command \"synth_desing\""), "{}", run.stderr);
    assert!(run.has("read_verilog", &["a.v"]));
}

#[test]
fn rendering_is_deterministic() {
    let d = default_design();
    let board = load_board(&d.board).unwrap();
    let i = inputs(&d, &[USER_RTL]);
    assert_eq!(render(&d, &board, &i).unwrap(), render(&d, &board, &i).unwrap());
}

#[test]
fn bad_flow_inputs_are_rejected_with_the_field() {
    let d = default_design();
    let board = load_board(&d.board).unwrap();
    let mut i = inputs(&d, &[USER_RTL]);
    i.clocks[1].port = "user_clk".into();
    assert_eq!(
        render(&d, &board, &i).unwrap_err().to_string(),
        "flow inputs: `clocks[1].port`: \"user_clk\" appears twice: each clock port once"
    );
    let mut i = inputs(&d, &[USER_RTL]);
    i.clocks[0].period_ns = f64::NAN;
    assert_eq!(
        render(&d, &board, &i).unwrap_err().to_string(),
        "flow inputs: `clocks[0].period_ns`: NaN must be a positive number of ns"
    );
    let i = inputs(&d, &[]);
    assert_eq!(
        render(&d, &board, &i).unwrap_err().to_string(),
        "flow inputs: `rtl_files`: must list at least one Verilog file"
    );
}

#[test]
fn a_netlist_the_vendor_cannot_read_is_rejected_with_the_types_it_can() {
    let amd = load_board("alveo-u50").unwrap();
    let intel = load_board("agilex7-i-devkit").unwrap();
    let with = |board: &Board, netlist: &str| {
        let mut d = design_for(&board.name, 1, 64);
        d.toe_netlist = netlist.into();
        render(&d, board, &inputs(&d, &[USER_RTL])).map(|_| ()).map_err(|e| e.to_string())
    };
    assert_eq!(
        with(&intel, "toe/core.edf").unwrap_err(),
        "flow inputs: `toe.netlist`: \"toe/core.edf\" is not a file the Quartus board build reads: for board agilex7-i-devkit (intel) use one of .v, .sv, .vqm, .ip"
    );
    assert_eq!(
        with(&amd, "toe/core.vqm").unwrap_err(),
        "flow inputs: `toe.netlist`: \"toe/core.vqm\" is not a file the Vivado board build reads: for board alveo-u50 (amd) use one of .edf, .edn, .edif, .v, .sv, .xci"
    );
    assert!(with(&intel, "toe/core").is_err(), "no extension");
    for (board, ok) in [(&amd, "toe/core.EDF"), (&amd, "/abs/core.xci"), (&intel, "core.vqm"), (&intel, "toe/core.ip")]
    {
        assert_eq!(with(board, ok), Ok(()), "{ok} on {}", board.name);
    }
    // The default's netlist suits every board.
    for name in board_names() {
        let d = design_for(name, 1, 64);
        assert_eq!(with(&load_board(name).unwrap(), &d.toe_netlist), Ok(()), "{name}");
    }
}

#[test]
fn ports_the_board_cannot_place_are_named() {
    let d = default_design();
    let board = load_board(&d.board).unwrap();
    let n = user_ports(&d).ports().len();
    for (port, shown) in [
        (Port::new(Group::RegisterSession(0), "start", Direction::Input, 1), "\"s0_start\" (RegisterSession(0))"),
        (Port::new(Group::Info, "build", Direction::Input, 32), "\"info_build\" (Info)"),
        (Port::new(Group::Pin, "led", Direction::Output, 1), "\"led\" (Pin)"),
        (Port::new(Group::Clock, "other_clk", Direction::Input, 1), "\"other_clk\" (Clock)"),
    ] {
        let mut ports = user_ports(&d).ports().to_vec();
        ports.push(port);
        let i = inputs(&d, &[USER_RTL]).with_ports(PortPlan::new(ports));
        assert_eq!(
            render(&d, &board, &i).unwrap_err().to_string(),
            format!("flow inputs: `ports[{n}]`: {shown} is none of user_clk/user_rst, a register bus port (Bus) or a TOE port (ToeGlobal, ToeSession): the board top cannot place it")
        );
    }
    // An address port narrower than the register master's would drop its upper bits.
    for local in ["awaddr", "araddr"] {
        let mut ports = user_ports(&d).ports().to_vec();
        let k = ports.iter().position(|p| p.group == Group::Bus && p.local == local).unwrap();
        ports[k].width = 11;
        let i = inputs(&d, &[USER_RTL]).with_ports(PortPlan::new(ports));
        assert_eq!(
            render(&d, &board, &i).unwrap_err().to_string(),
            format!("flow inputs: `ports[{k}]`: \"s_axil_{local}\" is 11 bits wide: the register master's address is 32 bits, and a narrower port would drop its upper bits (addresses outside the map would alias onto it)")
        );
    }
    let ports = user_ports(&d).ports().iter().filter(|p| p.local != "aresetn").cloned().collect();
    let i = inputs(&d, &[USER_RTL]).with_ports(PortPlan::new(ports));
    assert_eq!(
        render(&d, &board, &i).unwrap_err().to_string(),
        "flow inputs: `ports`: the user logic has no `s_axil_aresetn` port"
    );
}

#[test]
fn without_crossings_the_clocks_are_asynchronous_groups() {
    let d = default_design();
    let board = load_board(&d.board).unwrap();
    let i = inputs(&d, &[USER_RTL]).with_crossings(Crossings::default());
    let files = render(&d, &board, &i).unwrap();
    for (path, text) in &files {
        for crossing in ["ASYNC_REG", "SYNCHRONIZER_IDENTIFICATION", "set_max_delay", "Register-file crossing"] {
            assert!(!text.contains(crossing), "{path}: {crossing} without crossings");
        }
    }
    let b = BuildDir::new(&files, &i);
    let run = b.run(&["vivado"], "vivado/ooc_synth.tcl");
    run.assert_completed("no crossings, vivado");
    assert_async_groups(&run, "no crossings, vivado", &["clock:user_clk".into(), "clock:s_axil_aclk".into()]);
    let sdc = b.run(&["sdc"], "quartus/ooc.sdc");
    sdc.assert_completed("no crossings, sdc");
    assert_async_groups(&sdc, "no crossings, sdc", &["clock:user_clk".into(), "clock:s_axil_aclk".into()]);
}

#[test]
fn build_readme_tells_what_to_run_and_supply() {
    let d = design_for("alveo-u50", 4, 1024);
    let board = load_board(&d.board).unwrap();
    let files = render(&d, &board, &inputs(&d, &[USER_RTL])).unwrap();
    let readme = &files.iter().find(|(p, _)| p == "README.md").unwrap().1;
    for needle in [
        "licensed TOE core",
        "toe/toe_core.v",
        "vivado -mode batch -source vivado/build.tcl",
        "make vivado-ooc",
        "make quartus-ooc",
        "Not generated",
        "What you supply",
        "rtl/toe_user_logic_board.v",
        "rtl/stub/toe_user_logic_toe.v",
        "rtl/stub/toe_user_logic_platform.v",
        "`toe_user_logic_platform.v`",
        "register master",
    ] {
        assert!(readme.contains(needle), "README lacks {needle:?}");
    }
    let agilex = load_board("agilex7-f-devkit").unwrap();
    let d = design_for("agilex7-f-devkit", 4, 1024);
    let files = render(&d, &agilex, &inputs(&d, &[USER_RTL])).unwrap();
    let readme = &files.iter().find(|(p, _)| p == "README.md").unwrap().1;
    for needle in ["quartus_sh -t quartus/build.tcl", "`ip/reg_bridge.ip`", "`ip/eth_mac.ip`", "toe/toe_core.v"] {
        assert!(readme.contains(needle), "Agilex README lacks {needle:?}");
    }
    for m in &agilex.missing {
        assert!(readme.contains(m.as_str()), "README lacks missing fact {m:?}");
    }
    for (name, mac) in
        [("agilex7-f-devkit", "E-tile Hard IP for Ethernet"), ("agilex7-i-devkit", "F-tile Ethernet Hard IP")]
    {
        let d = design_for(name, 4, 1024);
        let files = render(&d, &load_board(name).unwrap(), &inputs(&d, &[USER_RTL])).unwrap();
        let readme = &files.iter().find(|(p, _)| p == "README.md").unwrap().1;
        assert!(
            readme.contains(&format!("- The {mac} and the register bridge are created by you")),
            "{name}: {readme}"
        );
        assert!(readme.contains(&format!("`ip/eth_mac.ip` | {mac} on the")), "{name}: IP table names the MAC");
    }
}

fn readme_of(board: &str, sessions: usize, width: usize, mhz: f64) -> String {
    let text = config::Variant::default()
        .sessions(sessions)
        .data_width(width)
        .set("design.user_clock_mhz", mhz)
        .board(board)
        .to_toml();
    let d = config::parse(&text).unwrap();
    let files = render(&d, &load_board(board).unwrap(), &inputs(&d, &[USER_RTL])).unwrap();
    files.into_iter().find(|(p, _)| p == "README.md").unwrap().1
}

#[test]
fn build_readme_states_whether_the_user_logic_fills_the_link() {
    // The reference demo on its 200G board: 32,000 MB/s against 25,000 MB/s.
    let r = readme_of("agilex7-i-devkit", 4, 1024, 250.0);
    assert!(
        r.contains("User bandwidth 32,000 MB/s per session and direction (1024 bits x 250 MHz, 128,000 MB/s with all 4 sessions) against the 200G link of `qsfpdd1` (25,000 MB/s, F-tile Ethernet Hard IP): the link is the limit: one session can fill it, and a transfer stays below 25,000 MB/s"),
        "{r}"
    );
    // The same design on a 100G CMAC board: the link is 12,500 MB/s.
    let r = readme_of("alveo-u50", 4, 1024, 250.0);
    assert!(
        r.contains("against the 100G link of `qsfp0` (12,500 MB/s, 100G CMAC): the link is the limit: one session can fill it, and a transfer stays below 12,500 MB/s"),
        "{r}"
    );
    assert!(!r.contains("200G") && !r.contains("25,000"), "a 100G board's README must not claim 200G: {r}");
    assert!(!r.contains("does not fit"), "the old hard-coded sentence is gone");
    // 512 bits at 195.3125 MHz = 12,500 MB/s: exactly a 100G link.
    let r = readme_of("alveo-u50", 1, 512, 195.3125);
    assert!(r.contains("12,500 MB/s per session and direction (512 bits x 195.3125 MHz) against"), "{r}");
    assert!(r.contains("one session exactly fills the link"), "{r}");
    // 4 x 25G on a 100G cage: only all four sessions together fill it.
    let r = readme_of("alveo-u50", 4, 128, 195.3125);
    assert!(
        r.contains("3,125 MB/s per session and direction (128 bits x 195.3125 MHz, 12,500 MB/s with all 4 sessions)"),
        "{r}"
    );
    assert!(r.contains("one session cannot fill the link; all 4 sessions together can"), "{r}");
    // 64 bits at 100 MHz (800 MB/s a session) cannot feed 200G: warned.
    let r = readme_of("agilex7-i-devkit", 2, 64, 100.0);
    assert!(
        r.contains("**warning:** the link is faster than the user logic can feed: a test moves at most 1,600 MB/s with every session running"),
        "{r}"
    );
}

// ---------------------------------------------------------------- run-tool.sh

fn run_tool(path_dirs: &str, args: &[&str]) -> (i32, String) {
    let out = Command::new("bash")
        .arg(manifest().join("scripts").join("run-tool.sh"))
        .args(args)
        .env("PATH", path_dirs)
        .output()
        .expect("bash runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn run_tool_says_when_the_tool_is_missing_and_runs_it_when_present() {
    // An AMD board: its build folder has no Quartus board build.
    let d = design_for("alveo-u50", 4, 1024);
    let board = load_board(&d.board).unwrap();
    let i = inputs(&d, &[USER_RTL]);
    let b = BuildDir::new(&render(&d, &board, &i).unwrap(), &i);
    let build = b.dir.path().display().to_string();

    let (code, err) = run_tool("/usr/bin:/bin", &["vivado", &build]);
    assert_eq!(code, 127, "{err}");
    assert!(err.contains("vivado is not on PATH"), "{err}");
    let (code, err) = run_tool("/usr/bin:/bin", &["quartus", &build]);
    assert_eq!(code, 127, "{err}");
    assert!(err.contains("quartus_sh is not on PATH"), "{err}");
    // An AMD board has no Quartus board build.
    let (code, err) = run_tool("/usr/bin:/bin", &["quartus", &build, "board"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("quartus/build.tcl not found"), "{err}");

    // A fake vivado on PATH is run in vivado/ with the OOC script.
    let bin = tempfile::tempdir().unwrap();
    let log = bin.path().join("args");
    let fake = bin.path().join("vivado");
    fs::write(&fake, format!("#!/bin/sh\necho \"$(pwd) $*\" > {}\n", log.display())).unwrap();
    Command::new("chmod").arg("+x").arg(&fake).status().unwrap();
    let (code, err) = run_tool(&format!("{}:/usr/bin:/bin", bin.path().display()), &["vivado", &build]);
    assert_eq!(code, 0, "{err}");
    let called = fs::read_to_string(&log).unwrap();
    assert!(called.contains("/vivado -mode batch") && called.trim_end().ends_with("-source ooc_synth.tcl"), "{called}");
}

// ---------------------------------------------------------------- the open engine

/// A design with the open engine (`toe.core = "open"`) on `board`.
fn open_design(board: &str, sessions: usize, width: usize) -> config::Design {
    let text =
        config::Variant::default().set("toe.core", "open").sessions(sessions).data_width(width).board(board).to_toml();
    let d = config::parse(&text).unwrap_or_else(|e| panic!("open core on {board}: {e}"));
    assert!(matches!(d.toe_core, config::ToeCore::Open { .. }), "{board}: toe.core did not reach the design");
    d
}

/// The MAC stream of an open top, written out here from the brief, not from the code under test.
fn mac_stream(width: usize) -> Vec<Port> {
    let (i, o) = (Direction::Input, Direction::Output);
    [
        ("rx_tdata", i, width),
        ("rx_tkeep", i, width / 8),
        ("rx_tlast", i, 1),
        ("rx_tvalid", i, 1),
        ("rx_tuser", i, 1),
        ("tx_tdata", o, width),
        ("tx_tkeep", o, width / 8),
        ("tx_tlast", o, 1),
        ("tx_tvalid", o, 1),
        ("tx_tready", i, 1),
    ]
    .into_iter()
    .map(|(n, d, w)| Port::new(Group::Mac, n, d, w))
    .collect()
}

/// An open top's ports: clocks, the AXI4-Lite bus and the MAC stream; no TOE ports.
fn open_ports(design: &config::Design) -> PortPlan {
    let mut v: Vec<Port> =
        user_ports(design).ports().iter().filter(|p| matches!(p.group, Group::Clock | Group::Bus)).cloned().collect();
    v.extend(mac_stream(design.data_width));
    PortPlan::new(v)
}

fn open_inputs(design: &config::Design) -> FlowInputs {
    FlowInputs::standard(design, vec![USER_RTL.to_string()]).with_ports(open_ports(design)).with_crossings(crossings())
}

fn text_of<'a>(files: &'a [(String, String)], path: &str) -> &'a str {
    &files.iter().find(|(p, _)| p == path).unwrap_or_else(|| panic!("{path} not generated")).1
}

/// A stand-in of the generated top with the plan's ports (outputs tied low), for lint.
fn user_logic_standin(top: &str, plan: &PortPlan) -> String {
    let decls: Vec<String> = plan.ports().iter().map(|p| format!("    {}", p.declaration())).collect();
    let mut s = format!("module {top} (\n{}\n);\n", decls.join(",\n"));
    for p in plan.ports().iter().filter(|p| p.direction == Direction::Output) {
        s.push_str(&format!("    assign {} = {{{}{{1'b0}}}};\n", p.name, p.width));
    }
    let ins: Vec<&str> = plan.inputs().map(|p| p.name.as_str()).collect();
    s.push_str(&format!("    wire unused = &{{1'b0, {}}};\nendmodule\n", ins.join(", ")));
    s
}

/// `verilator --lint-only -Wall` of the board top with its stubs and a stand-in of the top;
/// None (with a note) without verilator, else the failure text.
fn lint_board_top(
    design: &config::Design,
    files: &[(String, String)],
    inputs: &FlowInputs,
) -> Option<Result<(), String>> {
    let verilator = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(|d| Path::new(d).join("verilator"))
        .find(|p| p.is_file());
    let Some(verilator) = verilator else {
        println!("note: verilator not on PATH: board top lint skipped (Debian: `apt-get install verilator`)");
        return None;
    };
    let b = BuildDir::new(files, inputs);
    let top = &inputs.top_module;
    fs::write(b.path(&format!("rtl/{top}.v")), design.verilog_file(&user_logic_standin(top, &inputs.ports))).unwrap();
    let mut args: Vec<String> = vec![format!("rtl/{top}.v")];
    args.extend(files.iter().map(|(p, _)| p).filter(|p| p.starts_with("rtl/")).cloned());
    let out = Command::new(verilator)
        .current_dir(b.dir.path())
        .args(["--lint-only", "-Wall"])
        .args(&args)
        .args(["--top-module", &format!("{top}_board")])
        .output()
        .expect("verilator runs");
    Some(if out.status.success() && out.stderr.is_empty() {
        Ok(())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
    })
}

#[test]
fn an_open_design_has_the_mac_in_place_of_the_toe_core() {
    for name in board_names() {
        for width in [64, 1024] {
            let d = open_design(name, 1, width);
            let board = load_board(name).unwrap();
            let i = open_inputs(&d);
            let what = format!("open core, {name}, {width} bits");
            let files = render(&d, &board, &i).unwrap_or_else(|e| panic!("{what}: {e}"));
            let top = &d.name;
            let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
            let mac_stub = format!("rtl/stub/{top}_mac.v");
            assert!(paths.contains(&mac_stub.as_str()), "{what}: no MAC stub in {paths:?}");
            assert!(
                !paths.iter().any(|p| p.ends_with("_toe.v")),
                "{what}: a TOE stub for an open design (the top has a real {top}_toe): {paths:?}"
            );

            // The board top instantiates the MAC wrapper, wired to every MAC port of the top, and no TOE.
            let board_top = text_of(&files, &format!("rtl/{top}_board.v"));
            assert!(board_top.contains(&format!("    {top}_mac u_mac (\n")), "{what}: no u_mac:\n{board_top}");
            assert!(!board_top.contains(&format!("{top}_toe ")), "{what}: the board top instantiates a TOE");
            assert!(!board_top.contains("u_toe"), "{what}: u_toe in the board top");
            let mac_inst = &board_top[board_top.find(" u_mac (").unwrap()..];
            for p in mac_stream(width) {
                let conn = format!(".{} ", p.name);
                assert!(
                    mac_inst.contains(&conn) && mac_inst.contains(&format!("({})", p.name)),
                    "{what}: u_mac lacks {}",
                    p.name
                );
                assert!(board_top.contains(&format!("wire {}{};", config::ports::range(p.width), p.name)));
            }
            for pin in ["_tx_p", "_tx_n", "_rx_p", "_rx_n"] {
                let lanes = format!("{}{pin}", board.qsfp.name);
                assert!(mac_inst.contains(&format!(".{lanes} ")), "{what}: u_mac lacks {lanes}");
            }
            assert!(mac_inst.contains(&format!(".{}_p ", board.qsfp.refclk.port)), "{what}: u_mac lacks refclk");

            // The stub has every MAC port of the top flipped, the user clock, and says what the user supplies.
            let stub = text_of(&files, &mac_stub);
            for p in mac_stream(width) {
                let flipped = Port { direction: p.direction.flip(), ..p.clone() };
                assert!(stub.contains(&flipped.declaration()), "{what}: stub lacks `{}`", flipped.declaration());
            }
            for needle in [
                "input  wire user_clk",
                "input  wire user_rst",
                "(* black_box *)",
                "YOU SUPPLY IT",
                "no preamble/FCS",
                "No tready",
                "crosses each stream",
                board.qsfp.mac.as_str(),
            ] {
                assert!(stub.contains(needle), "{what}: MAC stub lacks {needle:?}:\n{stub}");
            }

            // No script or README names a netlist.
            for (path, text) in &files {
                for netlist in ["toe_netlist", "read_edif", "VQM_FILE", &d.toe_netlist, "TOE core netlist"] {
                    assert!(!text.contains(netlist), "{what}: {path} names {netlist:?}");
                }
            }
            let readme = text_of(&files, "README.md");
            for needle in [
                format!("Ethernet MAC wrapper** `{top}_mac.v`"),
                format!("`rtl/stub/{top}_mac.v`"),
                format!("`mac_rx_tdata` ({width} bits), `mac_rx_tkeep` ({} bits)", width / 8),
                "**no `tready`**".to_string(),
                "without preamble and FCS".to_string(),
                "ERROR: MAC wrapper not found".to_string(),
            ] {
                assert!(readme.contains(&needle), "{what}: README lacks {needle:?}");
            }
            assert!(!readme.contains("licensed TOE core"), "{what}: README asks for a licensed core");

            if let Some(Err(e)) = lint_board_top(&d, &files, &i) {
                panic!("{what}: board top lint failed:\n{e}");
            }
        }
    }
}

#[test]
fn an_open_design_builds_with_the_mac_wrapper_and_no_netlist() {
    for name in ["alveo-u50", "agilex7-i-devkit"] {
        let d = open_design(name, 2, 512);
        let board = load_board(name).unwrap();
        let i = open_inputs(&d);
        let files = render(&d, &board, &i).unwrap();
        let b = BuildDir::new(&files, &i);
        let top = &d.name;
        // The board files live in the folder of toe.netlist (toe/ by default), which names no netlist.
        let platform = platform_rel(&d, top);
        let mac = format!("{}/{top}_mac.v", Path::new(&platform).parent().unwrap().display());
        let (tool, script) = match board.vendor {
            Vendor::Amd => ("vivado", "vivado/build.tcl"),
            Vendor::Intel => ("quartus", "quartus/build.tcl"),
        };
        let w = format!("open core, {name}: {script}");
        if board.vendor == Vendor::Intel {
            b.touch("quartus/ip/reg_bridge.ip");
            b.touch("quartus/ip/eth_mac.ip");
        }
        let run = b.run(&[tool], script);
        assert_stopped(
            &run,
            &w,
            "the platform is missing",
            &format!("ERROR: platform module not found: {}", b.abs(&platform)),
        );
        b.touch(&platform);
        let run = b.run(&[tool], script);
        assert_stopped(
            &run,
            &w,
            "the MAC wrapper is missing",
            &format!("ERROR: MAC wrapper not found: {}", b.abs(&mac)),
        );
        assert!(
            run.cmds("read_verilog").next().is_none() && run.cmds("project_new").next().is_none(),
            "{w}: ran past the check"
        );
        // No netlist needed: with the platform and the MAC wrapper the whole build runs.
        b.touch(&mac);
        let run = b.run(&[tool], script);
        run.assert_completed(&w);
        let board_top = b.abs(&format!("rtl/{top}_board.v"));
        match board.vendor {
            Vendor::Amd => {
                for f in [&board_top, &b.abs(&platform), &b.abs(&mac)] {
                    run.assert_has(&w, "read_verilog", &[f]);
                }
                assert!(run.cmds("read_edif").next().is_none(), "{w}: read a netlist");
                assert_eq!(
                    run.cmds("read_verilog").count(),
                    i.rtl_files.len() + 3,
                    "{w}: RTL, board top, platform, MAC only"
                );
                run.assert_has(&w, "synth_design", &["-top", &format!("{top}_board")]);
            }
            Vendor::Intel => {
                for f in [&board_top, &b.abs(&platform), &b.abs(&mac)] {
                    run.assert_has(&w, "set_global_assignment", &["-name", "VERILOG_FILE", f]);
                }
                let files: Vec<&Vec<String>> = run
                    .cmds("set_global_assignment")
                    .filter(|r| r.iter().any(|a| a.ends_with("_FILE") && a != "SDC_FILE" && a != "IP_FILE"))
                    .collect();
                assert_eq!(files.len(), i.rtl_files.len() + 3, "{w}: RTL, board top, platform, MAC only: {files:?}");
                run.assert_has(&w, "execute_flow", &["-compile"]);
            }
        }
        // The OOC synthesis is the same as a licensed design's: the top alone.
        b.run(&["vivado"], "vivado/ooc_synth.tcl").assert_completed(&format!("{w}: vivado OOC"));
        b.run(&["quartus"], "quartus/ooc_synth.tcl").assert_completed(&format!("{w}: quartus OOC"));
    }
}

#[test]
fn an_open_design_takes_any_netlist_path() {
    // check_netlist does not apply: the open core has no netlist for the vendor to read.
    let intel = load_board("agilex7-i-devkit").unwrap();
    let mut d = open_design(&intel.name, 1, 64);
    d.toe_netlist = "boards/unused.edf".into();
    let files = render(&d, &intel, &open_inputs(&d)).unwrap();
    let build = text_of(&files, "quartus/build.tcl");
    assert!(build.contains("set supply_dir {boards}"), "{build}");
}

#[test]
fn open_plan_ports_the_board_cannot_place_are_named() {
    let d = open_design("alveo-u50", 1, 64);
    let board = load_board(&d.board).unwrap();
    let render_with = |ports: Vec<Port>| {
        let i = open_inputs(&d).with_ports(PortPlan::new(ports));
        render(&d, &board, &i).map(|_| ()).map_err(|e| e.to_string())
    };
    let base = open_ports(&d).ports().to_vec();
    let n = base.len();
    assert_eq!(render_with(base.clone()), Ok(()));

    // Each MAC port in the wrong direction.
    for p in mac_stream(64) {
        let mut ports = base.clone();
        let k = ports.iter().position(|q| q.group == Group::Mac && q.local == p.local).unwrap();
        ports[k].direction = p.direction.flip();
        let (is, must, who) = match p.direction {
            Direction::Input => ("output", "input", "the MAC drives it"),
            Direction::Output => ("input", "output", "the engine drives it"),
        };
        assert_eq!(
            render_with(ports),
            Err(format!(
                "flow inputs: `ports[{k}]`: \"mac_{}\" (Mac) is an {is}: it must be an {must} of the top ({who})",
                p.local
            ))
        );
    }
    // A MAC port of the wrong width, an unknown one, a missing one.
    let mut ports = base.clone();
    let k = ports.iter().position(|q| q.local == "rx_tkeep").unwrap();
    ports[k].width = 64;
    assert_eq!(
        render_with(ports),
        Err(format!("flow inputs: `ports[{k}]`: \"mac_rx_tkeep\" (Mac) is 64 bits wide: it must be 8 bits for design.data_width 64"))
    );
    let mut ports = base.clone();
    ports.push(Port::new(Group::Mac, "rx_tready", Direction::Output, 1));
    assert_eq!(
        render_with(ports),
        Err(format!("flow inputs: `ports[{n}]`: \"mac_rx_tready\" (Mac) is not a port of the MAC stream: its ports are mac_{{rx_tdata, rx_tkeep, rx_tlast, rx_tvalid, rx_tuser, tx_tdata, tx_tkeep, tx_tlast, tx_tvalid, tx_tready}}"))
    );
    let ports = base.iter().filter(|p| p.local != "rx_tuser").cloned().collect();
    assert_eq!(render_with(ports), Err("flow inputs: `ports`: the user logic has no `mac_rx_tuser` port".into()));

    // Register-file nets of the engine, and the licensed core's TOE ports, have no place on an open board.
    for (port, shown) in [
        (Port::new(Group::Net, "frames_in", Direction::Input, 32), "\"net_frames_in\" (Net) is none of user_clk/user_rst, a register bus port (Bus) or a MAC port (Mac)"),
        (Port::new(Group::ToeSession(0), "tx_tdata", Direction::Output, 64), "\"toe0_tx_tdata\" (ToeSession(0)) is a port of the licensed TOE core's interface, but toe.core is \"open\""),
        (Port::new(Group::ToeGlobal, "init", Direction::Output, 1), "\"toe_init\" (ToeGlobal) is a port of the licensed TOE core's interface, but toe.core is \"open\""),
    ] {
        let mut ports = base.clone();
        ports.push(port);
        let e = render_with(ports).unwrap_err();
        assert!(e.starts_with(&format!("flow inputs: `ports[{n}]`: {shown}")), "{e}");
        assert!(e.ends_with("the board top cannot place it"), "{e}");
    }
}

#[test]
fn a_licensed_plan_with_open_engine_ports_is_named() {
    let d = default_design();
    let board = load_board(&d.board).unwrap();
    let n = user_ports(&d).ports().len();
    for (port, shown) in [
        (Port::new(Group::Mac, "rx_tdata", Direction::Input, 1024), "\"mac_rx_tdata\" (Mac) is the open engine's MAC port, but toe.core is \"licensed\": the licensed core's user logic has TOE ports (ToeGlobal, ToeSession); the board top cannot place it"),
        (Port::new(Group::Net, "frames_in", Direction::Input, 32), "\"net_frames_in\" (Net) is none of user_clk/user_rst, a register bus port (Bus) or a TOE port (ToeGlobal, ToeSession): the board top cannot place it"),
    ] {
        let mut ports = user_ports(&d).ports().to_vec();
        ports.push(port);
        let i = inputs(&d, &[USER_RTL]).with_ports(PortPlan::new(ports));
        assert_eq!(render(&d, &board, &i).unwrap_err().to_string(), format!("flow inputs: `ports[{n}]`: {shown}"));
    }
}
