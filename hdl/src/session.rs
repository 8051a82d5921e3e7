//! One TCP session's user logic: today the transmit path (traffic generator);
//! the verifier, rate limiters and session controller join it here.
//!
//! ```text
//!   start/abort/sizes/pattern --> TrafficGenerator --> tx_tdata/tkeep/tlast/tvalid
//!                                   (enable = 1)    <-- tx_tready
//!   busy/done/bytes_sent <-----------'
//! ```
//!
//! The assembly (`gen`) instantiates one `<design>_session` module per
//! configured session inside the top; the top's port names are `s<n>_<port>`.

use rust_hdl::prelude::*;

use crate::traffic_generator::TrafficGenerator;

#[derive(LogicBlock)]
pub struct Session<const W: usize, const K: usize> {
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Start a transfer (one-cycle pulse).
    pub start: Signal<In, Bit>,
    /// Abort the transfer (one-cycle pulse).
    pub abort_req: Signal<In, Bit>,
    /// Transfer size in bytes, 1 .. 2^48-1.
    pub transfer_size: Signal<In, Bits<48>>,
    /// Packet size in bytes (whole beats; 0 = none).
    pub packet_size: Signal<In, Bits<48>>,
    /// 1: incremental pattern, 0: dummy data.
    pub pattern: Signal<In, Bit>,
    /// Transmit in progress.
    pub tx_busy: Signal<Out, Bit>,
    /// Last transmit completed.
    pub tx_done: Signal<Out, Bit>,
    /// Bytes accepted by the TOE since start.
    pub tx_bytes: Signal<Out, Bits<64>>,
    /// Transmit stream to the TOE.
    pub tx_tdata: Signal<Out, Bits<W>>,
    pub tx_tkeep: Signal<Out, Bits<K>>,
    pub tx_tlast: Signal<Out, Bit>,
    pub tx_tvalid: Signal<Out, Bit>,
    pub tx_tready: Signal<In, Bit>,
    generator: TrafficGenerator<W, K>,
}

impl<const W: usize, const K: usize> Session<W, K> {
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            start: Default::default(),
            abort_req: Default::default(),
            transfer_size: Default::default(),
            packet_size: Default::default(),
            pattern: Default::default(),
            tx_busy: Default::default(),
            tx_done: Default::default(),
            tx_bytes: Default::default(),
            tx_tdata: Default::default(),
            tx_tkeep: Default::default(),
            tx_tlast: Default::default(),
            tx_tvalid: Default::default(),
            tx_tready: Default::default(),
            generator: TrafficGenerator::new(),
        }
    }
}

impl<const W: usize, const K: usize> Default for Session<W, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const K: usize> Logic for Session<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        self.generator.clock.next = self.clock.val();
        self.generator.reset.next = self.reset.val();
        self.generator.start.next = self.start.val();
        self.generator.abort_req.next = self.abort_req.val();
        self.generator.transfer_size.next = self.transfer_size.val();
        self.generator.packet_size.next = self.packet_size.val();
        self.generator.pattern.next = self.pattern.val();
        self.generator.enable.next = true;
        self.generator.m_tready.next = self.tx_tready.val();
        self.tx_tdata.next = self.generator.m_tdata.val();
        self.tx_tkeep.next = self.generator.m_tkeep.val();
        self.tx_tlast.next = self.generator.m_tlast.val();
        self.tx_tvalid.next = self.generator.m_tvalid.val();
        self.tx_busy.next = self.generator.busy.val();
        self.tx_done.next = self.generator.done.val();
        self.tx_bytes.next = self.generator.bytes_sent.val();
    }
}
