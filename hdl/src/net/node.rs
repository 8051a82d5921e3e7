//! The network node (part 1 of the open engine): receiver, frame RAM,
//! descriptor FIFO, transmitter and ARP state wired together, between a
//! vendor MAC's AXI4-Stream and (later) the TCP engine; the RTL of
//! `net_model::NetNode`.
//!
//! ```text
//!  s_t* --> rx --ram_write--> ram --read_data--> tx --> m_t*
//!            \--push (answers)--> fifo --head--> /
//!  arp --request (when rx does not push)--> fifo     tx --tail--> rx
//!  rx --learn/resolved--> arp --awaiting--> rx
//!  pulses: frames_in, frames_out, arp_requests_answered, arp_replies_received,
//!          arp_requests_sent, icmp_echoes_answered, dropped[20:0]
//! ```
//!
//! The frame RAM holds two frames of 14 + mtu bytes (`crate::net::ram_depth`),
//! the FIFO eight answers; `dropped` bit i is reason i of net_model's
//! `DropReason::ALL`. The ports of the register file's step (counters,
//! `toe_mode`, addresses, `init`) are here as plain inputs and pulses.
//!
//! `reset` (synchronous, active high, any number of cycles) returns the node
//! to its state at configuration: the descriptor FIFO and the frame RAM's
//! pointers empty, rx, tx and ARP idle (ARP as before the first `init`: no
//! target MAC, `init_done` low), no event pulse pending. Frames are dropped
//! whole and uncounted (no `frames_in`, no `dropped` pulse): those whose
//! decision is in flight, those whose beats arrive while `reset` is high, and
//! the rest of a frame whose first beat came before or during reset (its
//! beats are skipped to its `tlast`). The first frame counted is one whose
//! first beat comes after reset falls. The transmitter stops where it is:
//! a frame it is sending is cut short on `m_t*` (no `tlast`), so reset is
//! meant for a link that is down (the MAC in reset too, as `user_rst`
//! does), when no frame is on the wire.

use rust_hdl::prelude::*;

use super::arp::ArpClient;
use super::desc_fifo::DescFifo;
use super::frame_ram::FrameRam;
use super::rx::NetRx;
use super::tx::NetTx;
use super::{check_params, ram_depth, Desc, DESC_BITS, DROP_REASONS, KIND_ARP_REQUEST};
use crate::verilog::HdlError;

#[derive(LogicBlock)]
pub struct NetNode<const W: usize, const K: usize> {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high (the top drives it from `user_rst`);
    /// see the module's notes for what it drops.
    pub reset: Signal<In, Bit>,
    // ---- Frames from the MAC (AXI4-Stream, no tready).
    /// Beat, byte 0 (first on the wire) in bits 7:0.
    pub s_tdata: Signal<In, Bits<W>>,
    /// Byte enables, contiguous from bit 0.
    pub s_tkeep: Signal<In, Bits<K>>,
    /// Last beat of a frame.
    pub s_tlast: Signal<In, Bit>,
    /// Beat valid.
    pub s_tvalid: Signal<In, Bit>,
    /// The MAC's frame error (bad FCS).
    pub s_tuser: Signal<In, Bit>,
    // ---- Frames to the MAC (AXI4-Stream).
    /// Beat, byte 0 in bits 7:0.
    pub m_tdata: Signal<Out, Bits<W>>,
    /// Byte enables, contiguous from bit 0.
    pub m_tkeep: Signal<Out, Bits<K>>,
    /// Last beat of a frame.
    pub m_tlast: Signal<Out, Bit>,
    /// Beat valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// The MAC takes the beat.
    pub m_tready: Signal<In, Bit>,
    // ---- Configuration.
    /// The node's MAC, first byte on the wire in bits 47:40.
    pub fpga_mac: Signal<In, Bits<48>>,
    /// The node's IPv4 address, first byte in bits 31:24.
    pub fpga_ip: Signal<In, Bits<32>>,
    /// The target's IPv4 address.
    pub target_ip: Signal<In, Bits<32>>,
    /// The target's MAC in fixed-MAC mode.
    pub fixed_mac: Signal<In, Bits<48>>,
    /// ARP mode (`toe_mode`): 0 client, 1 server, 2 fixed MAC.
    pub mode: Signal<In, Bits<2>>,
    /// Cycles between two client-mode ARP requests, 1 or more.
    pub arp_retry_cycles: Signal<In, Bits<32>>,
    /// Client-mode ARP requests before `arp_failed`, 1 .. 255.
    pub arp_attempts: Signal<In, Bits<8>>,
    /// `toe_init` (one-cycle pulse).
    pub init: Signal<In, Bit>,
    // ---- Status.
    /// `toe_init_done`.
    pub init_done: Signal<Out, Bit>,
    /// Client mode: every ARP attempt went unanswered.
    pub arp_failed: Signal<Out, Bit>,
    /// The target's MAC (valid with `target_known`).
    pub target_mac: Signal<Out, Bits<48>>,
    /// The target's MAC is known.
    pub target_known: Signal<Out, Bit>,
    // ---- Events (one-cycle pulses, for the counters).
    /// A frame came from the MAC.
    pub frames_in: Signal<Out, Bit>,
    /// A frame went to the MAC.
    pub frames_out: Signal<Out, Bit>,
    /// An ARP request for fpga_ip was answered.
    pub arp_requests_answered: Signal<Out, Bit>,
    /// The awaited ARP reply resolved the target's MAC.
    pub arp_replies_received: Signal<Out, Bit>,
    /// A client-mode ARP request was sent.
    pub arp_requests_sent: Signal<Out, Bit>,
    /// An ICMP echo request was answered.
    pub icmp_echoes_answered: Signal<Out, Bit>,
    /// A frame was dropped: bit i is reason i of net_model's `DropReason::ALL`.
    pub dropped: Signal<Out, Bits<DROP_REASONS>>,
    rx: NetRx<W, K>,
    ram: FrameRam<W>,
    fifo: DescFifo,
    tx: NetTx<W, K>,
    arp: ArpClient,
    take_request: Signal<Local, Bit>,
    c_arp_request: Constant<Bits<DESC_BITS>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> NetNode<W, K> {
    /// A node for this MTU (576 ..= 9000); its frame RAM holds two frames.
    pub fn new(mtu: usize) -> Result<Self, HdlError> {
        check_params(W, K, mtu)?;
        let depth = ram_depth(K, mtu);
        let request = Desc { kind: KIND_ARP_REQUEST, len: 60, ..Desc::default() };
        Ok(NetNode {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tlast: Default::default(),
            s_tvalid: Default::default(),
            s_tuser: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            fpga_mac: Default::default(),
            fpga_ip: Default::default(),
            target_ip: Default::default(),
            fixed_mac: Default::default(),
            mode: Default::default(),
            arp_retry_cycles: Default::default(),
            arp_attempts: Default::default(),
            init: Default::default(),
            init_done: Default::default(),
            arp_failed: Default::default(),
            target_mac: Default::default(),
            target_known: Default::default(),
            frames_in: Default::default(),
            frames_out: Default::default(),
            arp_requests_answered: Default::default(),
            arp_replies_received: Default::default(),
            arp_requests_sent: Default::default(),
            icmp_echoes_answered: Default::default(),
            dropped: Default::default(),
            rx: NetRx::new(mtu, depth),
            ram: FrameRam::new(depth),
            fifo: DescFifo::default(),
            tx: NetTx::new(depth),
            arp: ArpClient::default(),
            take_request: Default::default(),
            c_arp_request: Constant::new(request.pack()),
            verilog_name: Default::default(),
        })
    }

    /// Beats of the frame RAM.
    pub fn ram_depth(&self) -> usize {
        ram_depth(K, self.rx_mtu())
    }

    fn rx_mtu(&self) -> usize {
        self.rx.mtu()
    }
}

impl<const W: usize, const K: usize> Logic for NetNode<W, K> {
    #[hdl_gen]
    fn update(&mut self) {
        self.rx.clock.next = self.clock.val();
        self.ram.clock.next = self.clock.val();
        self.fifo.clock.next = self.clock.val();
        self.tx.clock.next = self.clock.val();
        self.arp.clock.next = self.clock.val();
        self.rx.reset.next = self.reset.val();
        self.fifo.reset.next = self.reset.val();
        self.tx.reset.next = self.reset.val();
        self.arp.reset.next = self.reset.val();
        // Receive.
        self.rx.s_tdata.next = self.s_tdata.val();
        self.rx.s_tkeep.next = self.s_tkeep.val();
        self.rx.s_tlast.next = self.s_tlast.val();
        self.rx.s_tvalid.next = self.s_tvalid.val();
        self.rx.s_tuser.next = self.s_tuser.val();
        self.rx.fpga_mac.next = self.fpga_mac.val();
        self.rx.fpga_ip.next = self.fpga_ip.val();
        self.rx.target_ip.next = self.target_ip.val();
        self.rx.mode.next = self.mode.val();
        self.rx.awaiting.next = self.arp.awaiting.val();
        self.rx.tail.next = self.tx.tail.val();
        self.rx.fifo_full.next = self.fifo.full.val();
        // Frame RAM.
        self.ram.write.next = self.rx.ram_write.val();
        self.ram.write_addr.next = self.rx.ram_addr.val();
        self.ram.write_data.next = self.rx.ram_data.val();
        self.ram.read_addr.next = self.tx.read_addr.val();
        // Descriptors: the receiver's answers first, a due ARP request when
        // the receiver does not push.
        self.take_request.next = self.arp.request.val() & !self.rx.push.val() & !self.fifo.full.val();
        self.fifo.push.next = self.rx.push.val() | self.take_request.val();
        self.fifo.push_data.next = self.rx.push_data.val();
        if self.take_request.val() {
            self.fifo.push_data.next = self.c_arp_request.val();
        }
        self.fifo.pop.next = self.tx.pop.val();
        // Transmit.
        self.tx.fpga_mac.next = self.fpga_mac.val();
        self.tx.fpga_ip.next = self.fpga_ip.val();
        self.tx.target_ip.next = self.target_ip.val();
        self.tx.head.next = self.fifo.head.val();
        self.tx.empty.next = self.fifo.empty.val();
        self.tx.read_data.next = self.ram.read_data.val();
        self.tx.m_tready.next = self.m_tready.val();
        self.m_tdata.next = self.tx.m_tdata.val();
        self.m_tkeep.next = self.tx.m_tkeep.val();
        self.m_tlast.next = self.tx.m_tlast.val();
        self.m_tvalid.next = self.tx.m_tvalid.val();
        // ARP.
        self.arp.init.next = self.init.val();
        self.arp.mode.next = self.mode.val();
        self.arp.retry_cycles.next = self.arp_retry_cycles.val();
        self.arp.attempts.next = self.arp_attempts.val();
        self.arp.fixed_mac.next = self.fixed_mac.val();
        self.arp.learn.next = self.rx.learn.val();
        self.arp.resolved.next = self.rx.resolved.val();
        self.arp.learn_mac.next = self.rx.learn_mac.val();
        self.arp.req_taken.next = self.take_request.val();
        self.init_done.next = self.arp.init_done.val();
        self.arp_failed.next = self.arp.arp_failed.val();
        self.target_mac.next = self.arp.target_mac.val();
        self.target_known.next = self.arp.target_known.val();
        // Events.
        self.frames_in.next = self.rx.frame_in.val();
        self.frames_out.next = self.tx.frame_out.val();
        self.arp_requests_answered.next = self.rx.arp_answered.val();
        self.arp_replies_received.next = self.rx.resolved.val();
        self.arp_requests_sent.next = self.arp.requests_sent.val();
        self.icmp_echoes_answered.next = self.rx.echo_answered.val();
        self.dropped.next = self.rx.dropped.val();
    }
}
