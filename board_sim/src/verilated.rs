//! A simulated board's verilated model: [`verilate::Model`], plus the FST
//! trace that `TB_TRACE=1` asks for (at build time it adds `--trace-fst` to
//! the testbench's models; at run time each traced model writes
//! `<TB_TRACE_DIR>/<model>-<test>.fst`, by default in `toe-traces` of the
//! system's temporary folder).

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;

/// The port table and entry points of a model, from the `verilate` crate
/// (shared with models built at run time by `verilate::load_cached`).
pub use verilate::{ModelFns, Port, PortInfo};

/// A live verilated model: a [`verilate::Model`] that writes an FST trace
/// when the model was built with `TB_TRACE=1` and runs with it.
pub struct Model(verilate::Model);

/// Where traces go: `TB_TRACE_DIR`, else `toe-traces` in the temporary folder.
fn trace_dir() -> PathBuf {
    std::env::var_os("TB_TRACE_DIR").map(PathBuf::from).unwrap_or_else(|| std::env::temp_dir().join("toe-traces"))
}

impl Model {
    /// Builds a model; with `TB_TRACE=1` (at build and run time) it writes an
    /// FST trace to `<TB_TRACE_DIR>/<model>-<test name>.fst` and prints the path.
    pub fn new(fns: &'static ModelFns) -> Self {
        let mut model = verilate::Model::new(fns);
        if fns.traced && std::env::var("TB_TRACE").map(|v| v == "1").unwrap_or(false) {
            let dir = trace_dir();
            std::fs::create_dir_all(&dir)
                .unwrap_or_else(|e| panic!("cannot create the trace folder {}: {e}", dir.display()));
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
