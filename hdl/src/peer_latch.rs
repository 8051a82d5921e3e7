//! Peer latch: keeps what the TOE reported about the peer when the
//! connection was established. The session ([`Session`](crate::session::Session))
//! holds one as `peer` (Verilog `<name>_peer_latch`, instance `u_peer`) and shows it as the
//! `peer_port`, `peer_mss` and `peer_window_scale` registers.
//!
//! ```text
//!   port, mss, window_scale --[take]--> held_port, held_mss, held_window_scale
//! ```
//!
//! Ports: `take` (one-cycle pulse, the cycle `established` is seen) loads
//! the three inputs; the `held_*` outputs keep them until the next `take`,
//! after the connection closed too, so software reads them after a test.
//! No reset: the values mean nothing before the first connection.

use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct PeerLatch {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    // ---- From the TOE.
    /// Load the inputs (one-cycle pulse).
    pub take: Signal<In, Bit>,
    /// The peer's TCP port, MSS and window scale as the TOE shows them.
    pub port: Signal<In, Bits<16>>,
    /// Peer MSS.
    pub mss: Signal<In, Bits<16>>,
    /// Peer window scale.
    pub window_scale: Signal<In, Bits<4>>,
    // ---- Held values.
    /// The values loaded at the last `take`.
    pub held_port: Signal<Out, Bits<16>>,
    /// Peer MSS, held.
    pub held_mss: Signal<Out, Bits<16>>,
    /// Peer window scale, held.
    pub held_window_scale: Signal<Out, Bits<4>>,
    port_q: DFF<Bits<16>>,
    mss_q: DFF<Bits<16>>,
    window_scale_q: DFF<Bits<4>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Logic for PeerLatch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, port_q, mss_q, window_scale_q);
        if self.take.val() {
            self.port_q.d.next = self.port.val();
            self.mss_q.d.next = self.mss.val();
            self.window_scale_q.d.next = self.window_scale.val();
        }
        self.held_port.next = self.port_q.q.val();
        self.held_mss.next = self.mss_q.q.val();
        self.held_window_scale.next = self.window_scale_q.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{cycle, settle};

    fn step(p: &mut PeerLatch) {
        cycle(p, |p: &mut PeerLatch, level: bool| p.clock.next = Clock::from(level));
    }

    fn show(p: &mut PeerLatch, port: u64, mss: u64, ws: u64) {
        p.port.next = bits(port);
        p.mss.next = bits(mss);
        p.window_scale.next = bits(ws);
        settle(p);
    }

    fn held(p: &PeerLatch) -> (Bits<16>, Bits<16>, Bits<4>) {
        (p.held_port.val(), p.held_mss.val(), p.held_window_scale.val())
    }

    /// The values at `take` are held; later inputs change nothing.
    #[test]
    fn holds_what_it_took() {
        let mut p = PeerLatch::default();
        p.connect_all();
        show(&mut p, 5001, 1460, 7);
        p.take.next = true;
        settle(&mut p);
        step(&mut p);
        p.take.next = false;
        show(&mut p, 80, 536, 2);
        step(&mut p);
        step(&mut p);
        assert_eq!(held(&p), (bits(5001), bits(1460), bits(7)));
    }
}
