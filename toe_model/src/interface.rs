//! The session interface of `docs/toe_interface.md` as plain data, and the
//! parameters of the model: what the user logic drives ([`GlobalOutputs`],
//! [`SessionOutputs`]), what the TOE drives back ([`SessionInputs`]), the link
//! and TOE parameters ([`LinkConfig`], [`ToeConfig`]) and the counters of one
//! link direction ([`LinkStats`]). These types are shared with `socket_toe` and
//! the testbenches; nothing here has behaviour beyond defaults.

/// The link between the two TOEs (the same in both directions).
#[derive(Clone, Debug)]
pub struct LinkConfig {
    /// TCP payload bandwidth of each direction, MB/s (10^6 B/s). Default 24_751
    /// (200G Ethernet, 9014-byte jumbo frames, MSS 8948 with TCP timestamps).
    pub payload_mb_s: u64,
    /// User clock, MHz. Default 250. One model step = one user clock cycle.
    pub user_clock_mhz: u64,
    /// One-way latency in cycles, both directions (data, ACKs, SYN, FIN). Default 250 (1 us).
    pub latency_cycles: u64,
}

impl Default for LinkConfig {
    fn default() -> Self {
        Self { payload_mb_s: 24_751, user_clock_mhz: 250, latency_cycles: 250 }
    }
}

impl LinkConfig {
    /// Long-run payload bytes per user-clock cycle of one direction.
    pub fn bytes_per_cycle(&self) -> f64 {
        self.payload_mb_s as f64 / self.user_clock_mhz as f64
    }
}

/// Parameters of one TOE core.
#[derive(Clone, Debug)]
pub struct ToeConfig {
    /// Bytes per beat, W/8 (8..=128).
    pub beat_bytes: usize,
    /// Receive buffer per session, bytes. Default 1 << 20.
    pub rx_buffer_bytes: u64,
    /// MSS this TOE announces. Default 8948.
    pub mss: u16,
    /// Active open gives up after this many cycles without an answer. Default 250_000.
    pub syn_timeout_cycles: u64,
    /// Last packet mode `normal` (2): a trailing partial beat is delivered after this many cycles without a push/FIN. Default 2_500.
    pub push_timeout_cycles: u64,
    /// Cycles from toe_init to init_done. Default 100.
    pub init_cycles: u64,
    /// `conn_req_ready` rises only after a request has been presented for this
    /// many edges. Default 0: ready is always high and a request is taken at the
    /// first edge it is presented.
    pub conn_req_ready_delay: u64,
}

impl ToeConfig {
    /// The defaults with `beat_bytes` bytes per beat.
    pub fn new(beat_bytes: usize) -> Self {
        assert!((1..=128).contains(&beat_bytes), "beat_bytes {beat_bytes} out of 1..=128");
        Self {
            beat_bytes,
            rx_buffer_bytes: 1 << 20,
            mss: 8948,
            syn_timeout_cycles: 250_000,
            push_timeout_cycles: 2_500,
            init_cycles: 100,
            conn_req_ready_delay: 0,
        }
    }

    /// The window-scale shift this TOE announces: the smallest shift so that
    /// `rx_buffer_bytes >> shift` fits in 16 bits (at most 14).
    pub fn window_scale(&self) -> u8 {
        let mut s = 0u8;
        while (self.rx_buffer_bytes >> s) > 0xFFFF && s < 14 {
            s += 1;
        }
        s
    }
}

impl Default for ToeConfig {
    /// The defaults with 128 bytes (1024 bits) per beat.
    fn default() -> Self {
        Self::new(128)
    }
}

/// Global toe_* levels/pulse one board's user logic drives (sampled at the edge).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct GlobalOutputs {
    /// `toe_init` pulse.
    pub init: bool,
    /// `toe_last_packet_mode`, a [`config::codes::LastPacketMode`] value (3, which has no name, acts as `normal`).
    pub last_packet_mode: u8,
    /// `toe_window_update_gap`: 1 KB units, 0 = off.
    pub window_update_gap: u16,
}

/// What session s of a board's user logic shows just before a rising edge.
#[derive(Clone, Default, Debug)]
pub struct SessionOutputs {
    /// `conn_req_valid`.
    pub conn_req_valid: bool,
    /// `conn_req_open`: 1 open, 0 close.
    pub conn_req_open: bool,
    /// `conn_req_active`: 1 active open, 0 passive (listen).
    pub conn_req_active: bool,
    /// `conn_req_local_port`.
    pub conn_req_local_port: u16,
    /// `conn_req_remote_port`.
    pub conn_req_remote_port: u16,
    /// `tx_tvalid`.
    pub tx_tvalid: bool,
    /// `tx_tlast`.
    pub tx_tlast: bool,
    /// The kept bytes of the TX beat, byte 0 first (tkeep is contiguous from bit 0), len 1..=beat_bytes. Empty when !tx_tvalid.
    pub tx_data: Vec<u8>,
    /// `rx_tready`.
    pub rx_tready: bool,
}

/// What the model drives into session s of a board for the coming edge.
#[derive(Clone, Default, Debug)]
pub struct SessionInputs {
    /// `conn_req_ready`.
    pub conn_req_ready: bool,
    /// `established`.
    pub established: bool,
    /// `peer_closed`.
    pub peer_closed: bool,
    /// `conn_error`.
    pub conn_error: bool,
    /// `peer_port`: the peer's local port.
    pub peer_port: u16,
    /// `peer_mss`.
    pub peer_mss: u16,
    /// `peer_window_scale`.
    pub peer_window_scale: u8,
    /// `tx_tready`.
    pub tx_tready: bool,
    /// `rx_tvalid`.
    pub rx_tvalid: bool,
    /// `rx_tlast`.
    pub rx_tlast: bool,
    /// Kept bytes of the RX beat, byte 0 first; len 1..=beat_bytes when rx_tvalid.
    pub rx_data: Vec<u8>,
}

/// Counters of one link direction (data sent by `from_board`, and the ACKs the
/// other board sent back for it).
#[derive(Clone, Debug, Default)]
pub struct LinkStats {
    /// Payload bytes taken on TX and put on the link (without duplicates).
    pub data_bytes: u64,
    /// TX beats taken.
    pub data_beats: u64,
    /// Bytes of duplicated last segments (mode dup): they use link bandwidth
    /// and the receiver drops them.
    pub dup_bytes: u64,
    /// Number of duplicated last segments.
    pub dup_segments: u64,
    /// Payload bytes taken on TX, per session.
    pub session_bytes: Vec<u64>,
    /// Bytes the receiving user logic took on RX, per session of the receiving board.
    pub session_delivered: Vec<u64>,
    /// ACKs sent on data arrival by the receiver (those that moved the window).
    pub acks: u64,
    /// Window update packets sent by the receiver (window update gap).
    pub window_updates: u64,
    /// Session-cycles in which an established session showed `tx_tvalid` but
    /// the peer's window had no room for a beat.
    pub window_stall_cycles: u64,
    /// Session-cycles in which a session showed `tx_tvalid`, had window but
    /// the link credit did not grant it (link busy / other sessions' turn).
    pub link_stall_cycles: u64,
    /// SYNs sent.
    pub syns: u64,
    /// FINs sent.
    pub fins: u64,
    /// RSTs sent.
    pub rsts: u64,
}
