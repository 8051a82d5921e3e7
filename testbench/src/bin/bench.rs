//! `make bench`: simulation speed of the default datapath harness (4 sessions, 1024 bits,
//! every session sending, random tready) in the verilated model and in
//! rust-hdl's own simulator, measured in one run. Prints figures only.

use std::time::Instant;

use config::ports::Group;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use testbench::models::dp1024;
use testbench::verilated::Model;

const SIZE: u64 = 1 << 40;

fn verilated(cycles: u64, rng: &mut ChaCha8Rng) -> (f64, u64) {
    let top = dp1024::top();
    let mut m = Model::new(top.fns);
    m.set_clock(&top.planned(Group::Clock, "user_clk").name);
    let rst = top.port(&m, Group::Clock, "user_rst");
    m.set(rst, 1);
    m.cycle();
    m.set(rst, 0);
    let sessions = dp1024::SESSIONS;
    let ready: Vec<_> = (0..sessions).map(|s| top.port(&m, Group::Datapath(s), "tx_tready")).collect();
    let bytes: Vec<_> = (0..sessions).map(|s| top.port(&m, Group::Datapath(s), "tx_bytes")).collect();
    for s in 0..sessions {
        let p = |n: &str| top.port(&m, Group::Datapath(s), n);
        let (ts, ps, pat, start, pct) =
            (p("transfer_size"), p("packet_size"), p("pattern"), p("tx_start"), p("tx_percent"));
        m.set(pct, 100);
        m.set(ts, SIZE);
        m.set(ps, 8192);
        m.set(pat, 1);
        m.set(start, 1);
        m.cycle();
        m.set(start, 0);
    }
    let t = Instant::now();
    for _ in 0..cycles {
        for r in &ready {
            m.set(*r, rng.gen_bool(0.8) as u64);
        }
        m.cycle();
    }
    let secs = t.elapsed().as_secs_f64();
    let sent = bytes.iter().map(|b| m.get(*b)).sum();
    (cycles as f64 / secs, sent)
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

/// Loopback on the verilated datapath harness: session 0's TX wired to its own RX
/// in the bench loop, verification on. Returns (cycles/s, MB/s at the user clock).
fn loopback(cycles: u64, percent: u64) -> (f64, f64) {
    let mut dut = testbench::dut::Dut::new(&dp1024::top());
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
    let h_cycles = (v_cycles / 500).max(200);
    println!(
        "bench: datapath harness, {} sessions x {} bits sending, tready random (80 % high), seed {seed}",
        dp1024::SESSIONS,
        dp1024::DATA_WIDTH
    );
    let (v, v_bytes) = verilated(v_cycles, &mut ChaCha8Rng::seed_from_u64(seed));
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
