//! An AXI4-Lite master model and a protocol checker, for a verilated slave
//! with the Xilinx port names (`s_axil_awaddr`, ...) and a 32-bit address.
//!
//! The [`Master`] keeps a queue per channel: a write puts its address on AW
//! and its data on W, a read its address on AR, and each channel presents its
//! head after its own random delay, so AW may lead W, follow it or go with it,
//! and reads overlap writes. BREADY and RREADY are random too. Responses are
//! matched in order per direction (AXI4-Lite has no IDs).
//!
//! The [`Checker`] watches every channel at every bus clock edge: a valid
//! stays high with its payload unchanged until the handshake; B only answers
//! an accepted write (address and data), R only an accepted read; no response
//! takes longer than a bound (a hang).
//!
//! Drive it with the clock loop of [`crate::clocks`]: call [`Master::sample`]
//! before a bus clock edge and [`Master::drive`] after it.

use config::ports::Group;
use std::collections::VecDeque;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::verilated::{Model, Port};

/// AXI response codes.
pub const OKAY: u8 = 0;
pub const SLVERR: u8 = 2;

/// The slave's ports.
#[derive(Clone, Copy)]
pub struct Ports {
    pub awaddr: Port,
    pub awvalid: Port,
    pub awready: Port,
    pub wdata: Port,
    pub wstrb: Port,
    pub wvalid: Port,
    pub wready: Port,
    pub bresp: Port,
    pub bvalid: Port,
    pub bready: Port,
    pub araddr: Port,
    pub arvalid: Port,
    pub arready: Port,
    pub rdata: Port,
    pub rresp: Port,
    pub rvalid: Port,
    pub rready: Port,
}

/// Width of the address the master drives (`u32`): the slave's address
/// ports must be as wide, since a narrower port would silently drop the
/// upper bits the master sets (`Model::set` keeps the port's width).
pub const ADDRESS_BITS: usize = 32;

impl Ports {
    /// The slave's ports; panics when an address port is not
    /// [`ADDRESS_BITS`] wide.
    pub fn new(m: &Model) -> Self {
        let p = |n: &str| m.port(&Group::Bus.top_name(n));
        for name in ["awaddr", "araddr"] {
            let width = p(name).width;
            assert_eq!(
                width,
                ADDRESS_BITS,
                "{}: {width} bits, the master drives {ADDRESS_BITS}",
                Group::Bus.top_name(name)
            );
        }
        Ports {
            awaddr: p("awaddr"),
            awvalid: p("awvalid"),
            awready: p("awready"),
            wdata: p("wdata"),
            wstrb: p("wstrb"),
            wvalid: p("wvalid"),
            wready: p("wready"),
            bresp: p("bresp"),
            bvalid: p("bvalid"),
            bready: p("bready"),
            araddr: p("araddr"),
            arvalid: p("arvalid"),
            arready: p("arready"),
            rdata: p("rdata"),
            rresp: p("rresp"),
            rvalid: p("rvalid"),
            rready: p("rready"),
        }
    }
}

/// A finished transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The id [`Master::write`] or [`Master::read`] returned.
    pub id: u64,
    pub write: bool,
    pub addr: u32,
    /// Read data (0 for a write).
    pub data: u32,
    pub resp: u8,
    /// Bus cycles from the first valid of the request to the response handshake.
    pub cycles: u64,
}

/// Random timing of the master.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Each request waits 0..=max_delay bus cycles before its valid rises.
    pub max_delay: u32,
    /// Probability (0..=1) that BREADY / RREADY is high in a cycle.
    pub ready_probability: f64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing { max_delay: 4, ready_probability: 0.6 }
    }
}

struct Beat {
    id: u64,
    addr: u32,
    data: u32,
    strb: u8,
    delay: u32,
    since: u64,
}

#[derive(Default)]
struct Channel {
    queue: VecDeque<Beat>,
    /// Valid is high for the head.
    presenting: bool,
}

impl Channel {
    /// Counts down the head's delay; true when it may be presented.
    fn ready_to_present(&mut self) -> bool {
        match self.queue.front_mut() {
            Some(b) if b.delay == 0 => true,
            Some(b) => {
                b.delay -= 1;
                false
            }
            None => false,
        }
    }
}

/// The master model.
pub struct Master {
    p: Ports,
    rng: ChaCha8Rng,
    pub timing: Timing,
    next_id: u64,
    aw: Channel,
    w: Channel,
    ar: Channel,
    /// Writes whose B is due: (id, addr, first valid cycle).
    writes: VecDeque<(u64, u32, u64)>,
    reads: VecDeque<(u64, u32, u64)>,
    bready: bool,
    rready: bool,
    /// Handshakes at the coming edge, found by `sample`.
    fire: [bool; 5],
    cycle: u64,
    done: VecDeque<Completion>,
}

impl Master {
    pub fn new(m: &mut Model, rng: ChaCha8Rng, timing: Timing) -> Self {
        let p = Ports::new(m);
        for port in [p.awvalid, p.wvalid, p.arvalid, p.bready, p.rready, p.awaddr, p.araddr, p.wdata, p.wstrb] {
            m.set(port, 0);
        }
        Master {
            p,
            rng,
            timing,
            next_id: 0,
            aw: Channel::default(),
            w: Channel::default(),
            ar: Channel::default(),
            writes: VecDeque::new(),
            reads: VecDeque::new(),
            bready: false,
            rready: false,
            fire: [false; 5],
            cycle: 0,
            done: VecDeque::new(),
        }
    }

    fn delay(&mut self) -> u32 {
        self.rng.gen_range(0..=self.timing.max_delay)
    }

    /// Queues a write; `strb` bit i enables byte i.
    pub fn write(&mut self, addr: u32, data: u32, strb: u8) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let (d1, d2) = (self.delay(), self.delay());
        self.aw.queue.push_back(Beat { id, addr, data: 0, strb: 0, delay: d1, since: 0 });
        self.w.queue.push_back(Beat { id, addr, data, strb, delay: d2, since: 0 });
        self.writes.push_back((id, addr, u64::MAX));
        id
    }

    /// Queues a read.
    pub fn read(&mut self, addr: u32) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let d = self.delay();
        self.ar.queue.push_back(Beat { id, addr, data: 0, strb: 0, delay: d, since: 0 });
        self.reads.push_back((id, addr, u64::MAX));
        id
    }

    /// Transactions not yet answered.
    pub fn outstanding(&self) -> usize {
        self.writes.len() + self.reads.len()
    }

    /// Takes the finished transactions, in completion order.
    pub fn take_done(&mut self) -> Vec<Completion> {
        self.done.drain(..).collect()
    }

    /// Bus cycles so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// Before a bus clock edge: the handshakes that edge completes.
    pub fn sample(&mut self, m: &Model) {
        let p = self.p;
        self.fire = [
            self.aw.presenting && m.bit(p.awready),
            self.w.presenting && m.bit(p.wready),
            self.ar.presenting && m.bit(p.arready),
            self.bready && m.bit(p.bvalid),
            self.rready && m.bit(p.rvalid),
        ];
        if self.fire[3] {
            let (id, addr, since) =
                self.writes.pop_front().expect("B with no write outstanding (the checker reports it)");
            self.done.push_back(Completion {
                id,
                write: true,
                addr,
                data: 0,
                resp: m.get(p.bresp) as u8,
                cycles: self.cycle - since,
            });
        }
        if self.fire[4] {
            let (id, addr, since) =
                self.reads.pop_front().expect("R with no read outstanding (the checker reports it)");
            let data = m.get(p.rdata) as u32;
            self.done.push_back(Completion {
                id,
                write: false,
                addr,
                data,
                resp: m.get(p.rresp) as u8,
                cycles: self.cycle - since,
            });
        }
    }

    /// After a bus clock edge: new valids, payloads and readies.
    pub fn drive(&mut self, m: &mut Model) {
        self.cycle += 1;
        let p = self.p;
        let cycle = self.cycle;
        if self.fire[0] {
            self.aw.queue.pop_front();
            self.aw.presenting = false;
        }
        if self.fire[1] {
            self.w.queue.pop_front();
            self.w.presenting = false;
        }
        if self.fire[2] {
            self.ar.queue.pop_front();
            self.ar.presenting = false;
        }
        self.fire = [false; 5];
        for (ch, valid) in [(&mut self.aw, p.awvalid), (&mut self.w, p.wvalid), (&mut self.ar, p.arvalid)] {
            if !ch.presenting && ch.ready_to_present() {
                ch.presenting = true;
                if let Some(b) = ch.queue.front_mut() {
                    b.since = cycle;
                }
            }
            m.set(valid, u64::from(ch.presenting));
        }
        // The latency of a transaction counts from its first valid.
        let first = |ch: &Channel, list: &mut VecDeque<(u64, u32, u64)>| {
            if let Some(b) = ch.queue.front().filter(|_| ch.presenting) {
                if let Some(e) = list.iter_mut().find(|e| e.0 == b.id) {
                    e.2 = e.2.min(b.since);
                }
            }
        };
        first(&self.aw, &mut self.writes);
        first(&self.w, &mut self.writes);
        first(&self.ar, &mut self.reads);
        // Payloads: the head's while presenting, noise otherwise (a slave must not look at them).
        let noise = self.rng.gen::<u32>();
        let aw = self.aw.queue.front().filter(|_| self.aw.presenting).map_or(noise, |b| b.addr);
        let (wd, ws) =
            self.w.queue.front().filter(|_| self.w.presenting).map_or((noise, noise as u8), |b| (b.data, b.strb));
        let ar = self.ar.queue.front().filter(|_| self.ar.presenting).map_or(noise, |b| b.addr);
        m.set(p.awaddr, u64::from(aw));
        m.set(p.wdata, u64::from(wd));
        m.set(p.wstrb, u64::from(ws));
        m.set(p.araddr, u64::from(ar));
        let pr = self.timing.ready_probability;
        self.bready = self.rng.gen_bool(pr);
        self.rready = self.rng.gen_bool(pr);
        m.set(p.bready, u64::from(self.bready));
        m.set(p.rready, u64::from(self.rready));
    }
}

/// What one channel showed at the previous edge.
#[derive(Clone, Copy, Default)]
struct Seen {
    valid: bool,
    ready: bool,
    payload: (u64, u64),
}

/// Protocol rules of both sides, checked at every bus clock edge.
pub struct Checker {
    p: Ports,
    aresetn: Option<Port>,
    seen: [Seen; 5],
    aw_accepted: u64,
    w_accepted: u64,
    ar_accepted: u64,
    b_done: u64,
    r_done: u64,
    /// Cycles the oldest unanswered request has waited.
    waiting: u64,
    /// Largest wait allowed before the slave counts as hung.
    pub hang_limit: u64,
    cycle: u64,
}

impl Checker {
    /// A checker of `m`'s slave; while `s_axil_aresetn` (if the model has
    /// it) is low, everything in flight is forgotten, as the reset drops it.
    pub fn new(m: &Model, hang_limit: u64) -> Self {
        Checker { aresetn: m.try_port(&Group::Bus.top_name("aresetn")), ..Checker::new_with(Ports::new(m), hang_limit) }
    }

    /// Forgets everything in flight: call when the bus reset is asserted.
    pub fn reset(&mut self) {
        *self = Checker { aresetn: self.aresetn, ..Checker::new_with(self.p, self.hang_limit) };
    }

    fn new_with(p: Ports, hang_limit: u64) -> Self {
        Checker {
            p,
            aresetn: None,
            seen: [Seen::default(); 5],
            aw_accepted: 0,
            w_accepted: 0,
            ar_accepted: 0,
            b_done: 0,
            r_done: 0,
            waiting: 0,
            hang_limit,
            cycle: 0,
        }
    }

    /// Before a bus clock edge: checks what the edge will sample. Panics with
    /// the rule broken.
    pub fn sample(&mut self, m: &Model) {
        if self.aresetn.is_some_and(|r| !m.bit(r)) {
            self.reset();
            return;
        }
        self.cycle += 1;
        let p = self.p;
        let now = [
            (p.awvalid, p.awready, p.awaddr, p.awaddr, "AW"),
            (p.wvalid, p.wready, p.wdata, p.wstrb, "W"),
            (p.arvalid, p.arready, p.araddr, p.araddr, "AR"),
            (p.bvalid, p.bready, p.bresp, p.bresp, "B"),
            (p.rvalid, p.rready, p.rdata, p.rresp, "R"),
        ];
        for (i, (valid, ready, pa, pb, name)) in now.into_iter().enumerate() {
            let s = Seen { valid: m.bit(valid), ready: m.bit(ready), payload: (m.get(pa), m.get(pb)) };
            let before = self.seen[i];
            if before.valid && !before.ready {
                assert!(s.valid, "cycle {}: {name}VALID fell before its handshake", self.cycle);
                assert_eq!(
                    s.payload, before.payload,
                    "cycle {}: {name} payload changed while waiting for READY",
                    self.cycle
                );
            }
            self.seen[i] = s;
        }
        let fires = |i: usize| self.seen[i].valid && self.seen[i].ready;
        let (aw, w, ar, b, r) = (fires(0), fires(1), fires(2), fires(3), fires(4));
        if self.seen[3].valid {
            let writes = self.aw_accepted.min(self.w_accepted);
            assert!(writes > self.b_done, "cycle {}: BVALID with no accepted write unanswered", self.cycle);
        }
        if self.seen[4].valid {
            assert!(self.ar_accepted > self.r_done, "cycle {}: RVALID with no accepted read unanswered", self.cycle);
        }
        let r_resp = self.seen[4].payload.1;
        let b_resp = self.seen[3].payload.1;
        assert!(!self.seen[3].valid || b_resp == u64::from(OKAY) || b_resp == u64::from(SLVERR), "BRESP {b_resp}");
        assert!(!self.seen[4].valid || r_resp == u64::from(OKAY) || r_resp == u64::from(SLVERR), "RRESP {r_resp}");
        self.aw_accepted += u64::from(aw);
        self.w_accepted += u64::from(w);
        self.ar_accepted += u64::from(ar);
        self.b_done += u64::from(b);
        self.r_done += u64::from(r);
        let pending = self.aw_accepted.min(self.w_accepted) > self.b_done || self.ar_accepted > self.r_done;
        let progress = b || r;
        self.waiting = if pending && !progress { self.waiting + 1 } else { 0 };
        assert!(
            self.waiting <= self.hang_limit,
            "cycle {}: no response for {} bus cycles (hang)",
            self.cycle,
            self.waiting
        );
    }

    /// Transactions answered: (writes, reads).
    pub fn answered(&self) -> (u64, u64) {
        (self.b_done, self.r_done)
    }
}
