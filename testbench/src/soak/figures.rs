//! The figures over a run of iterations, and their report.

use std::collections::BTreeMap;
use std::fmt;

use super::plan::FaultKind;
use super::run::Outcome;

/// Figures over a run of iterations.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub iterations: u64,
    pub cycles: u64,
    pub bytes: u64,
    pub injected: BTreeMap<FaultKind, u64>,
    pub handled: BTreeMap<FaultKind, u64>,
    pub false_alarms: u64,
    pub hangs: u64,
    /// Seeds of the iterations that failed.
    pub failed: Vec<u64>,
}

impl Figures {
    pub fn add(&mut self, o: &Outcome, plan_faults_ok: bool) {
        self.iterations += 1;
        self.cycles += o.cycles;
        self.bytes += o.bytes;
        for k in &o.injected {
            *self.injected.entry(*k).or_default() += 1;
        }
        // Global faults (bus, ready delay) are handled when the iteration passed.
        let mut handled = o.handled.clone();
        if plan_faults_ok {
            handled
                .extend(o.injected.iter().filter(|k| matches!(k, FaultKind::SlowBus | FaultKind::ConnReqReadyDelay)));
        }
        for k in handled {
            *self.handled.entry(k).or_default() += 1;
        }
        self.false_alarms += o.false_alarms;
        self.hangs += o.hangs;
        if !o.problems.is_empty() {
            self.failed.push(o.seed);
        }
    }
}

impl fmt::Display for Figures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "soak: {} iterations, {} user cycles of two boards, {} bytes moved",
            self.iterations, self.cycles, self.bytes
        )?;
        writeln!(f, "  fault                      injected  handled as the reference says")?;
        for (k, n) in &self.injected {
            writeln!(f, "  {:<26} {:>8}  {:>8}", k.to_string(), n, self.handled.get(k).copied().unwrap_or(0))?;
        }
        let injected: u64 = self.injected.values().sum();
        let handled: u64 = self.handled.values().sum();
        writeln!(f, "  {:<26} {:>8}  {:>8}", "total", injected, handled)?;
        writeln!(
            f,
            "  false alarms {}, hangs {}, failed iterations {}",
            self.false_alarms,
            self.hangs,
            self.failed.len()
        )?;
        if !self.failed.is_empty() {
            let seeds: Vec<String> = self.failed.iter().map(|s| s.to_string()).collect();
            writeln!(f, "  failed seeds: {} (replay one: TB_SEED=<seed> make soak)", seeds.join(", "))?;
        }
        Ok(())
    }
}
