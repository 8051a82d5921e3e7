//! Watchdog: fires when nothing moves for a number of milliseconds. The
//! session ([`Session`](crate::session::Session)) holds one as `watchdog`
//! (Verilog `<name>_watchdog`, instance `u_watchdog`) and ends a test `stalled` when it fires.
//!
//! ```text
//!   load, timeout_ms --> on, last_ms (latched)
//!   moved ------------+
//!   state --> changed? +--> progress --> quiet_cycles (0 .. ms_last) --> quiet_ms
//!   armed, hurry ------------------------------------------------------> fired --> fire
//! ```
//!
//! Progress is a beat moved (`moved`) or a change of the watched `state`
//! from the cycle before; `S` is the watched block's state type, compared
//! whole. `quiet_cycles` counts the cycles of the current millisecond
//! without progress (`ms_last + 1` cycles a millisecond, the user clock in
//! kHz), `quiet_ms` the whole milliseconds; progress zeroes both.
//!
//! Ports:
//! - `load` (pulse) takes `timeout_ms` (0: never fire), so a register
//!   written during a test changes nothing until the next `load`;
//! - `armed`: the watched block is busy; only then may the watchdog fire;
//! - `hurry`: fire at the end of the first quiet millisecond, whatever the
//!   timeout (the session gives up on an abort's close request that way);
//! - `fire`: registered, high for the cycle after the last cycle of the
//!   `timeout_ms`th millisecond without progress (of the first one when
//!   `hurry`), so the counters' compares stay out of the user's logic cone.
//!
//! No reset: the counters only matter while `armed`, and progress (the
//! state leaving idle) zeroes them first.

use rust_hdl::prelude::*;

/// Width of the count of cycles within a millisecond: user clocks up to
/// 1 GHz (`config` allows 1..=1000 MHz) have at most 1,000,000 cycles a
/// millisecond.
const QUIET_CYCLE_BITS: usize = 20;

#[derive(LogicBlock)]
pub struct Watchdog<S: Synth> {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    // ---- Setting.
    /// Take `timeout_ms` (one-cycle pulse, when a test starts).
    pub load: Signal<In, Bit>,
    /// Milliseconds without progress before `fire`; 0: never.
    pub timeout_ms: Signal<In, Bits<16>>,
    // ---- What counts as progress.
    /// The watched state; a change from the cycle before is progress.
    pub state: Signal<In, S>,
    /// A beat moved this cycle (either way): progress.
    pub moved: Signal<In, Bit>,
    /// The watched block is busy: the watchdog may fire.
    pub armed: Signal<In, Bit>,
    /// Fire after the first quiet millisecond, whatever the timeout.
    pub hurry: Signal<In, Bit>,
    // ---- Result.
    /// The watchdog fired (registered).
    pub fire: Signal<Out, Bit>,
    /// The timeout latched at `load`: on, and its last millisecond.
    on: DFF<Bit>,
    last_ms: DFF<Bits<16>>,
    /// The state of the cycle before.
    last_state: DFF<S>,
    /// Cycles since progress within the current millisecond.
    quiet_cycles: DFF<Bits<QUIET_CYCLE_BITS>>,
    /// Whole milliseconds since progress.
    quiet_ms: DFF<Bits<16>>,
    fired: DFF<Bit>,
    /// A beat moved or the state changed in the cycle before.
    progress: Signal<Local, Bit>,
    /// The last cycle of a millisecond without progress.
    ms_tick: Signal<Local, Bit>,
    c_ms_last: Constant<Bits<QUIET_CYCLE_BITS>>,
    c_quiet_zero: Constant<Bits<QUIET_CYCLE_BITS>>,
    c_quiet_one: Constant<Bits<QUIET_CYCLE_BITS>>,
    c_zero16: Constant<Bits<16>>,
    c_one16: Constant<Bits<16>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<S: Synth> Watchdog<S> {
    /// A watchdog for a user clock of `user_clock_khz` (its cycles per
    /// millisecond), 1..=2^20.
    pub fn new(user_clock_khz: u32) -> Self {
        assert!(
            (1..=1 << QUIET_CYCLE_BITS).contains(&user_clock_khz),
            "user clock of {user_clock_khz} kHz: the watchdog counts at most 2^{QUIET_CYCLE_BITS} cycles a millisecond"
        );
        Self {
            verilog_name: Default::default(),
            clock: Default::default(),
            load: Default::default(),
            timeout_ms: Default::default(),
            state: Default::default(),
            moved: Default::default(),
            armed: Default::default(),
            hurry: Default::default(),
            fire: Default::default(),
            on: Default::default(),
            last_ms: Default::default(),
            last_state: Default::default(),
            quiet_cycles: Default::default(),
            quiet_ms: Default::default(),
            fired: Default::default(),
            progress: Default::default(),
            ms_tick: Default::default(),
            c_ms_last: Constant::new(bits(u64::from(user_clock_khz) - 1)),
            c_quiet_zero: Constant::new(bits(0)),
            c_quiet_one: Constant::new(bits(1)),
            c_zero16: Constant::new(bits(0)),
            c_one16: Constant::new(bits(1)),
        }
    }
}

impl<S: Synth> Logic for Watchdog<S> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, on, last_ms, last_state, quiet_cycles, quiet_ms, fired);
        if self.load.val() {
            self.on.d.next = self.timeout_ms.val() != self.c_zero16.val();
            self.last_ms.d.next = self.timeout_ms.val() - self.c_one16.val();
        }
        self.last_state.d.next = self.state.val();
        self.progress.next = self.moved.val() | (self.state.val() != self.last_state.q.val());
        self.ms_tick.next = self.quiet_cycles.q.val() == self.c_ms_last.val();
        if self.progress.val() {
            self.quiet_cycles.d.next = self.c_quiet_zero.val();
            self.quiet_ms.d.next = self.c_zero16.val();
        } else if self.ms_tick.val() {
            self.quiet_cycles.d.next = self.c_quiet_zero.val();
            self.quiet_ms.d.next = self.quiet_ms.q.val() + self.c_one16.val();
        } else {
            self.quiet_cycles.d.next = self.quiet_cycles.q.val() + self.c_quiet_one.val();
        }
        self.fired.d.next = self.armed.val()
            & self.ms_tick.val()
            & !self.progress.val()
            & (self.hurry.val() | (self.on.q.val() & (self.quiet_ms.q.val() == self.last_ms.q.val())));
        self.fire.next = self.fired.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{cycle, settle};

    type Dog = Watchdog<Bits<4>>;

    fn step(w: &mut Dog) {
        cycle(w, |w: &mut Dog, level: bool| w.clock.next = Clock::from(level));
    }

    /// A watchdog at 10 cycles a millisecond, loaded with `timeout_ms`,
    /// armed, with the state changed once (progress) so the count starts
    /// from zero.
    fn loaded(timeout_ms: u64) -> Dog {
        let mut w = Dog::new(10);
        w.connect_all();
        settle(&mut w);
        w.load.next = true;
        w.timeout_ms.next = bits(timeout_ms);
        w.state.next = bits(1);
        w.armed.next = true;
        settle(&mut w);
        step(&mut w);
        w.load.next = false;
        settle(&mut w);
        w
    }

    /// The cycles until `fire`, at most `max`.
    fn cycles_to_fire(w: &mut Dog, max: u64) -> Option<u64> {
        (1..=max).find(|_| {
            step(w);
            w.fire.val()
        })
    }

    /// `fire` rises `timeout_ms` milliseconds after the edge that last saw
    /// progress (the verdict is registered at the millisecond's last cycle),
    /// and lasts one cycle.
    #[test]
    fn fires_after_timeout_ms_quiet_milliseconds() {
        let mut w = loaded(2);
        assert_eq!(cycles_to_fire(&mut w, 100), Some(2 * 10));
        step(&mut w);
        assert!(!w.fire.val(), "`fire` lasts one cycle");
    }

    /// A beat moved, or a change of state, starts the count again.
    #[test]
    fn progress_restarts_the_count() {
        for moved in [true, false] {
            let mut w = loaded(1);
            for _ in 0..8 {
                step(&mut w);
            }
            if moved {
                w.moved.next = true;
            } else {
                w.state.next = bits(2);
            }
            settle(&mut w);
            step(&mut w);
            w.moved.next = false;
            settle(&mut w);
            assert_eq!(cycles_to_fire(&mut w, 100), Some(10), "moved {moved}");
        }
    }

    /// Timeout 0 never fires, unless hurried; disarmed never fires.
    #[test]
    fn off_disarmed_and_hurried() {
        let mut w = loaded(0);
        assert_eq!(cycles_to_fire(&mut w, 100), None, "timeout 0");
        w.hurry.next = true;
        settle(&mut w);
        assert!(cycles_to_fire(&mut w, 10).is_some(), "hurried: within a millisecond");
        let mut w = loaded(1);
        w.armed.next = false;
        settle(&mut w);
        assert_eq!(cycles_to_fire(&mut w, 100), None, "disarmed");
    }

    #[test]
    #[should_panic(expected = "the watchdog counts at most 2^20 cycles a millisecond")]
    fn a_clock_too_fast_for_the_counter_is_refused() {
        let _ = Dog::new((1 << 20) + 1);
    }
}
