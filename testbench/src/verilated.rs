//! The testbench's verilated models: [`verilate::Model`], plus the FST
//! trace that `TB_TRACE=1` asks for (at build time it adds `--trace-fst`, at
//! run time each model writes `target/traces/<model>-<test>.fst`).

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;

/// The port table and entry points of a model, from the `verilate` crate
/// (shared with models built at run time by `verilate::load_cached`).
pub use verilate::{ModelFns, Port, PortInfo};

/// A live verilated model of the testbench: a [`verilate::Model`] that
/// writes an FST trace when the models were built with `TB_TRACE=1` and the
/// test runs with it.
pub struct Model(verilate::Model);

impl Model {
    /// Builds a model; with `TB_TRACE=1` (at build and run time) it writes an
    /// FST trace to `target/traces/<model>-<test name>.fst`.
    pub fn new(fns: &'static ModelFns) -> Self {
        let mut model = verilate::Model::new(fns);
        if crate::TRACE_BUILT && std::env::var("TB_TRACE").map(|v| v == "1").unwrap_or(false) {
            let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/traces");
            std::fs::create_dir_all(&dir).expect("create target/traces");
            let test = std::thread::current().name().unwrap_or("main").replace("::", "-");
            let path = dir.join(format!("{}-{test}.fst", fns.name));
            eprintln!("trace: {}", path.display());
            model.open_trace(&path);
        }
        Model(model)
    }
}

impl Deref for Model {
    type Target = verilate::Model;
    fn deref(&self) -> &verilate::Model {
        &self.0
    }
}

impl DerefMut for Model {
    fn deref_mut(&mut self) -> &mut verilate::Model {
        &mut self.0
    }
}

/// A verilated top and its port plan: the model's entry points, and which of
/// its ports is which, as `gen` planned them. Testbenches bind ports by
/// group and local name through [`Top::port`], never by spelling names.
#[derive(Clone, Debug)]
pub struct Top {
    pub fns: &'static ModelFns,
    pub plan: config::ports::PortPlan,
}

impl Top {
    pub fn new(fns: &'static ModelFns, plan: config::ports::PortPlan) -> Self {
        Top { fns, plan }
    }

    /// The port `local` of `group` on model `m` (an instance of this top).
    /// Panics naming the port when the plan or the model lacks it: a
    /// testbench asking for a port the top does not have is a bug.
    pub fn port(&self, m: &verilate::Model, group: config::ports::Group, local: &str) -> Port {
        m.port(&self.planned(group, local).name)
    }

    /// The planned port `local` of `group`; panics naming it when the plan
    /// lacks it.
    pub fn planned(&self, group: config::ports::Group, local: &str) -> &config::ports::Port {
        self.plan.get(group, local).unwrap_or_else(|e| panic!("model `{}`: {e}", self.fns.name))
    }

    /// Sessions of the top.
    pub fn sessions(&self) -> usize {
        self.plan.sessions()
    }
}
