//! The small blocks the open engine (`toe.core = "open"`) adds around its
//! network node (`crate::net`): a counter per node event, for the register
//! file's `net` block, and the session side of an engine without TCP yet.
//!
//! ```text
//!  node event pulse --> EventCounter --> count (net_<counter>)
//!  toe<s>_conn_req_* --> ConnRefuser --> conn_req_ready, conn_error
//! ```
//!
//! Part 1 of the open engine is a network node: it answers ARP and ping but
//! has no TCP. Its sessions take every connection request and refuse every
//! open as the TOE interface (`docs/toe_interface.md`) says a TOE that cannot
//! connect does: `conn_error` clears at the request and rises one cycle
//! later, so the session ends its test with cause `refused`, never waits.

use rust_hdl::prelude::*;

/// Bits of every node counter: as wide as a register, wrapping.
pub const COUNTER_BITS: usize = 32;

/// Counts one-cycle event pulses, wrapping at 2^32; cleared by `reset`.
#[derive(LogicBlock, Default)]
pub struct EventCounter {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the count returns to 0.
    pub reset: Signal<In, Bit>,
    // ---- Event.
    /// One-cycle pulse: one event.
    pub pulse: Signal<In, Bit>,
    // ---- Count.
    /// Events since reset, modulo 2^32.
    pub count: Signal<Out, Bits<COUNTER_BITS>>,
    count_q: DFF<Bits<COUNTER_BITS>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Logic for EventCounter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, count_q);
        if self.reset.val() {
            self.count_q.d.next = 0.into();
        } else if self.pulse.val() {
            self.count_q.d.next = self.count_q.q.val() + 1;
        }
        self.count.next = self.count_q.q.val();
    }
}

/// The session side of an engine with no TCP: every connection request is
/// taken at once; an open is refused (`conn_error` falls at the request,
/// then rises the next cycle and stays up until the next open request); a
/// close changes nothing.
#[derive(LogicBlock, Default)]
pub struct ConnRefuser {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: no error.
    pub reset: Signal<In, Bit>,
    // ---- Connection requests (toe<s>_conn_req_*).
    /// A request is presented.
    pub req_valid: Signal<In, Bit>,
    /// 1 open, 0 close.
    pub req_open: Signal<In, Bit>,
    /// The request is taken (always).
    pub req_ready: Signal<Out, Bit>,
    // ---- State.
    /// The last open was refused.
    pub conn_error: Signal<Out, Bit>,
    error_q: DFF<Bit>,
    refuse_q: DFF<Bit>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Logic for ConnRefuser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, error_q, refuse_q);
        self.req_ready.next = true;
        self.refuse_q.d.next = false;
        if self.reset.val() {
            self.error_q.d.next = false;
        } else if self.req_valid.val() & self.req_open.val() {
            self.error_q.d.next = false;
            self.refuse_q.d.next = true;
        } else if self.refuse_q.q.val() {
            self.error_q.d.next = true;
        }
        self.conn_error.next = self.error_q.q.val();
    }
}

/// The Verilog of both blocks, `<prefix>_event_counter` and
/// `<prefix>_conn_refuser`.
pub fn modules(prefix: &str) -> Result<Vec<crate::emit::Module>, crate::verilog::HdlError> {
    let mut out = crate::emit::emit(&mut EventCounter::default(), &format!("{prefix}_event_counter"), prefix)?;
    out.extend(crate::emit::emit(&mut ConnRefuser::default(), &format!("{prefix}_conn_refuser"), prefix)?);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{cycle, settle};

    fn step<B: Block>(b: &mut B, clock: fn(&mut B) -> &mut Signal<In, Clock>) {
        cycle(b, |b: &mut B, level: bool| clock(b).next = Clock::from(level));
    }

    /// Against a plain count of random pulses, across the wrap and a reset.
    #[test]
    fn counts_every_pulse_wraps_and_resets() {
        use rand::Rng;
        let mut rng = seeded_inputs::seed::rng("event counter");
        let mut c = EventCounter::default();
        c.connect_all();
        let mut expected: u32 = 0;
        for k in 0..2000 {
            let reset = k == 1200;
            let event = rng.gen_bool(0.6);
            c.reset.next = reset;
            c.pulse.next = event;
            settle(&mut c);
            step(&mut c, |c| &mut c.clock);
            expected = if reset { 0 } else { expected.wrapping_add(u32::from(event)) };
            assert_eq!(c.count.val().index() as u32, expected, "cycle {k}");
            if k == 600 {
                // Jump near the wrap: the register holds whatever it counted.
                c.count_q.q.next = bits(u64::from(u32::MAX - 3));
                settle(&mut c);
                expected = u32::MAX - 3;
            }
        }
    }

    /// An open request is taken at once and refused one cycle later; a close
    /// leaves the error as it was; reset clears it.
    #[test]
    fn every_open_is_refused_the_cycle_after_it_is_taken() {
        let mut r = ConnRefuser::default();
        r.connect_all();
        let drive = |r: &mut ConnRefuser, valid: bool, open: bool, reset: bool| -> (bool, bool) {
            r.req_valid.next = valid;
            r.req_open.next = open;
            r.reset.next = reset;
            settle(r);
            let ready = r.req_ready.val();
            step(r, |r| &mut r.clock);
            (ready, r.conn_error.val())
        };
        assert_eq!(drive(&mut r, false, false, true), (true, false));
        assert_eq!(drive(&mut r, true, true, false), (true, false), "cleared at the request");
        assert_eq!(drive(&mut r, false, false, false), (true, true), "refused a cycle later");
        assert_eq!(drive(&mut r, false, false, false), (true, true), "and stays refused");
        assert_eq!(drive(&mut r, true, false, false), (true, true), "a close changes nothing");
        assert_eq!(drive(&mut r, true, true, false), (true, false), "the next open clears it again");
        assert_eq!(drive(&mut r, false, false, true), (true, false), "reset wins over the pending refusal");
        assert_eq!(drive(&mut r, false, false, false), (true, false));
    }
}
