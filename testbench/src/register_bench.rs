//! The bench of the register file on its own (models `regfile` and
//! `regfile_alt`): the verilated block with its register clock and user clock
//! at unrelated periods, the AXI4-Lite master and protocol checker of
//! [`crate::axil`] on the bus side, every user-side port bound by its name
//! in the register file's layout, and the register model of
//! [`crate::register_model`] each access is checked against. It counts the
//! write pulses and snapshots the outputs at each, drives status inputs and
//! sticky sets, and offers the designs the models are built from;
//! `tests/register_file.rs` holds the tests.

use std::collections::HashMap;

use config::ports::Group;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use regmap::RegisterMap;

use crate::axil::{Checker, Completion, Master, Timing, OKAY, SLVERR};
use crate::clocks::TwoClocks;
use crate::models;
use crate::register_model::Expect;
use crate::seed;
use crate::verilated::{Model, ModelFns, Port};

/// Register clock 10.3 ns, user clock 4 ns (the example periods).
pub const BUS_PS: u64 = 10_300;
pub const USER_PS: u64 = 4_000;

/// The default design, as `build.rs` makes model `regfile` of it.
pub fn default_design() -> config::Design {
    config::parse(config::DEFAULT_TOML).unwrap()
}

/// The design and map of `regfile_alt`, as `build.rs` makes them.
pub fn alt_design() -> config::Design {
    let text = config::DEFAULT_TOML
        .replacen("sessions = 4", "sessions = 2", 1)
        .replacen("[60000, 60001, 60002, 60003]", "[60000, 60001]", 1)
        .replacen("[61000, 61001, 61002, 61003]", "[61000, 61001]", 1);
    config::parse(&text).unwrap()
}

/// The register map of `regfile_alt`: `toe.target_ip` moved.
pub fn alt_map() -> RegisterMap {
    let mut map = RegisterMap::for_design(&alt_design());
    map.block_mut("toe").unwrap().register_mut("target_ip").unwrap().offset = 0x70;
    map.validate().unwrap();
    map
}

/// A user-side port of the register file.
pub struct UserPort {
    pub port: Port,
    pub width: u32,
    pub output: bool,
}

/// Called after every user clock edge with the user cycle number.
pub type UserHook = Box<dyn FnMut(&mut Model, u64)>;

/// The verilated register file, its two clocks, the AXI4-Lite master and
/// protocol checker on the bus side, the user side's ports, and the model
/// ([`Expect`]) every answer is checked against.
pub struct Bench {
    pub m: Model,
    pub clocks: TwoClocks,
    pub master: Master,
    pub checker: Checker,
    pub map: RegisterMap,
    pub expect: Expect,
    pub ports: HashMap<String, UserPort>,
    /// Write-pulse outputs: name, port, high at the last user edge.
    pub pulse_ports: Vec<(String, Port, bool)>,
    /// Pulses seen on each write-pulse output.
    pub pulses: HashMap<String, u64>,
    /// Snapshots of every value output at each pulse: (pulse, user cycle, values).
    pub pulse_log: Vec<(String, u64, HashMap<String, u64>)>,
    /// Set inputs raised for one user cycle.
    pub set_high: Vec<Port>,
    /// User clock edges since the reset was released.
    pub user_cycles: u64,
    /// Called after every user clock edge.
    pub user_hook: Option<UserHook>,
    pub rng: ChaCha8Rng,
}

impl Bench {
    /// A bench of model `fns` checked against `map` (the map the model was
    /// generated from); `what` names its seed.
    pub fn new(
        fns: &'static ModelFns,
        map: RegisterMap,
        what: &str,
        bus_ps: u64,
        user_ps: u64,
        timing: Timing,
    ) -> Self {
        let mut rng = seed::rng(what);
        let mut m = Model::new(fns);
        let phase = rng.gen_range(0..user_ps);
        eprintln!("{what}: bus clock {bus_ps} ps, user clock {user_ps} ps, phase {phase} ps");
        let clocks = TwoClocks::new(
            &mut m,
            &Group::Bus.top_name("aclk"),
            bus_ps,
            &Group::Clock.top_name("user_clk"),
            user_ps,
            phase,
        );
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

    /// The user port `name`.
    pub fn p(&self, name: &str) -> Port {
        self.ports.get(name).unwrap_or_else(|| panic!("no user port {name}")).port
    }

    /// Holds both resets for a few cycles of each clock.
    pub fn reset_both(&mut self) {
        let (rst, arstn) =
            (self.m.port(&Group::Clock.top_name("user_rst")), self.m.port(&Group::Bus.top_name("aresetn")));
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
    pub fn step(&mut self) {
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

    /// Steps until every queued bus access completed; the completions.
    pub fn run_until_idle(&mut self) -> Vec<Completion> {
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
    pub fn idle(&mut self, cycles: u64) {
        let (a0, u0) = self.clocks.rises();
        while self.clocks.rises().0 < a0 + cycles || self.clocks.rises().1 < u0 + cycles {
            self.step();
        }
    }

    /// One read on the bus: data and response.
    pub fn read(&mut self, addr: u32) -> (u32, u8) {
        self.master.read(addr);
        let c = self.run_until_idle();
        assert_eq!(c.len(), 1);
        (c[0].data, c[0].resp)
    }

    /// One write on the bus: the response.
    pub fn write(&mut self, addr: u32, data: u32, strb: u8) -> u8 {
        self.master.write(addr, data, strb);
        let c = self.run_until_idle();
        assert_eq!(c.len(), 1);
        c[0].resp
    }

    /// Reads `addr` and compares with the model.
    pub fn check_read(&mut self, addr: u32) {
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

    /// Writes `addr` and applies the write to the model; the response must agree.
    pub fn check_write(&mut self, addr: u32, data: u32, strb: u8) {
        let resp = self.write(addr, data, strb);
        let mapped = self.expect.write(addr, data, strb);
        assert_eq!(resp, if mapped { OKAY } else { SLVERR }, "write {addr:#x}");
    }

    /// Drives a status input (between transactions).
    pub fn set_status(&mut self, name: &str, value: u64) {
        let p = &self.ports[name];
        let value = if p.width >= 64 { value } else { value & ((1u64 << p.width) - 1) };
        self.m.set(p.port, value);
        self.m.eval();
        self.expect.status.insert(name.to_string(), value);
    }

    /// Raises `<name>_set` for one user cycle.
    pub fn pulse_set(&mut self, name: &str) {
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
    pub fn check_outputs(&self) {
        for (name, p) in &self.ports {
            if let (true, Some(mut want)) = (p.output, self.expect.output(name)) {
                let mut got = vec![0u32; p.port.words.max(2)];
                self.m.get_wide(p.port, &mut got);
                want.resize(got.len(), 0);
                assert_eq!(got, want, "user port {name}");
            }
        }
    }

    /// Every write-pulse output fired as often as the model says.
    pub fn check_pulses(&self) {
        for (name, _, _) in &self.pulse_ports {
            let got = self.pulses.get(name).copied().unwrap_or(0);
            let want = self.expect.pulses.get(name).copied().unwrap_or(0);
            assert_eq!(got, want, "pulses on {name}");
        }
    }

    /// The address of register `reg` of instance `instance` of `block`.
    pub fn addr(&self, block: &str, instance: usize, reg: &str) -> u32 {
        let b = self.map.block(block).unwrap();
        b.address(instance, b.register(reg).unwrap()).unwrap()
    }

    /// Every mapped address.
    pub fn all_addrs(&self) -> Vec<u32> {
        self.expect.regs.iter().map(|r| r.addr).collect()
    }
}

/// A bench of the default design's register file (`regfile`) with the
/// default clocks and random channel timing.
pub fn default_bench(what: &str) -> Bench {
    Bench::new(
        &models::regfile::FNS,
        RegisterMap::for_design(&default_design()),
        what,
        BUS_PS,
        USER_PS,
        Timing::default(),
    )
}
