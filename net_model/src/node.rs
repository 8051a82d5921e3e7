//! The network node: the receive checks, the answers, client-mode ARP
//! resolution and the transmit buffer.

use std::collections::VecDeque;
use std::net::Ipv4Addr;

use crate::checksum;
use crate::config::{ArpMode, ConfigError, NodeConfig};
use crate::counters::{Counter, Counters, DropReason};
use crate::frame::{arp, be16, eth, icmp, ip_at, ipv4, mac_at};
use crate::frames;
use crate::tcp::{Addresses, Request, SegmentSink, TcpEngine};
use crate::Mac;

/// Where client-mode resolution of target_ip stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Resolution {
    /// No `init` yet, or not client mode.
    Idle,
    /// `sent` requests are out; at `due` the next one goes (or, after the
    /// last, resolution fails).
    Resolving { sent: u32, due: u64 },
    /// The target's MAC is known.
    Resolved,
    /// Every attempt went unanswered.
    Failed,
}

/// The network node: give it frames with [`NetNode::receive`], take its
/// frames with [`NetNode::transmit`].
#[derive(Clone, Debug)]
pub struct NetNode {
    cfg: NodeConfig,
    initialised: bool,
    target_mac: Option<Mac>,
    resolution: Resolution,
    tx: TxBuffer,
    tcp: Option<TcpEngine>,
    counters: Counters,
}

/// The store-and-forward transmit buffer: whole frames, padded.
#[derive(Clone, Debug)]
struct TxBuffer {
    frames: VecDeque<Vec<u8>>,
    used: usize,
    capacity: usize,
}

impl SegmentSink for TxBuffer {
    /// Puts a whole frame (padded) in the buffer, or nothing.
    fn offer(&mut self, frame: Vec<u8>) -> bool {
        let frame = frames::pad(frame);
        if self.used + frame.len() > self.capacity {
            return false;
        }
        self.used += frame.len();
        self.frames.push_back(frame);
        true
    }
}

impl NetNode {
    /// A node with a checked configuration, before its first `init`.
    pub fn new(cfg: NodeConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let tcp = match &cfg.tcp {
            Some(t) => Some(TcpEngine::new(t.clone(), cfg.mtu)?),
            None => None,
        };
        let tx = TxBuffer { frames: VecDeque::new(), used: 0, capacity: cfg.tx_buffer_bytes };
        Ok(NetNode {
            cfg,
            initialised: false,
            target_mac: None,
            resolution: Resolution::Idle,
            tx,
            tcp,
            counters: Counters::new(),
        })
    }

    /// `toe_init`: forgets the learnt target MAC and any ARP in progress,
    /// keeps the counters and the frames already in the transmit buffer;
    /// client mode starts resolving `target_ip` now (the first request goes
    /// into the transmit buffer at `now`).
    pub fn init(&mut self, now: u64) {
        self.initialised = true;
        self.target_mac = match self.cfg.mode {
            ArpMode::FixedMac => Some(self.cfg.target_mac),
            ArpMode::Client | ArpMode::Server => None,
        };
        self.resolution = match self.cfg.mode {
            ArpMode::Client => Resolution::Resolving { sent: 0, due: now },
            ArpMode::Server | ArpMode::FixedMac => Resolution::Idle,
        };
        self.tick(now);
    }

    /// `toe_init_done`: client mode once the target's MAC is resolved;
    /// server and fixed-MAC mode at once after `init`. Never before the first `init`.
    pub fn init_done(&self) -> bool {
        match self.cfg.mode {
            ArpMode::Client => self.resolution == Resolution::Resolved,
            ArpMode::Server | ArpMode::FixedMac => self.initialised,
        }
    }

    /// Client mode: every ARP attempt went unanswered (until the next `init`).
    pub fn arp_failed(&self) -> bool {
        self.resolution == Resolution::Failed
    }

    /// The target's MAC: resolved (client), learnt from the target's ARP
    /// request (server), or the configured one (fixed, from the first `init` on).
    pub fn target_mac(&self) -> Option<Mac> {
        self.target_mac
    }

    /// One frame from the MAC (`frame_error` is `tuser`: the MAC saw a bad
    /// FCS). `now` in user-clock cycles, never decreasing.
    pub fn receive(&mut self, frame: &[u8], frame_error: bool, now: u64) {
        self.counters.bump(Counter::FramesIn);
        self.tick(now);
        if let Err(reason) = self.take(frame, frame_error, now) {
            self.counters.bump(Counter::Dropped(reason));
        }
        // What the frame made due (an ACK, an RST) goes at once.
        self.poll_tcp(now);
    }

    /// The next frame for the MAC, if any. Sends due ARP requests in client
    /// mode first: call it whenever time advances.
    pub fn transmit(&mut self, now: u64) -> Option<Vec<u8>> {
        self.tick(now);
        let frame = self.tx.frames.pop_front()?;
        self.tx.used -= frame.len();
        self.counters.bump(Counter::FramesOut);
        Some(frame)
    }

    /// The value of one counter.
    pub fn count(&self, c: Counter) -> u64 {
        self.counters.get(c)
    }

    /// The configuration the node was built with.
    pub fn config(&self) -> &NodeConfig {
        &self.cfg
    }

    /// Bytes of frames waiting in the transmit buffer.
    pub fn tx_buffer_used(&self) -> usize {
        self.tx.used
    }

    /// Frames waiting in the transmit buffer.
    pub fn tx_frames_waiting(&self) -> usize {
        self.tx.frames.len()
    }

    /// The TCP engine, if the configuration has one.
    pub fn tcp(&self) -> Option<&TcpEngine> {
        self.tcp.as_ref()
    }

    /// The TCP engine, to read its sessions' `rx` streams.
    pub fn tcp_mut(&mut self) -> Option<&mut TcpEngine> {
        self.tcp.as_mut()
    }

    /// A connection request of `session` at `now`, with `toe_init_done` as
    /// the node has it. Ignored without a TCP engine.
    pub fn tcp_request(&mut self, session: usize, req: Request, now: u64) {
        let initialised = self.init_done();
        if let Some(tcp) = self.tcp.as_mut() {
            tcp.request(session, req, initialised, now);
        }
        self.poll_tcp(now);
    }

    /// The addresses the TCP engine sends with.
    fn addresses(&self) -> Addresses {
        Addresses {
            fpga_mac: self.cfg.fpga_mac,
            fpga_ip: self.cfg.fpga_ip,
            target_ip: self.cfg.target_ip,
            target_mac: if self.init_done() { self.target_mac } else { None },
        }
    }

    /// The TCP engine's due segments into the transmit buffer, while they fit.
    fn poll_tcp(&mut self, now: u64) {
        let addrs = self.addresses();
        if let Some(tcp) = self.tcp.as_mut() {
            tcp.poll(now, &addrs, &mut self.tx);
        }
    }

    /// Client-mode timing: sends the request that is due, or declares
    /// failure once the last request's wait is over. A request that does not
    /// fit in the transmit buffer stays due and goes at a later tick.
    fn tick(&mut self, now: u64) {
        self.tick_arp(now);
        self.poll_tcp(now);
    }

    fn tick_arp(&mut self, now: u64) {
        let Resolution::Resolving { sent, due } = self.resolution else { return };
        if now < due {
            return;
        }
        if sent >= self.cfg.arp_attempts {
            self.resolution = Resolution::Failed;
            return;
        }
        let request = frames::arp_request(self.cfg.fpga_mac, self.cfg.fpga_ip, self.cfg.target_ip);
        if self.tx.offer(request) {
            self.counters.bump(Counter::ArpRequestsSent);
            self.resolution =
                Resolution::Resolving { sent: sent + 1, due: now.saturating_add(self.cfg.arp_retry_cycles) };
        }
    }

    /// Answers `frame`, or says why it is dropped. The checks run in the
    /// order of [`DropReason::ALL`].
    fn take(&mut self, frame: &[u8], frame_error: bool, now: u64) -> Result<(), DropReason> {
        if frame_error {
            return Err(DropReason::FrameError);
        }
        if frame.len() < eth::MIN_FRAME_LEN {
            return Err(DropReason::Runt);
        }
        if frame.len() > self.cfg.max_frame_len() {
            return Err(DropReason::Oversize);
        }
        let dst = mac_at(frame, eth::DST);
        if dst != self.cfg.fpga_mac && dst != eth::BROADCAST {
            return Err(DropReason::NotOurMac);
        }
        let payload = &frame[eth::HEADER_LEN..];
        match be16(frame, eth::ETHERTYPE) {
            eth::TYPE_VLAN | eth::TYPE_QINQ => Err(DropReason::VlanTag),
            eth::TYPE_ARP => self.take_arp(payload),
            eth::TYPE_IPV4 => self.take_ipv4(mac_at(frame, eth::SRC), payload, now),
            _ => Err(DropReason::EtherTypeUnknown),
        }
    }

    fn take_arp(&mut self, p: &[u8]) -> Result<(), DropReason> {
        if p.len() < arp::LEN
            || be16(p, arp::HTYPE) != arp::HTYPE_ETHERNET
            || be16(p, arp::PTYPE) != eth::TYPE_IPV4
            || p[arp::HLEN] != 6
            || p[arp::PLEN] != 4
        {
            return Err(DropReason::ArpMalformed);
        }
        let oper = be16(p, arp::OPER);
        if oper != arp::OPER_REQUEST && oper != arp::OPER_REPLY {
            return Err(DropReason::ArpMalformed);
        }
        if self.cfg.mode == ArpMode::FixedMac || ip_at(p, arp::TPA) != self.cfg.fpga_ip {
            return Err(DropReason::ArpNotForUs);
        }
        let sha = mac_at(p, arp::SHA);
        let spa = ip_at(p, arp::SPA);
        if oper == arp::OPER_REQUEST {
            if self.cfg.mode == ArpMode::Server && spa == self.cfg.target_ip {
                self.target_mac = Some(sha);
            }
            let reply = frames::arp_reply(self.cfg.fpga_mac, self.cfg.fpga_ip, sha, spa);
            if !self.tx.offer(reply) {
                return Err(DropReason::TxBufferFull);
            }
            self.counters.bump(Counter::ArpRequestsAnswered);
            return Ok(());
        }
        let awaited = matches!(self.resolution, Resolution::Resolving { .. }) && spa == self.cfg.target_ip;
        if !awaited {
            return Err(DropReason::ArpReplyIgnored);
        }
        self.target_mac = Some(sha);
        self.resolution = Resolution::Resolved;
        self.counters.bump(Counter::ArpRepliesReceived);
        Ok(())
    }

    fn take_ipv4(&mut self, src_mac: Mac, p: &[u8], now: u64) -> Result<(), DropReason> {
        // The runt check leaves at least 46 bytes, more than an IPv4 header.
        let version_ihl = p[ipv4::VERSION_IHL];
        if version_ihl >> 4 != 4 {
            return Err(DropReason::Ipv4Version);
        }
        match usize::from(version_ihl & 0xf) * 4 {
            ihl if ihl < ipv4::HEADER_LEN => return Err(DropReason::Ipv4HeaderLength),
            ihl if ihl > ipv4::HEADER_LEN => return Err(DropReason::Ipv4Options),
            _ => {}
        }
        let total = usize::from(be16(p, ipv4::TOTAL_LEN));
        if total < ipv4::HEADER_LEN || total > p.len() {
            return Err(DropReason::Ipv4Length);
        }
        if !checksum::is_valid(&p[..ipv4::HEADER_LEN]) {
            return Err(DropReason::Ipv4Checksum);
        }
        if ip_at(p, ipv4::DST) != self.cfg.fpga_ip {
            return Err(DropReason::Ipv4NotForUs);
        }
        let flags_frag = be16(p, ipv4::FLAGS_FRAG);
        if flags_frag & (ipv4::FLAG_MF | ipv4::FRAG_OFFSET_MASK) != 0 {
            return Err(DropReason::Ipv4Fragment);
        }
        if p[ipv4::PROTOCOL] == ipv4::PROTOCOL_TCP {
            let addrs = self.addresses();
            if let Some(tcp) = self.tcp.as_mut() {
                tcp.receive(ip_at(p, ipv4::SRC), &addrs, &p[ipv4::HEADER_LEN..total], now);
                return Ok(());
            }
        }
        if p[ipv4::PROTOCOL] != ipv4::PROTOCOL_ICMP {
            return Err(DropReason::Ipv4Protocol);
        }
        self.take_icmp(src_mac, ip_at(p, ipv4::SRC), &p[ipv4::HEADER_LEN..total])
    }

    fn take_icmp(&mut self, src_mac: Mac, src_ip: Ipv4Addr, m: &[u8]) -> Result<(), DropReason> {
        if m.len() < icmp::HEADER_LEN {
            return Err(DropReason::IcmpTruncated);
        }
        if !checksum::is_valid(m) {
            return Err(DropReason::IcmpChecksum);
        }
        if m[icmp::TYPE] != icmp::TYPE_ECHO_REQUEST || m[icmp::CODE] != 0 {
            return Err(DropReason::IcmpNotEchoRequest);
        }
        let reply = frames::echo_reply(
            frames::Ends { src_mac: self.cfg.fpga_mac, dst_mac: src_mac, src_ip: self.cfg.fpga_ip, dst_ip: src_ip },
            be16(m, icmp::ID),
            be16(m, icmp::SEQ),
            &m[icmp::HEADER_LEN..],
        );
        if !self.tx.offer(reply) {
            return Err(DropReason::TxBufferFull);
        }
        self.counters.bump(Counter::IcmpEchoesAnswered);
        Ok(())
    }
}
