//! `make bench`: simulation speed, printed as figures, never asserted on.
//!
//! 1. The cycle rates of the models people wait for (issue 27), in one run,
//!    beside a yardstick-shaped model of the same datapaths:
//!    - the yardstick-shaped model: four of `gen::yardstick`'s loopback
//!      wrappers (one session datapath each, TX looped into RX through a
//!      register inside the Verilog, inputs registered), built here at run
//!      time with the product models' own Verilator recipe and driven by
//!      toggling the clock, as the yardstick's own C++ driver does;
//!    - `dp1024`, the testbench's 4-session datapath harness, idle and with
//!      every session sending into its own receiver through a one-beat link
//!      register kept in Rust (verified);
//!    - `top1024`, the product top, idle (both clocks toggling), and on
//!      two boards through the TOE/link model with all four sessions full
//!      duplex (the rig of the demo and the soak): its figure is model cycles,
//!      the rig's cycles times its two boards;
//!    - the top's register file alone (the testbench's `regfile` model of
//!      the default design), idle as the top: with `dp1024` idle, what of
//!      an idle `top1024` cycle is the datapaths, the register file and the
//!      rest (the sessions' control, the shell).
//! 2. The verilated datapath harness against rust-hdl's own simulator.
//! 3. Verified loopback throughput of session 0 at 100 % and 5 %.
//!
//! `BENCH_CYCLES` scales every run (default 2,000,000); `TB_SEED` seeds the
//! random `tready` of part 2. `BENCH_ONLY` runs the yardstick-shaped model
//! and the rows of part 1 whose model and state contain it (`dp1024 idle`,
//! `top1024 transferring`, `top1024`, ...), nothing else: for a profiler.

use std::time::Instant;

use config::ports::Group;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use testbench::boards::{default_pair, Mode, SessionTest};
use testbench::dut::Dut;
use testbench::models::{dp1024, regfile, top1024};
use testbench::verilated::{Model, Port};
use toe_model::{LinkConfig, ToeConfig};

const SIZE: u64 = 1 << 40;

/// Cycles per second of `cycles` runs of `step`.
fn rate(cycles: u64, mut step: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..cycles {
        step();
    }
    cycles as f64 / t.elapsed().as_secs_f64()
}

/// The yardstick-shaped model: `sessions` loopback wrappers side by side
/// in one top, built (or found in the cache) under the system's temporary
/// folder.
fn yardstick_shaped(sessions: usize) -> &'static testbench::verilated::ModelFns {
    let design = gen::parse_config(config::DEFAULT_TOML).expect("the default configuration");
    let y = gen::yardstick::yardstick(&design).unwrap_or_else(|e| panic!("the yardstick wrapper: {e}"));
    let top = format!("bench_yardstick_x{sessions}");
    let mut sources: Vec<verilate::Source> = y
        .files()
        .into_iter()
        .map(|f| verilate::Source { path: f.path.clone().into(), contents: f.contents.clone() })
        .collect();
    sources.push(verilate::Source {
        path: format!("{top}.v").into(),
        contents: design.verilog_file(&side_by_side(&top, gen::yardstick::WRAPPER_MODULE, sessions)),
    });
    let cache = std::env::temp_dir().join("toe-bench-models");
    let waivers = verilate::write_waivers(&cache).unwrap_or_else(|e| panic!("{e}"));
    verilate::load_cached(&top, &top, &sources, Some(&waivers), &top, &cache, false, &mut |m| {
        eprintln!("bench: {top}: {m}")
    })
    .unwrap_or_else(|e| panic!("building the yardstick-shaped model: {e}"))
}

/// Verilog of module `top`: `n` instances of `wrapper` (the yardstick's
/// port list, `gen::yardstick::contract`) sharing every input, each output
/// `n` times as wide, instance `i` in slice `i`.
fn side_by_side(top: &str, wrapper: &str, n: usize) -> String {
    use config::ports::Direction;
    let ports = gen::yardstick::contract();
    let mut s =
        format!("// `make bench`'s yardstick-shaped model: {n} loopback wrappers side by side.\nmodule {top} (\n");
    let decls: Vec<String> = ports
        .iter()
        .map(|p| match p.direction {
            Direction::Input => format!("    input  wire [{}:0] {}", p.width - 1, p.name),
            Direction::Output => format!("    output wire [{}:0] {}", n * p.width - 1, p.name),
        })
        .collect();
    s.push_str(&decls.join(",\n"));
    s.push_str("\n);\n");
    for i in 0..n {
        let conns: Vec<String> = ports
            .iter()
            .map(|p| match p.direction {
                Direction::Input => format!("        .{0}({0})", p.name),
                Direction::Output => format!("        .{0}({0}[{1}:{2}])", p.name, (i + 1) * p.width - 1, i * p.width),
            })
            .collect();
        s.push_str(&format!("    {wrapper} u_session{i} (\n{}\n    );\n", conns.join(",\n")));
    }
    s.push_str("endmodule\n");
    s
}

/// The yardstick-shaped model transferring: reset, `en` raised, every
/// session at 100 %. Checks that every session moved beats without error.
fn yardstick_transferring(cycles: u64) -> f64 {
    let sessions = dp1024::SESSIONS;
    let mut m = Model::new(yardstick_shaped(sessions));
    m.set_clock("clk");
    let (rst, en, pct) = (m.port("rst"), m.port("en"), m.port("pct"));
    m.set(pct, 100);
    m.set(rst, 1);
    for _ in 0..4 {
        m.cycle();
    }
    m.set(rst, 0);
    m.set(en, 1);
    let r = rate(cycles, || m.cycle());
    let (err, rx) = (m.port("err"), m.port("rx_beats"));
    let mut beats = vec![0u32; rx.words];
    m.get_wide(rx, &mut beats);
    assert_eq!(m.get(err), 0, "the yardstick-shaped model flagged an error");
    for s in 0..sessions {
        let lo = 48 * s;
        let word = |b: usize| u64::from(beats[b / 32] >> (b % 32) & 1);
        let count: u64 = (0..48).map(|b| word(lo + b) << b).sum();
        assert!(count > cycles / 2, "session {s} of the yardstick-shaped model moved {count} beats");
    }
    r
}

/// The link register of one session's loop: a beat taken from TX, offered to RX.
struct Link {
    valid: bool,
    data: Vec<u32>,
    keep: Vec<u32>,
    last: u64,
}

/// `dp1024` out of reset, every session at 100 % both ways with the
/// transfer's sizes, pattern and verification set (`Dut::new`,
/// `Dut::start`); with `transfer`, every session started sending and
/// receiving. Returns it and its clock.
fn harness(transfer: bool) -> (Dut, Port) {
    let top = dp1024::top();
    let mut dut = Dut::new(&top);
    for s in 0..dut.sessions.len() {
        dut.start(s, SIZE, 8192, true, true, transfer, transfer);
    }
    let clk = top.port(&dut.model, Group::Clock, "user_clk");
    (dut, clk)
}

/// `dp1024` idle: only the clock toggles.
fn harness_idle(cycles: u64) -> f64 {
    let (mut dut, _) = harness(false);
    rate(cycles, || dut.model.cycle())
}

/// `dp1024` transferring: each session's TX into its own RX through the
/// link register: the rising edge, the link's new beat driven, the
/// falling edge (`Model::fall`, which leaves settling the new beat to the
/// next edge). Checks every session received without error.
fn harness_transferring(cycles: u64) -> (f64, u64) {
    let (mut dut, clk) = harness(true);
    let (m, ports) = (&mut dut.model, &dut.sessions);
    let mut links: Vec<Link> = ports
        .iter()
        .map(|p| Link { valid: false, data: vec![0; p.rx_tdata.words], keep: vec![0; p.rx_tkeep.words], last: 0 })
        .collect();
    let mut moves = vec![(false, false); ports.len()];
    let r = rate(cycles, || {
        // Before the edge: whether the link has room, and whether TX gives a beat.
        for ((p, l), mv) in ports.iter().zip(links.iter_mut()).zip(moves.iter_mut()) {
            let room = !l.valid || m.bit(p.rx_tready);
            m.set(p.tx_tready, u64::from(room));
            let gives = room && m.bit(p.tx_tvalid);
            if gives {
                m.get_wide(p.tx_tdata, &mut l.data);
                m.get_wide(p.tx_tkeep, &mut l.keep);
                l.last = m.get(p.tx_tlast);
            }
            *mv = (room, gives);
        }
        m.set(clk, 1);
        m.eval();
        // After it: the link holds the beat TX gave, or stays as it was.
        for ((p, l), &(room, gives)) in ports.iter().zip(links.iter_mut()).zip(moves.iter()) {
            if room {
                l.valid = gives;
                m.set(p.rx_tvalid, u64::from(gives));
                if gives {
                    m.set_wide(p.rx_tdata, &l.data);
                    m.set_wide(p.rx_tkeep, &l.keep);
                    m.set(p.rx_tlast, l.last);
                }
            }
        }
        m.fall(clk);
    });
    let mut bytes = 0;
    for (s, p) in ports.iter().enumerate() {
        assert_eq!(m.get(p.rx_error), 0, "dp1024 session {s}: the verifier flagged an error");
        let rx = m.get(p.rx_bytes);
        assert!(rx > 64 * cycles, "dp1024 session {s} received only {rx} bytes");
        bytes += rx;
    }
    (r, bytes)
}

/// `top1024` idle: out of reset, both clocks toggling together.
fn top_idle(cycles: u64) -> f64 {
    two_clocks_idle(Model::new(top1024::top().fns), cycles)
}

/// The default design's register file alone (the testbench's `regfile`
/// model, the same RTL as the top's), idle as [`top_idle`]: the share of a
/// `top1024` cycle the register file takes.
fn regfile_idle(cycles: u64) -> f64 {
    two_clocks_idle(Model::new(&regfile::FNS), cycles)
}

/// A model with the top's clock and reset ports (`user_clk`, `user_rst`,
/// `s_axil_aclk`, `s_axil_aresetn`), out of reset, every other input
/// left at 0: its cycles per second with both clocks toggling together.
fn two_clocks_idle(mut m: Model, cycles: u64) -> f64 {
    let uclk = m.port(&Group::Clock.top_name("user_clk"));
    let aclk = m.port(&Group::Bus.top_name("aclk"));
    let rst = m.port(&Group::Clock.top_name("user_rst"));
    let aresetn = m.port(&Group::Bus.top_name("aresetn"));
    // Both clocks rise in one eval and fall as the rig's clocks do (`Model::fall`).
    let edge = |m: &mut Model| {
        m.set(uclk, 1);
        m.set(aclk, 1);
        m.eval();
        m.fall(uclk);
        m.fall(aclk);
    };
    m.set(rst, 1);
    m.set(aresetn, 0);
    for _ in 0..8 {
        edge(&mut m);
    }
    m.set(rst, 0);
    m.set(aresetn, 1);
    rate(cycles, || edge(&mut m))
}

/// Two `top1024` boards through the TOE/link model, all four sessions
/// full duplex both ways: model cycles per second (the rig's user cycles
/// times its two boards) and the bytes moved while timed.
fn top_transferring(cycles: u64) -> (f64, u64) {
    let mut sim = default_pair(1, LinkConfig::default(), ToeConfig::new(128));
    let sessions = sim.sessions();
    for b in 0..2 {
        for s in 0..sessions {
            let (fpga, target) = testbench::demo::ports(b, s);
            sim.program(b, s, &SessionTest::new(Mode::FullDuplex, SIZE, b == 1));
            sim.ports(b, s, fpga, target);
        }
    }
    for b in 0..2 {
        for s in 0..sessions {
            sim.start(b, s);
        }
    }
    // Until every session moves data.
    sim.run(20_000);
    let before: u64 = (0..sessions).map(|s| sim.result(0, s).rx_bytes).sum();
    let t = Instant::now();
    sim.run(cycles);
    let secs = t.elapsed().as_secs_f64();
    let mut moved = 0;
    for s in 0..sessions {
        let r = sim.result(0, s);
        assert!(!r.error, "board 0 session {s}: {r:?}");
        moved += r.rx_bytes;
    }
    (2.0 * cycles as f64 / secs, moved - before)
}

fn rust_hdl_sim(cycles: u64, rng: &mut ChaCha8Rng) -> (f64, u64) {
    let mut sessions: Vec<hdl::datapath::Datapath<1024, 128>> =
        (0..dp1024::SESSIONS).map(|_| hdl::datapath::Datapath::default()).collect();
    let clock = |s: &mut hdl::datapath::Datapath<1024, 128>, level: bool| s.clock.next = Clock { clk: level };
    for s in sessions.iter_mut() {
        s.connect_all();
        s.transfer_size.next = bits(SIZE);
        s.packet_size.next = bits(8192);
        s.pattern.next = true;
        s.tx_percent.next = bits(100);
        s.tx_start.next = true;
        hdl::sim::settle(s);
        hdl::sim::cycle(s, clock);
        s.tx_start.next = false;
        hdl::sim::settle(s);
    }
    let t = Instant::now();
    for _ in 0..cycles {
        for s in sessions.iter_mut() {
            s.tx_tready.next = rng.gen_bool(0.8);
            hdl::sim::cycle(s, clock);
        }
    }
    let secs = t.elapsed().as_secs_f64();
    let sent = sessions.iter().map(|s| s.tx_bytes.val().to_u64()).sum();
    (cycles as f64 / secs, sent)
}

/// The harness sending with a random `tready` (80 % high), RX idle: the
/// verilated side of the comparison with rust-hdl's simulator.
fn verilated_random_ready(cycles: u64, rng: &mut ChaCha8Rng) -> (f64, u64) {
    let (mut dut, _) = harness(true);
    let (m, ports) = (&mut dut.model, &dut.sessions);
    let r = rate(cycles, || {
        for p in ports {
            m.set(p.tx_tready, u64::from(rng.gen_bool(0.8)));
        }
        m.cycle();
    });
    (r, ports.iter().map(|p| m.get(p.tx_bytes)).sum())
}

/// Loopback on the verilated datapath harness: session 0's TX wired to its own RX
/// in the bench loop, verification on. Returns (cycles/s, MB/s at the user clock).
fn loopback(cycles: u64, percent: u64) -> (f64, f64) {
    let mut dut = Dut::new(&dp1024::top());
    let pct = dut.sessions[0].tx_percent;
    dut.model.set(pct, percent);
    dut.start(0, SIZE, 8192, true, true, true, true);
    let (tv, tr, rr, rx_bytes) =
        (dut.sessions[0].tx_tvalid, dut.sessions[0].tx_tready, dut.sessions[0].rx_tready, dut.sessions[0].rx_bytes);
    let before = dut.model.get(rx_bytes);
    let t = Instant::now();
    for _ in 0..cycles {
        let valid = dut.model.bit(tv);
        let beat = dut.tx_beat(0);
        dut.drive_rx(0, valid.then_some(&beat));
        dut.model.eval();
        let ready = dut.model.bit(rr);
        dut.model.set(tr, ready as u64);
        dut.model.cycle();
    }
    let secs = t.elapsed().as_secs_f64();
    let bytes = dut.model.get(rx_bytes) - before;
    let design = config::parse(config::DEFAULT_TOML).expect("default config");
    (cycles as f64 / secs, bytes as f64 * design.user_clock_mhz / cycles as f64)
}

fn main() {
    let seed: u64 = std::env::var("TB_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let v_cycles: u64 = std::env::var("BENCH_CYCLES").ok().and_then(|s| s.parse().ok()).unwrap_or(2_000_000);

    println!(
        "bench: the models' cycle rates, {} sessions x {} bits, beside the yardstick-shaped model (issue 27)",
        dp1024::SESSIONS,
        dp1024::DATA_WIDTH
    );
    let ys = yardstick_transferring(v_cycles);
    let only = std::env::var("BENCH_ONLY").unwrap_or_default();
    let wanted = |what: &str| what.contains(only.as_str());
    let row = |what: &str, state: &str, r: f64, extra: &str| {
        println!("  {what:<44} {state:<13} {r:>12.0} cycles/s {:>6.2} x{extra}", r / ys);
    };
    row("yardstick-shaped: 4 loopback wrappers", "transferring", ys, "");
    if wanted("dp1024 idle") {
        row("dp1024: datapath harness", "idle", harness_idle(v_cycles), "");
    }
    if wanted("dp1024 transferring") {
        let (r, bytes) = harness_transferring(v_cycles / 2);
        row("dp1024: TX looped to RX (link in Rust)", "transferring", r, &format!("  ({bytes} bytes verified)"));
    }
    if wanted("top1024 idle") {
        row("top1024: product top", "idle", top_idle(v_cycles / 2), "");
    }
    if wanted("regfile idle") {
        row("regfile: the top's register file alone", "idle", regfile_idle(v_cycles / 2), "");
    }
    if wanted("top1024 transferring") {
        let (r, bytes) = top_transferring(v_cycles / 8);
        row(
            "top1024: two boards, TOE model, 4 x duplex",
            "transferring",
            r,
            &format!("  per board ({bytes} bytes into board 0)"),
        );
    }
    if !only.is_empty() {
        return;
    }

    let h_cycles = (v_cycles / 5_000).max(100);
    println!("bench: datapath harness, {} sessions sending, tready random (80 % high), seed {seed}", dp1024::SESSIONS);
    let (v, v_bytes) = verilated_random_ready(v_cycles, &mut ChaCha8Rng::seed_from_u64(seed));
    let (h, h_bytes) = rust_hdl_sim(h_cycles, &mut ChaCha8Rng::seed_from_u64(seed));
    println!("verilated model : {v:>12.0} cycles/s over {v_cycles} cycles ({v_bytes} bytes sent)");
    println!("rust-hdl sim    : {h:>12.0} cycles/s over {h_cycles} cycles ({h_bytes} bytes sent)");
    println!("ratio           : {:>12.1} x (verilated / rust-hdl)", v / h);
    let l_cycles = v_cycles / 4;
    for percent in [100, 5] {
        let (rate, mbps) = loopback(l_cycles, percent);
        println!("loopback {percent:>3} %  : {rate:>12.0} cycles/s, {mbps:>9.1} MB/s at 250 MHz over {l_cycles} cycles (verified)");
    }
}
