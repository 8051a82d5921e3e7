//! Elapsed timer: counts user-clock cycles between a start and a stop. The
//! session ([`Session`](crate::session::Session)) holds one as `timer`
//! (Verilog `<name>_elapsed_timer`, instance `u_timer`) and shows its count as the `elapsed`
//! register: from `established` to the end of the transfer.
//!
//! ```text
//!   clear --> count := 0, stopped
//!   start --> running          running: count += 1 every cycle --> elapsed
//!   stop, reset --> stopped
//! ```
//!
//! Ports (one-cycle pulses unless said otherwise):
//! - `clear`: zero the count and stop (a test starts); the count keeps its
//!   value otherwise, so it shows the last test's time until the next one;
//! - `start`: count from the next cycle on;
//! - `stop`: stop counting; wins over `start` in the same cycle;
//! - `reset` (level, synchronous): stop, as `stop` (the count is left as
//!   it is; software reads it only after a test);
//! - `elapsed`: the count, 64 bits (no wrap in practice: 584 years at 1 GHz).

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct ElapsedTimer {
    // ---- Clock and reset.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high: stop.
    pub reset: Signal<In, Bit>,
    // ---- Control.
    /// Zero the count and stop (one-cycle pulse).
    pub clear: Signal<In, Bit>,
    /// Start counting (one-cycle pulse).
    pub start: Signal<In, Bit>,
    /// Stop counting (one-cycle pulse); wins over `start`.
    pub stop: Signal<In, Bit>,
    // ---- Count.
    /// Cycles counted.
    pub elapsed: Signal<Out, Bits<64>>,
    running: DFF<Bit>,
    count: DFF<Bits<64>>,
    c_zero64: Constant<Bits<64>>,
    c_one64: Constant<Bits<64>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Default for ElapsedTimer {
    fn default() -> Self {
        Self {
            verilog_name: Default::default(),
            clock: Default::default(),
            reset: Default::default(),
            clear: Default::default(),
            start: Default::default(),
            stop: Default::default(),
            elapsed: Default::default(),
            running: Default::default(),
            count: Default::default(),
            c_zero64: Constant::new(bits(0)),
            c_one64: Constant::new(bits(1)),
        }
    }
}

impl Logic for ElapsedTimer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, running, count);
        if self.running.q.val() {
            self.count.d.next = self.count.q.val() + self.c_one64.val();
        }
        if self.clear.val() {
            self.count.d.next = self.c_zero64.val();
            self.running.d.next = false;
        }
        if self.start.val() {
            self.running.d.next = true;
        }
        if self.stop.val() | self.reset.val() {
            self.running.d.next = false;
        }
        self.elapsed.next = self.count.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{cycle, settle};

    fn step(t: &mut ElapsedTimer) {
        cycle(t, |t: &mut ElapsedTimer, level: bool| t.clock.next = Clock::from(level));
    }

    /// Drives `pulse` for one edge, then `idle` edges with nothing.
    fn pulse(t: &mut ElapsedTimer, set: fn(&mut ElapsedTimer, bool), idle: u64) {
        set(t, true);
        settle(t);
        step(t);
        set(t, false);
        settle(t);
        for _ in 0..idle {
            step(t);
        }
    }

    /// The count is the edges from the one after `start` up to the one of
    /// `stop`, both included; it holds after `stop` and zeroes at `clear`.
    #[test]
    fn counts_the_cycles_from_start_to_stop() {
        let mut t = ElapsedTimer::default();
        t.connect_all();
        settle(&mut t);
        pulse(&mut t, |t, v| t.start.next = v, 6);
        pulse(&mut t, |t, v| t.stop.next = v, 5);
        assert_eq!(t.elapsed.val(), bits(7));
        pulse(&mut t, |t, v| t.clear.next = v, 3);
        assert_eq!(t.elapsed.val(), bits(0));
    }

    /// `stop` (or `reset`) in the cycle of `start` leaves the timer stopped.
    #[test]
    fn stop_and_reset_win_over_start() {
        for by_reset in [false, true] {
            let mut t = ElapsedTimer::default();
            t.connect_all();
            settle(&mut t);
            t.start.next = true;
            if by_reset {
                t.reset.next = true;
            } else {
                t.stop.next = true;
            }
            settle(&mut t);
            step(&mut t);
            (t.start.next, t.stop.next, t.reset.next) = (false, false, false);
            settle(&mut t);
            for _ in 0..4 {
                step(&mut t);
            }
            assert_eq!(t.elapsed.val(), bits(0), "reset {by_reset}");
        }
    }
}
