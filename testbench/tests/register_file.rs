//! The register file on its own (models `regfile`: the default design, and
//! `regfile_alt`: two sessions with `toe.target_ip` moved in the map), driven
//! by the AXI4-Lite master of `testbench::axil` with random channel order and
//! delays, the register clock and the user clock at unrelated periods, and
//! checked against a register model built here from the `regmap` definition.
//! No address is written in this file: every one comes from the map.

use std::collections::HashMap;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use regmap::{Access, RegisterMap};
use testbench::axil::{Checker, Completion, Master, Timing, OKAY, SLVERR};
use testbench::clocks::TwoClocks;
use testbench::models;
use testbench::seed;
use testbench::verilated::{Model, ModelFns, Port};

/// Register clock 10.3 ns, user clock 4 ns (the example periods).
const BUS_PS: u64 = 10_300;
const USER_PS: u64 = 4_000;

fn default_design() -> config::Design {
    config::parse(config::DEFAULT_TOML, &["alveo-u50"]).unwrap()
}

/// The design and map of `regfile_alt`, as `build.rs` makes them.
fn alt_design() -> config::Design {
    let text = config::DEFAULT_TOML
        .replacen("sessions = 4", "sessions = 2", 1)
        .replacen("[60000, 60001, 60002, 60003]", "[60000, 60001]", 1)
        .replacen("[61000, 61001, 61002, 61003]", "[61000, 61001]", 1);
    config::parse(&text, &["alveo-u50"]).unwrap()
}

fn alt_map() -> RegisterMap {
    let mut map = RegisterMap::for_design(&alt_design());
    map.block_mut("toe").unwrap().register_mut("target_ip").unwrap().offset = 0x80;
    map.validate().unwrap();
    map
}

// ---------------------------------------------------------------------------
// The register model, from the map alone.

/// A field as the test sees it.
struct FieldModel {
    lsb: u32,
    mask: u32,
    access: Access,
    volatile: bool,
    /// The user port it connects to and the port bit of the field's bit 0.
    port: Option<(String, u32)>,
}

struct RegModel {
    addr: u32,
    id: String,
    reset: u32,
    fields: Vec<FieldModel>,
    /// Low half of a volatile wide value: address of its high half.
    latches: Option<u32>,
    /// High half of a volatile wide value.
    latched: bool,
    /// The cycle counter: the model cannot know its value.
    counter: bool,
    storage: u32,
    sticky: u32,
    latch: u32,
}

/// Port naming of `docs/register_file.md`, written again here so the test
/// does not take it from the code under test.
fn port_name(block: &regmap::Block, instance: usize, reg: &regmap::Register, field: &regmap::Field) -> (String, u32) {
    let group = if block.repeat.is_some() { format!("s{instance}") } else { block.name.clone() };
    let hi = block.wide_with_hi(&reg.name);
    let name = match block.wide_with_lo(&reg.name).or(hi) {
        Some(w) => w.name.clone(),
        None if reg.fields.len() > 1 || field.width == 1 => field.name.clone(),
        None => reg.name.clone(),
    };
    (format!("{group}_{name}"), if hi.is_some() { 32 } else { 0 })
}

struct Expect {
    regs: Vec<RegModel>,
    by_addr: HashMap<u32, usize>,
    /// Values the test drives on status inputs, by port.
    status: HashMap<String, u64>,
    /// Pulses each write-pulse port should have given.
    pulses: HashMap<String, u64>,
}

fn strobe_mask(strb: u8) -> u32 {
    (0..4).filter(|b| strb >> b & 1 == 1).fold(0, |m, b| m | 0xFF << (8 * b))
}

impl Expect {
    fn new(map: &RegisterMap) -> Self {
        let mut regs = Vec::new();
        for loc in map.instances() {
            let (block, instance, reg) = (loc.block, loc.instance, loc.register);
            let addr = block.address(instance, reg).unwrap();
            let volatile_hi = |w: &regmap::Wide| {
                block.register(&w.hi).is_some_and(|r| r.fields.iter().any(|f| f.volatile && f.access == Access::Ro))
            };
            let latches = block
                .wide_with_lo(&reg.name)
                .filter(|w| volatile_hi(w))
                .map(|w| block.address(instance, block.register(&w.hi).unwrap()).unwrap());
            let latched = block.wide_with_hi(&reg.name).is_some_and(volatile_hi);
            let counter = block.name == "info" && reg.name.starts_with("cycle_count");
            let fields = reg
                .fields
                .iter()
                .map(|f| FieldModel {
                    lsb: f.lsb,
                    mask: f.mask(),
                    access: f.access,
                    volatile: f.volatile,
                    port: (!f.is_constant()).then(|| port_name(block, instance, reg, f)),
                })
                .collect();
            let reset = reg.reset_for(instance);
            regs.push(RegModel {
                addr,
                id: format!("{}[{instance}].{}", block.name, reg.name),
                reset,
                fields,
                latches,
                latched,
                counter,
                storage: reset,
                sticky: reset,
                latch: if latched { reset } else { 0 },
            });
        }
        let by_addr = regs.iter().enumerate().map(|(i, r)| (r.addr, i)).collect();
        Expect { regs, by_addr, status: HashMap::new(), pulses: HashMap::new() }
    }

    fn reg(&self, addr: u32) -> Option<&RegModel> {
        self.by_addr.get(&addr).map(|&i| &self.regs[i])
    }

    /// What a read returns, `None` for SLVERR, with the bits the model can
    /// predict; updates the latch a low-half read loads.
    fn read(&mut self, addr: u32) -> Option<(u32, u32)> {
        let i = *self.by_addr.get(&addr)?;
        let mut value = 0;
        let mut care = u32::MAX;
        let mut load = None;
        {
            let r = &self.regs[i];
            for f in &r.fields {
                let bits = match f.access {
                    Access::Rw => r.storage & f.mask,
                    Access::Wo | Access::WPulse => 0,
                    Access::W1c => r.sticky & f.mask,
                    Access::Ro if !f.volatile => r.reset & f.mask,
                    Access::Ro if r.counter => {
                        care &= !f.mask;
                        0
                    }
                    Access::Ro if r.latched => r.latch & f.mask,
                    Access::Ro => {
                        let (port, port_lsb) = f.port.clone().unwrap();
                        let v = self.status.get(&port).copied().unwrap_or(0);
                        ((v >> port_lsb) as u32) << f.lsb & f.mask
                    }
                };
                value |= bits;
            }
            if let Some(hi) = r.latches {
                let h = &self.regs[self.by_addr[&hi]];
                let mut latch = 0;
                for f in h.fields.iter().filter(|f| f.access == Access::Ro && f.volatile) {
                    let (port, port_lsb) = f.port.clone().unwrap();
                    let v = self.status.get(&port).copied().unwrap_or(0);
                    latch |= ((v >> port_lsb) as u32) << f.lsb & f.mask;
                }
                load = Some((self.by_addr[&hi], latch));
            }
        }
        if let Some((h, latch)) = load {
            self.regs[h].latch = latch;
        }
        Some((value, care))
    }

    /// Applies a write; false for an unmapped address (SLVERR).
    fn write(&mut self, addr: u32, data: u32, strb: u8) -> bool {
        let Some(&i) = self.by_addr.get(&addr) else { return false };
        let bytes = strobe_mask(strb);
        let r = &mut self.regs[i];
        for f in &r.fields {
            let m = f.mask & bytes;
            match f.access {
                Access::Rw | Access::Wo => r.storage = (r.storage & !m) | (data & m),
                Access::W1c => r.sticky &= !(data & m),
                Access::WPulse if data & m != 0 => {
                    *self.pulses.entry(f.port.clone().unwrap().0).or_default() += 1;
                }
                _ => {}
            }
        }
        true
    }

    /// The user logic set sticky bits through `<port>_set`.
    fn set_sticky(&mut self, port: &str) {
        for r in &mut self.regs {
            for f in &r.fields {
                if f.access == Access::W1c && f.port.as_ref().is_some_and(|p| p.0 == port) {
                    r.sticky |= f.mask;
                }
            }
        }
    }

    /// The value of an output port of kind value/sticky as the model has it.
    fn output(&self, port: &str) -> Option<u64> {
        let mut v = 0u64;
        let mut found = false;
        for r in &self.regs {
            for f in &r.fields {
                if let Some((p, port_lsb)) = &f.port {
                    if p == port {
                        let word = match f.access {
                            Access::Rw | Access::Wo => r.storage,
                            Access::W1c => r.sticky,
                            _ => return None,
                        };
                        v |= u64::from((word & f.mask) >> f.lsb) << port_lsb;
                        found = true;
                    }
                }
            }
        }
        found.then_some(v)
    }
}

// ---------------------------------------------------------------------------
// The bench: the verilated block, the two clocks, the master, the user side.

struct UserPort {
    port: Port,
    width: u32,
    output: bool,
}

/// Called after every user clock edge with the user cycle number.
type UserHook = Box<dyn FnMut(&mut Model, u64)>;

struct Bench {
    m: Model,
    clocks: TwoClocks,
    master: Master,
    checker: Checker,
    map: RegisterMap,
    expect: Expect,
    ports: HashMap<String, UserPort>,
    /// Write-pulse outputs: name, port, high at the last user edge.
    pulse_ports: Vec<(String, Port, bool)>,
    pulses: HashMap<String, u64>,
    /// Snapshots of every value output at each pulse: (pulse, user cycle, values).
    pulse_log: Vec<(String, u64, HashMap<String, u64>)>,
    /// Set inputs raised for one user cycle.
    set_high: Vec<Port>,
    user_cycles: u64,
    /// Called after every user clock edge.
    user_hook: Option<UserHook>,
    rng: ChaCha8Rng,
}

impl Bench {
    fn new(fns: &'static ModelFns, map: RegisterMap, what: &str, bus_ps: u64, user_ps: u64, timing: Timing) -> Self {
        let mut rng = seed::rng(what);
        let mut m = Model::new(fns);
        let phase = rng.gen_range(0..user_ps);
        eprintln!("{what}: bus clock {bus_ps} ps, user clock {user_ps} ps, phase {phase} ps");
        let clocks = TwoClocks::new(&mut m, "s_axil_aclk", bus_ps, "user_clk", user_ps, phase);
        let master = Master::new(&mut m, ChaCha8Rng::seed_from_u64(rng.gen()), timing);
        let checker = Checker::new(&m, 400);
        let layout = hdl::register_file::Layout::new(&map).unwrap();
        let mut ports = HashMap::new();
        let mut pulse_ports = Vec::new();
        for p in &layout.ports {
            let port = m.port(&p.name);
            assert_eq!(port.width as u32, p.width, "port {} width", p.name);
            if p.kind == hdl::register_file::PortKind::Pulse {
                pulse_ports.push((p.name.clone(), port, false));
            }
            ports.insert(p.name.clone(), UserPort { port, width: p.width, output: p.output });
        }
        let expect = Expect::new(&map);
        let mut b = Bench {
            m,
            clocks,
            master,
            checker,
            map,
            expect,
            ports,
            pulse_ports,
            pulses: HashMap::new(),
            pulse_log: Vec::new(),
            set_high: Vec::new(),
            user_cycles: 0,
            user_hook: None,
            rng,
        };
        for (name, p) in &b.ports {
            if !p.output {
                b.m.set(p.port, 0);
                b.expect.status.insert(name.clone(), 0);
            }
        }
        b.reset_both();
        b
    }

    fn p(&self, name: &str) -> Port {
        self.ports.get(name).unwrap_or_else(|| panic!("no user port {name}")).port
    }

    /// Holds both resets for a few cycles of each clock.
    fn reset_both(&mut self) {
        let (rst, arstn) = (self.m.port("user_rst"), self.m.port("s_axil_aresetn"));
        self.m.set(rst, 1);
        self.m.set(arstn, 0);
        self.m.eval();
        let (a0, u0) = self.clocks.rises();
        while self.clocks.rises().0 < a0 + 4 || self.clocks.rises().1 < u0 + 4 {
            self.step();
        }
        self.checker.reset();
        self.m.set(rst, 0);
        self.m.set(arstn, 1);
        self.m.eval();
        self.user_cycles = 0;
    }

    /// One clock event.
    fn step(&mut self) {
        let next = self.clocks.peek();
        if next.a {
            self.checker.sample(&self.m);
            self.master.sample(&self.m);
        }
        let rose = self.clocks.advance(&mut self.m);
        if rose.a {
            self.master.drive(&mut self.m);
        }
        if rose.b {
            self.user_cycles += 1;
            for p in self.set_high.drain(..) {
                self.m.set(p, 0);
            }
            let mut fired = Vec::new();
            for (name, port, was) in &mut self.pulse_ports {
                let now = self.m.bit(*port);
                assert!(!(now && *was), "{name} high for two user cycles in a row");
                if now {
                    *self.pulses.entry(name.clone()).or_default() += 1;
                    fired.push(name.clone());
                }
                *was = now;
            }
            for name in fired {
                let values = self
                    .ports
                    .iter()
                    .filter(|(_, p)| p.output && p.width <= 64)
                    .map(|(n, p)| (n.clone(), self.m.get(p.port)))
                    .collect();
                self.pulse_log.push((name, self.user_cycles, values));
            }
            if let Some(hook) = self.user_hook.as_mut() {
                hook(&mut self.m, self.user_cycles);
            }
        }
        if rose.any() {
            self.m.eval();
        }
    }

    fn run_until_idle(&mut self) -> Vec<Completion> {
        let mut done = Vec::new();
        let mut events = 0u64;
        while self.master.outstanding() > 0 {
            self.step();
            done.extend(self.master.take_done());
            events += 1;
            assert!(events < 10_000_000, "transactions did not finish");
        }
        done.extend(self.master.take_done());
        done
    }

    /// A few cycles of both clocks with the bus idle.
    fn idle(&mut self, cycles: u64) {
        let (a0, u0) = self.clocks.rises();
        while self.clocks.rises().0 < a0 + cycles || self.clocks.rises().1 < u0 + cycles {
            self.step();
        }
    }

    fn read(&mut self, addr: u32) -> (u32, u8) {
        self.master.read(addr);
        let c = self.run_until_idle();
        assert_eq!(c.len(), 1);
        (c[0].data, c[0].resp)
    }

    fn write(&mut self, addr: u32, data: u32, strb: u8) -> u8 {
        self.master.write(addr, data, strb);
        let c = self.run_until_idle();
        assert_eq!(c.len(), 1);
        c[0].resp
    }

    /// Reads `addr` and compares with the model.
    fn check_read(&mut self, addr: u32) {
        let (data, resp) = self.read(addr);
        match self.expect.read(addr) {
            None => assert_eq!(resp, SLVERR, "read {addr:#x}: unmapped, wants SLVERR"),
            Some((want, care)) => {
                let id = &self.expect.reg(addr).unwrap().id;
                assert_eq!(resp, OKAY, "read {addr:#x} ({id})");
                assert_eq!(data & care, want & care, "read {addr:#x} ({id}): {data:#010x}, model {want:#010x}");
            }
        }
    }

    fn check_write(&mut self, addr: u32, data: u32, strb: u8) {
        let resp = self.write(addr, data, strb);
        let mapped = self.expect.write(addr, data, strb);
        assert_eq!(resp, if mapped { OKAY } else { SLVERR }, "write {addr:#x}");
    }

    /// Drives a status input (between transactions).
    fn set_status(&mut self, name: &str, value: u64) {
        let p = &self.ports[name];
        let value = if p.width >= 64 { value } else { value & ((1u64 << p.width) - 1) };
        self.m.set(p.port, value);
        self.m.eval();
        self.expect.status.insert(name.to_string(), value);
    }

    /// Raises `<name>_set` for one user cycle.
    fn pulse_set(&mut self, name: &str) {
        let p = self.p(&format!("{name}_set"));
        self.m.set(p, 1);
        self.m.eval();
        self.set_high.push(p);
        let u = self.user_cycles;
        while self.user_cycles < u + 2 {
            self.step();
        }
        self.expect.set_sticky(name);
    }

    /// Every output port of kind value/sticky equals the model.
    fn check_outputs(&self) {
        for (name, p) in &self.ports {
            if let (true, Some(want)) = (p.output, self.expect.output(name)) {
                assert_eq!(self.m.get(p.port), want, "user port {name}");
            }
        }
    }

    fn check_pulses(&self) {
        for (name, _, _) in &self.pulse_ports {
            let got = self.pulses.get(name).copied().unwrap_or(0);
            let want = self.expect.pulses.get(name).copied().unwrap_or(0);
            assert_eq!(got, want, "pulses on {name}");
        }
    }

    fn addr(&self, block: &str, instance: usize, reg: &str) -> u32 {
        let b = self.map.block(block).unwrap();
        b.address(instance, b.register(reg).unwrap()).unwrap()
    }

    fn all_addrs(&self) -> Vec<u32> {
        self.expect.regs.iter().map(|r| r.addr).collect()
    }
}

use rand::SeedableRng;

fn default_bench(what: &str) -> Bench {
    Bench::new(&models::regfile::FNS, RegisterMap::for_design(&default_design()), what, BUS_PS, USER_PS, Timing::default())
}

// ---------------------------------------------------------------------------

#[test]
fn every_register_reads_its_reset_value_and_every_output_port_shows_it() {
    let mut b = default_bench("reset values");
    b.check_outputs();
    for addr in b.all_addrs() {
        let r = b.expect.reg(addr).unwrap();
        let (want, counter, id) = (r.reset, r.counter, r.id.clone());
        let (data, resp) = b.read(addr);
        assert_eq!(resp, OKAY, "{id}");
        if counter {
            continue; // the cycle counter runs from reset: its own test
        }
        // Write-only and write-pulse bits read 0; every other bit reads its reset.
        let map_reg = b.map.instances().into_iter().find(|l| l.block.address(l.instance, l.register) == Some(addr)).unwrap().register;
        let readable = map_reg.fields.iter().filter(|f| f.access.readable()).fold(0, |m, f| m | f.mask());
        assert_eq!(data, want & readable, "{id} at {addr:#x}: {data:#010x}");
    }
    let id = b.addr("info", 0, "id");
    assert_eq!(b.read(id).0, regmap::ID_MAGIC);
}

#[test]
fn read_only_fields_ignore_writes() {
    let mut b = default_bench("read-only");
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let statuses: Vec<String> = b.ports.iter().filter(|(_, p)| !p.output).map(|(n, _)| n.clone()).filter(|n| !n.ends_with("_set")).collect();
    for s in &statuses {
        let v = rng.gen();
        b.set_status(s, v);
    }
    let ro: Vec<u32> = b
        .expect
        .regs
        .iter()
        .filter(|r| !r.counter && r.fields.iter().all(|f| f.access == Access::Ro))
        .map(|r| r.addr)
        .collect();
    assert!(ro.len() > 20, "{} read-only registers", ro.len());
    for &addr in &ro {
        b.check_read(addr);
        b.check_write(addr, rng.gen(), 0xF);
        b.check_read(addr);
    }
    b.check_outputs();
}

#[test]
fn w1c_bits_are_set_by_the_user_logic_and_cleared_only_by_writing_one() {
    let mut b = default_bench("w1c");
    for s in 0..4 {
        let status = b.addr("session", s, "status");
        let reg = b.map.find_register("status").unwrap().1.clone();
        let done = reg.field("done").unwrap().mask();
        let error = reg.field("error").unwrap().mask();
        let name = |f: &str| format!("s{s}_{f}");
        b.check_read(status);
        assert_eq!(b.read(status).0 & (done | error), 0);
        b.pulse_set(&name("done"));
        b.check_read(status);
        assert_eq!(b.read(status).0 & (done | error), done, "session {s}: done set");
        assert!(b.m.bit(b.p(&name("done"))), "sticky output s{s}_done");
        b.check_write(status, !done, 0xF); // ones everywhere but done: done stays
        b.check_read(status);
        b.pulse_set(&name("error"));
        b.check_write(status, done, 0xE); // done's byte not enabled: nothing clears
        b.check_read(status);
        assert_eq!(b.read(status).0 & (done | error), done | error);
        b.check_write(status, done, 0xF);
        b.check_read(status);
        assert_eq!(b.read(status).0 & (done | error), error, "session {s}: only done cleared");
        b.check_outputs();
        b.check_write(status, error, 0xF);
        assert_eq!(b.read(status).0 & (done | error), 0);
        b.check_outputs();
        // A set held high wins over a clearing write in the same cycle.
        let set = b.p(&name("error_set"));
        b.m.set(set, 1);
        b.idle(3);
        b.write(status, error, 0xF);
        assert_eq!(b.read(status).0 & error, error, "session {s}: set held high, clear lost");
        b.m.set(set, 0);
        b.idle(3);
        b.write(status, error, 0xF);
        assert_eq!(b.read(status).0 & error, 0, "session {s}: set released, clear works");
    }
}

#[test]
fn write_pulses_fire_exactly_once_in_the_user_domain() {
    let mut b = default_bench("write pulses");
    let pulse_regs: Vec<(u32, Vec<u32>)> = b
        .expect
        .regs
        .iter()
        .filter(|r| r.fields.iter().any(|f| f.access == Access::WPulse))
        .map(|r| (r.addr, r.fields.iter().filter(|f| f.access == Access::WPulse).map(|f| f.mask).collect()))
        .collect();
    assert_eq!(pulse_regs.len(), 5, "toe_ctrl and four session ctrl");
    for (addr, masks) in &pulse_regs {
        for &m in masks {
            b.check_write(*addr, m, 0xF);
            b.check_write(*addr, 0, 0xF); // 0: nothing
            b.check_write(*addr, m, 0x0); // no byte enabled: nothing
            b.check_read(*addr); // reads 0
            b.idle(8);
            b.check_pulses();
        }
        let all = masks.iter().fold(0, |a, m| a | m);
        b.check_write(*addr, all, 0xF); // several commands in one write: one pulse each
        b.idle(8);
        b.check_pulses();
    }
    assert!(b.pulses.values().sum::<u64>() >= 2 * 13, "{:?}", b.pulses);
}

#[test]
fn byte_strobes_write_only_the_enabled_bytes() {
    let mut b = default_bench("byte strobes");
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let rw: Vec<u32> = b.expect.regs.iter().filter(|r| r.fields.iter().any(|f| f.access == Access::Rw)).map(|r| r.addr).collect();
    for _ in 0..300 {
        let addr = rw[rng.gen_range(0..rw.len())];
        b.check_write(addr, rng.gen(), rng.gen_range(0..16));
        b.check_read(addr);
    }
    b.check_outputs();
}

#[test]
fn unmapped_addresses_answer_slverr_and_change_nothing() {
    for (fns, map, what) in [
        (&models::regfile::FNS, RegisterMap::for_design(&default_design()), "slverr default"),
        (&models::regfile_alt::FNS, alt_map(), "slverr two sessions"),
    ] {
        let mut b = Bench::new(fns, map, what, BUS_PS, USER_PS, Timing { max_delay: 1, ready_probability: 0.9 });
        let bits = b.map.address_bits();
        let mut unmapped = 0;
        for addr in 0..(1u32 << bits) {
            let aligned = addr % 4 == 0;
            if b.map.lookup(addr).is_some() || (!aligned && addr % 7 != 1) {
                continue;
            }
            b.check_write(addr, 0xFFFF_FFFF, 0xF);
            b.check_read(addr);
            unmapped += 1;
        }
        assert!(unmapped > 100, "{unmapped} unmapped addresses tried");
        // Session blocks past design.sessions are unmapped.
        let s = b.map.block("session").unwrap().clone();
        let past = s.base + s.instances() as u32 * s.stride();
        if past < 1 << bits {
            assert_eq!(b.read(past + s.registers[0].offset).1, SLVERR);
        }
        for addr in b.all_addrs() {
            b.check_read(addr);
        }
        b.check_outputs();
        b.check_pulses();
    }
}

/// Random reads and writes of mapped and unmapped addresses, one at a time,
/// with status inputs and sticky sets changing between them.
fn random_against_model(fns: &'static ModelFns, map: RegisterMap, what: &str, n: usize) {
    let mut seed_rng = seed::rng(what);
    let bus_ps = seed_rng.gen_range(2_000..15_000);
    let user_ps = seed_rng.gen_range(2_000..15_000);
    let timing = Timing { max_delay: seed_rng.gen_range(0..6), ready_probability: seed_rng.gen_range(0.3..1.0) };
    let mut b = Bench::new(fns, map, what, bus_ps, user_ps, timing);
    let mut rng = ChaCha8Rng::seed_from_u64(seed_rng.gen());
    let addrs = b.all_addrs();
    let inputs: Vec<String> = b.ports.iter().filter(|(_, p)| !p.output).map(|(n, _)| n.clone()).collect();
    let bits = b.map.address_bits();
    let (mut reads, mut writes) = (0, 0);
    for _ in 0..n {
        match rng.gen_range(0..10) {
            0 => {
                let name = &inputs[rng.gen_range(0..inputs.len())];
                match name.strip_suffix("_set") {
                    Some(sticky) => b.pulse_set(sticky),
                    None => {
                        let name = name.clone();
                        b.set_status(&name, rng.gen());
                    }
                }
            }
            k => {
                let addr = if rng.gen_bool(0.05) { rng.gen_range(0..1u32 << bits) } else { addrs[rng.gen_range(0..addrs.len())] };
                if k <= 5 {
                    b.check_read(addr);
                    reads += 1;
                } else {
                    let strb = if rng.gen_bool(0.7) { 0xF } else { rng.gen_range(0..16) };
                    b.check_write(addr, rng.gen(), strb);
                    writes += 1;
                }
            }
        }
    }
    b.idle(8);
    b.check_outputs();
    b.check_pulses();
    eprintln!("{what}: {reads} reads, {writes} writes checked");
}

#[test]
fn thousands_of_random_transactions_match_the_register_model() {
    random_against_model(&models::regfile::FNS, RegisterMap::for_design(&default_design()), "random default", 12_000);
}

#[test]
fn random_transactions_on_two_sessions_with_a_moved_register() {
    random_against_model(&models::regfile_alt::FNS, alt_map(), "random alt", 3000);
}

#[test]
fn overlapping_reads_and_writes_in_any_channel_order() {
    let mut b = Bench::new(
        &models::regfile::FNS,
        RegisterMap::for_design(&default_design()),
        "overlap",
        USER_PS,
        BUS_PS,
        Timing { max_delay: 6, ready_probability: 0.5 },
    );
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    // Writes go to storage, reads to constants: the order the slave picks
    // between them cannot change any answer.
    let storage: Vec<u32> = b.expect.regs.iter().filter(|r| r.fields.iter().all(|f| f.access == Access::Rw)).map(|r| r.addr).collect();
    let constant: Vec<u32> = b.expect.regs.iter().filter(|r| r.fields.iter().all(|f| f.access == Access::Ro && !f.volatile)).map(|r| r.addr).collect();
    let mut total = 0;
    for _ in 0..60 {
        let mut ids = HashMap::new();
        for _ in 0..rng.gen_range(1..12) {
            if rng.gen_bool(0.5) {
                let (addr, data) = (storage[rng.gen_range(0..storage.len())], rng.gen());
                let id = b.master.write(addr, data, 0xF);
                ids.insert(id, (addr, Some(data)));
            } else {
                let addr = constant[rng.gen_range(0..constant.len())];
                ids.insert(b.master.read(addr), (addr, None));
            }
        }
        let done = b.run_until_idle();
        assert_eq!(done.len(), ids.len());
        // Writes complete in issue order (one B channel), so the model takes them in that order.
        let mut writes: Vec<&Completion> = done.iter().filter(|c| c.write).collect();
        writes.sort_by_key(|c| c.id);
        for c in writes {
            let (addr, data) = ids[&c.id];
            assert_eq!(c.resp, OKAY);
            b.expect.write(addr, data.unwrap(), 0xF);
        }
        for c in done.iter().filter(|c| !c.write) {
            assert_eq!(c.resp, OKAY);
            let want = b.expect.read(c.addr).unwrap().0;
            assert_eq!(c.data, want, "read {:#x}", c.addr);
        }
        total += done.len();
    }
    for addr in b.all_addrs() {
        b.check_read(addr);
    }
    b.check_outputs();
    eprintln!("overlap: {total} transactions");
}

#[test]
fn a_wide_value_read_is_one_sample_while_it_changes_every_cycle() {
    let mut b = default_bench("coherent 64-bit");
    // s1_tx_bytes steps by a large odd amount each user cycle, so the low
    // half wraps every few cycles: a torn pair (lo of one cycle, hi of
    // another) is not a value the input ever had.
    const STEP: u64 = 0x0000_0001_9E37_79B9;
    let port = b.p("s1_tx_bytes");
    b.user_hook = Some(Box::new(move |m: &mut Model, cycle: u64| m.set(port, cycle.wrapping_mul(STEP))));
    let (lo, hi) = (b.addr("session", 1, "tx_bytes_lo"), b.addr("session", 1, "tx_bytes_hi"));
    let mut last = 0u64;
    for _ in 0..300 {
        let before = b.user_cycles;
        let l = b.read(lo).0;
        let after = b.user_cycles;
        let gap = b.rng.gen_range(0..5);
        b.idle(gap);
        let h = b.read(hi).0;
        let value = u64::from(h) << 32 | u64::from(l);
        let found = (before..=after).any(|c| c.wrapping_mul(STEP) == value);
        assert!(found, "torn read {value:#018x}: no user cycle in {before}..={after} had it");
        assert!(value >= last, "not monotonic: {value:#x} after {last:#x}");
        last = value;
    }
}

#[test]
fn the_cycle_counter_runs_in_the_user_clock_and_reads_coherently() {
    let mut b = default_bench("cycle counter");
    let (lo, hi) = (b.addr("info", 0, "cycle_count_lo"), b.addr("info", 0, "cycle_count_hi"));
    let counter = b.p("info_cycle_count");
    let mut last = 0;
    for _ in 0..200 {
        let before = b.user_cycles;
        let l = b.read(lo).0;
        let after = b.user_cycles;
        let h = b.read(hi).0;
        let value = u64::from(h) << 32 | u64::from(l);
        // The counter started with user_rst released (user_cycles = 0 then).
        assert!((before..=after).contains(&value), "count {value} outside the user cycles {before}..={after} of the read");
        assert!(value > last || last == 0, "not increasing: {value} after {last}");
        last = value;
        assert_eq!(b.m.get(counter), b.user_cycles, "info_cycle_count port");
    }
}

#[test]
fn wide_parameters_written_in_halves_reach_the_command_whole() {
    let mut b = default_bench("48-bit writes");
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let start = b.map.find_register("ctrl").unwrap().1.field("start").unwrap().mask();
    for i in 0..60 {
        let s = i % 4;
        let size: u64 = rng.gen_range(1..1u64 << 48);
        let packet: u64 = rng.gen_range(1..1u64 << 48);
        // Halves in random order, with random channel timing.
        let mut halves = vec![
            (b.addr("session", s, "transfer_size_lo"), size as u32),
            (b.addr("session", s, "transfer_size_hi"), (size >> 32) as u32),
            (b.addr("session", s, "packet_size_lo"), packet as u32),
            (b.addr("session", s, "packet_size_hi"), (packet >> 32) as u32),
        ];
        for k in (1..halves.len()).rev() {
            halves.swap(k, rng.gen_range(0..=k));
        }
        for (addr, v) in halves {
            b.check_write(addr, v, 0xF);
        }
        b.check_write(b.addr("session", s, "ctrl"), start, 0xF);
        b.idle(8);
        let (name, _, values) = b.pulse_log.last().unwrap().clone();
        assert_eq!(name, format!("s{s}_start"));
        assert_eq!(values[&format!("s{s}_transfer_size")], size, "transfer size at start");
        assert_eq!(values[&format!("s{s}_packet_size")], packet, "packet size at start");
    }
    b.check_pulses();
}

#[test]
fn moving_a_register_in_the_map_moves_it_in_the_hardware() {
    let default = RegisterMap::for_design(&alt_design());
    let moved = alt_map();
    let mut b = Bench::new(&models::regfile_alt::FNS, moved, "moved", BUS_PS, USER_PS, Timing::default());
    let (old_block, old_reg) = default.find_register("target_ip").unwrap();
    let old = old_block.address(0, old_reg).unwrap();
    let new = b.addr("toe", 0, "target_ip");
    assert_ne!(old, new);
    assert_eq!(b.read(old).1, SLVERR, "the old address is unmapped now");
    assert_eq!(b.read(new), (old_reg.reset_for(0), OKAY), "target_ip reads its reset at the new address");
    b.check_write(new, 0x0A00_0001, 0xF);
    b.check_read(new);
    b.check_outputs();
    assert_eq!(b.m.get(b.p("toe_target_ip")), 0x0A00_0001);
    // Exactly two session groups.
    assert!(b.m.try_port("s1_start").is_some() && b.m.try_port("s2_start").is_none());
}

#[test]
fn crossing_latency_is_within_the_documented_bound() {
    for (bus_ps, user_ps) in [(BUS_PS, USER_PS), (USER_PS, BUS_PS), (5_000, 5_000), (3_000, 13_700)] {
        let mut b = Bench::new(
            &models::regfile::FNS,
            RegisterMap::for_design(&default_design()),
            "latency",
            bus_ps,
            user_ps,
            Timing { max_delay: 0, ready_probability: 1.0 },
        );
        let addr = b.addr("toe", 0, "fpga_ip");
        let r = user_ps as f64 / bus_ps as f64;
        let mut seen = Vec::new();
        for _ in 0..50 {
            let gap = b.rng.gen_range(0..4);
            b.idle(gap);
            b.master.write(addr, 1, 0xF);
            let w = b.run_until_idle()[0];
            b.master.read(addr);
            let rd = b.run_until_idle()[0];
            // `cycles` counts bus edges from the acceptance edge E0 to the
            // response handshake: VALID rises (3 + 2r, 4 + 3r] cycles after
            // E0 (docs/register_file.md) and READY is always high, so the
            // handshake is one edge later.
            for c in [w, rd] {
                let n = c.cycles as f64;
                assert!(n > 4.0 + 2.0 * r - 1e-9 && n <= 5.0 + 3.0 * r + 1e-9, "{bus_ps}/{user_ps} ps: {n} cycles, r = {r}");
                seen.push(c.cycles);
            }
        }
        seen.sort();
        eprintln!("latency {bus_ps}/{user_ps} ps: {}..={} bus cycles from acceptance to handshake", seen[0], seen[seen.len() - 1]);
    }
}

#[test]
fn a_reset_of_either_domain_alone_never_hangs_the_bus() {
    let mut b = default_bench("lone resets");
    let mut rng = ChaCha8Rng::seed_from_u64(b.rng.gen());
    let addrs = b.all_addrs();
    let (rst, arstn) = (b.m.port("user_rst"), b.m.port("s_axil_aresetn"));
    for round in 0..40 {
        for _ in 0..rng.gen_range(1..6) {
            let addr = addrs[rng.gen_range(0..addrs.len())];
            if rng.gen_bool(0.5) {
                b.master.read(addr);
            } else {
                b.master.write(addr, rng.gen(), 0xF);
            }
        }
        for _ in 0..rng.gen_range(0..200) {
            b.step();
        }
        if round % 2 == 0 {
            // The user domain alone: the bus keeps its transactions and they finish.
            b.m.set(rst, 1);
            b.idle(rng.gen_range(1..6));
            b.m.set(rst, 0);
            b.run_until_idle();
        } else {
            // The bus alone: what was in flight is dropped; the master starts over.
            b.m.set(arstn, 0);
            b.idle(rng.gen_range(2..6));
            b.master = Master::new(&mut b.m, ChaCha8Rng::seed_from_u64(rng.gen()), Timing::default());
            b.checker.reset();
            b.m.set(arstn, 1);
            b.m.eval();
            b.idle(2);
        }
        // Whatever happened, a fresh read answers.
        let id = b.addr("info", 0, "id");
        assert_eq!(b.read(id), (regmap::ID_MAGIC, OKAY), "round {round}");
    }
}
