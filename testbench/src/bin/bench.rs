//! `make bench`: simulation speed of the default top (4 sessions, 1024 bits,
//! every session sending, random tready) in the verilated model and in
//! rust-hdl's own simulator, measured in one run. Prints figures only.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;
use testbench::models::top1024;
use testbench::verilated::Model;

const SIZE: u64 = 1 << 40;

fn verilated(cycles: u64, rng: &mut ChaCha8Rng) -> (f64, u64) {
    let mut m = Model::new(&top1024::FNS);
    m.set_clock("user_clk");
    let rst = m.port("user_rst");
    m.set(rst, 1);
    m.cycle();
    m.set(rst, 0);
    let sessions = top1024::SESSIONS;
    let ready: Vec<_> = (0..sessions).map(|s| m.port(&format!("s{s}_tx_tready"))).collect();
    let bytes: Vec<_> = (0..sessions).map(|s| m.port(&format!("s{s}_tx_bytes"))).collect();
    for s in 0..sessions {
        let p = |n: &str| m.port(&format!("s{s}_{n}"));
        let (ts, ps, pat, start, pct) = (p("transfer_size"), p("packet_size"), p("pattern"), p("tx_start"), p("tx_percent"));
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
    let mut sessions: Vec<hdl::session::Session<1024, 128>> = (0..top1024::SESSIONS).map(|_| hdl::session::Session::new()).collect();
    let clock = |s: &mut hdl::session::Session<1024, 128>, level: bool| s.clock.next = Clock { clk: level };
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

fn main() {
    let seed: u64 = std::env::var("TB_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let v_cycles: u64 = std::env::var("BENCH_CYCLES").ok().and_then(|s| s.parse().ok()).unwrap_or(2_000_000);
    let h_cycles = (v_cycles / 500).max(200);
    println!("bench: default top, {} sessions x {} bits sending, tready random (80 % high), seed {seed}", top1024::SESSIONS, top1024::DATA_WIDTH);
    let (v, v_bytes) = verilated(v_cycles, &mut ChaCha8Rng::seed_from_u64(seed));
    let (h, h_bytes) = rust_hdl_sim(h_cycles, &mut ChaCha8Rng::seed_from_u64(seed));
    println!("verilated model : {v:>12.0} cycles/s over {v_cycles} cycles ({v_bytes} bytes sent)");
    println!("rust-hdl sim    : {h:>12.0} cycles/s over {h_cycles} cycles ({h_bytes} bytes sent)");
    println!("ratio           : {:>12.1} x (verilated / rust-hdl)", v / h);
}
