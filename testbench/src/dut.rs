//! A datapath harness (`dp<W>`, one per data width in
//! `models::DATAPATH_MODELS`: the sessions without their controller,
//! `gen::rtl::datapath_harness`) with each session's ports resolved by
//! name once, and the helpers every session test needs.

use config::ports::Group;

use crate::verilated::{Model, Port, Top};

/// The ports of session `s` (`Group::Datapath(s)` of the harness's plan).
pub struct SessionPorts {
    pub tx_start: Port,
    pub tx_abort: Port,
    pub rx_start: Port,
    pub rx_end: Port,
    pub rx_clear: Port,
    pub transfer_size: Port,
    pub packet_size: Port,
    pub pattern: Port,
    pub verify: Port,
    pub tx_percent: Port,
    pub rx_percent: Port,
    pub tx_busy: Port,
    pub tx_done: Port,
    pub tx_bytes: Port,
    pub tx_tdata: Port,
    pub tx_tkeep: Port,
    pub tx_tlast: Port,
    pub tx_tvalid: Port,
    pub tx_tready: Port,
    pub rx_tdata: Port,
    pub rx_tkeep: Port,
    pub rx_tlast: Port,
    pub rx_tvalid: Port,
    pub rx_tready: Port,
    pub rx_bytes: Port,
    pub rx_packets: Port,
    pub rx_complete: Port,
    pub rx_error: Port,
    pub rx_err_count: Port,
    pub rx_err_valid: Port,
    pub rx_err_cause: Port,
    pub rx_err_offset: Port,
    pub rx_err_expected: Port,
    pub rx_err_received: Port,
}

impl SessionPorts {
    pub fn resolve(top: &Top, model: &Model, s: usize) -> Self {
        let p = |n: &str| top.port(model, Group::Datapath(s), n);
        SessionPorts {
            tx_start: p("tx_start"),
            tx_abort: p("tx_abort"),
            rx_start: p("rx_start"),
            rx_end: p("rx_end"),
            rx_clear: p("rx_clear"),
            transfer_size: p("transfer_size"),
            packet_size: p("packet_size"),
            pattern: p("pattern"),
            verify: p("verify"),
            tx_percent: p("tx_percent"),
            rx_percent: p("rx_percent"),
            tx_busy: p("tx_busy"),
            tx_done: p("tx_done"),
            tx_bytes: p("tx_bytes"),
            tx_tdata: p("tx_tdata"),
            tx_tkeep: p("tx_tkeep"),
            tx_tlast: p("tx_tlast"),
            tx_tvalid: p("tx_tvalid"),
            tx_tready: p("tx_tready"),
            rx_tdata: p("rx_tdata"),
            rx_tkeep: p("rx_tkeep"),
            rx_tlast: p("rx_tlast"),
            rx_tvalid: p("rx_tvalid"),
            rx_tready: p("rx_tready"),
            rx_bytes: p("rx_bytes"),
            rx_packets: p("rx_packets"),
            rx_complete: p("rx_complete"),
            rx_error: p("rx_error"),
            rx_err_count: p("rx_err_count"),
            rx_err_valid: p("rx_err_valid"),
            rx_err_cause: p("rx_err_cause"),
            rx_err_offset: p("rx_err_offset"),
            rx_err_expected: p("rx_err_expected"),
            rx_err_received: p("rx_err_received"),
        }
    }
}

/// One beat as it crosses a stream: data and keep as 32-bit words, LSB first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beat {
    pub data: Vec<u32>,
    pub keep: Vec<u32>,
    pub last: bool,
}

impl Beat {
    pub fn byte(&self, i: usize) -> u8 {
        (self.data[i / 4] >> (8 * (i % 4))) as u8
    }

    pub fn set_byte(&mut self, i: usize, v: u8) {
        let shift = 8 * (i % 4);
        self.data[i / 4] = (self.data[i / 4] & !(0xff << shift)) | (u32::from(v) << shift);
    }

    pub fn kept(&self, i: usize) -> bool {
        self.keep[i / 32] >> (i % 32) & 1 == 1
    }

    pub fn set_kept(&mut self, i: usize, on: bool) {
        if on {
            self.keep[i / 32] |= 1 << (i % 32);
        } else {
            self.keep[i / 32] &= !(1 << (i % 32));
        }
    }

    /// Bytes kept (the keep code is contiguous from bit 0).
    pub fn count(&self) -> usize {
        self.keep.iter().map(|w| w.count_ones() as usize).sum()
    }
}

/// A verilated product top, reset, every session at 100 % both ways.
pub struct Dut {
    pub model: Model,
    pub sessions: Vec<SessionPorts>,
    /// Bytes per beat (W/8).
    pub beat_bytes: usize,
}

impl Dut {
    /// A datapath harness `top` (`models::dp64::top()`): sessions and width
    /// from its port plan.
    pub fn new(top: &Top) -> Self {
        let mut model = Model::new(top.fns);
        model.set_clock(&top.planned(Group::Clock, "user_clk").name);
        let width = top.planned(Group::Datapath(0), "tx_tdata").width;
        let ports: Vec<SessionPorts> = (0..top.sessions()).map(|s| SessionPorts::resolve(top, &model, s)).collect();
        for p in &ports {
            model.set(p.tx_percent, 100);
            model.set(p.rx_percent, 100);
        }
        let mut dut = Dut { model, sessions: ports, beat_bytes: width / 8 };
        dut.reset();
        dut
    }

    /// Two cycles of the user reset: every block idle, rate limiter buckets full.
    pub fn reset(&mut self) {
        let rst = self.model.port(&Group::Clock.top_name("user_rst"));
        self.model.set(rst, 1);
        self.model.cycle();
        self.model.cycle();
        self.model.set(rst, 0);
        self.model.eval();
    }

    pub fn words(&self) -> usize {
        self.beat_bytes / 4
    }

    pub fn keep_words(&self) -> usize {
        self.beat_bytes.div_ceil(32)
    }

    /// Drives `port` high for one cycle.
    pub fn pulse(&mut self, port: Port) {
        self.model.set(port, 1);
        self.model.eval();
        self.model.cycle();
        self.model.set(port, 0);
        self.model.eval();
    }

    /// Sets the sizes and starts session `s`'s generator (`tx`) and/or verifier (`rx`).
    pub fn start(&mut self, s: usize, size: u64, packet_size: u64, pattern: bool, verify: bool, tx: bool, rx: bool) {
        let p = &self.sessions[s];
        let (ts, ps, pat, ver, txs, rxs) =
            (p.transfer_size, p.packet_size, p.pattern, p.verify, p.tx_start, p.rx_start);
        self.model.set(ts, size);
        self.model.set(ps, packet_size);
        self.model.set(pat, pattern as u64);
        self.model.set(ver, verify as u64);
        if tx {
            self.model.set(txs, 1);
        }
        if rx {
            self.model.set(rxs, 1);
        }
        self.model.eval();
        self.model.cycle();
        self.model.set(txs, 0);
        self.model.set(rxs, 0);
        self.model.eval();
    }

    /// The beat presented on session `s`'s TX stream now.
    pub fn tx_beat(&self, s: usize) -> Beat {
        let p = &self.sessions[s];
        let mut data = vec![0; self.words()];
        let mut keep = vec![0; self.keep_words()];
        self.model.get_wide(p.tx_tdata, &mut data);
        self.model.get_wide(p.tx_tkeep, &mut keep);
        Beat { data, keep, last: self.model.bit(p.tx_tlast) }
    }

    /// Presents `beat` (or nothing) on session `s`'s RX stream.
    pub fn drive_rx(&mut self, s: usize, beat: Option<&Beat>) {
        let p = &self.sessions[s];
        let (d, k, l, v) = (p.rx_tdata, p.rx_tkeep, p.rx_tlast, p.rx_tvalid);
        match beat {
            Some(b) => {
                self.model.set_wide(d, &b.data);
                self.model.set_wide(k, &b.keep);
                self.model.set(l, b.last as u64);
                self.model.set(v, 1);
            }
            None => self.model.set(v, 0),
        }
    }

    /// Collects session `s`'s whole TX transfer, `ready(cycle)` choosing tready.
    pub fn collect_tx(&mut self, s: usize, beats: u64, mut ready: impl FnMut() -> bool) -> Vec<Beat> {
        let (valid, tready) = (self.sessions[s].tx_tvalid, self.sessions[s].tx_tready);
        let mut out = Vec::new();
        let mut guard = 0u64;
        while (out.len() as u64) < beats {
            guard += 1;
            assert!(guard < 100 * beats + 1000, "TX stalled after {} of {beats} beats", out.len());
            let r = ready();
            self.model.set(tready, r as u64);
            self.model.eval();
            if r && self.model.bit(valid) {
                out.push(self.tx_beat(s));
            }
            self.model.cycle();
        }
        self.model.set(tready, 0);
        self.model.eval();
        out
    }

    /// Plays `beats` into session `s`'s RX stream; `present()` decides, while
    /// no beat is shown, whether to show the next one this cycle; a shown beat
    /// is held until accepted.
    pub fn play_rx(&mut self, s: usize, beats: &[Beat], mut present: impl FnMut() -> bool) {
        let ready = self.sessions[s].rx_tready;
        let mut next = 0;
        let mut guard = 0u64;
        let mut shown = false;
        while next < beats.len() {
            guard += 1;
            assert!(guard < 1000 * beats.len() as u64 + 1000, "RX stalled at beat {next}");
            if !shown && present() {
                shown = true;
            }
            self.drive_rx(s, if shown { Some(&beats[next]) } else { None });
            self.model.eval();
            let accepted = shown && self.model.bit(ready);
            self.model.cycle();
            if accepted {
                next += 1;
                shown = false;
            }
        }
        self.drive_rx(s, None);
        self.model.eval();
    }

    /// Runs `n` idle cycles.
    pub fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.model.cycle();
        }
    }
}
