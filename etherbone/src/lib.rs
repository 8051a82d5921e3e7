//! Etherbone over TCP, as LiteX's `litex_server` speaks it, so that LiteX's
//! `RemoteClient` and `litex_cli` can read and write the registers of the
//! virtual board, and a Rust [`Client`] can too.
//!
//! - [`codec`]: packets, byte for byte as LiteX 2024.12's
//!   `litex/tools/remote/etherbone.py` encodes them.
//! - [`spawn_server`], [`spawn_server_with`]: the TCP server; each record's
//!   accesses go to the simulation loop as one [`BusRequest`];
//!   [`ServerOptions`] are its limits (idle time, connections, the map's span).
//! - [`Client`]: the Rust client, implementing [`RegisterBus`].
//! - [`MemoryBus`]: a map-backed [`RegisterBus`] for tests; [`serve_requests`]
//!   answers a server's requests with any `RegisterBus`.
//!
//! # Wire format
//!
//! Everything is big-endian. A packet is an 8-byte header and records:
//!
//! ```text
//! header  | 4e 6f | ver<<4 | nr<<2 | pr<<1 | pf | asize<<4 | psize | 00 00 00 00 |
//!           magic   version 1, flags: no-reads, probe-reply, probe;
//!                   address and port sizes in bytes (LiteX: 4 and 4 -> 0x44)
//! record  | flags | byte enable | wcount | rcount |
//!         [ write base address, wcount data words ]        if wcount > 0
//!         [ read base (return) address, rcount addresses ] if rcount > 0
//! ```
//!
//! Addresses are `asize` bytes (4, or 8 for 64-bit), data words always 4.
//! The record flags, as LiteX places them: `bca` 0x01, `rca` 0x02 (read from
//! config space), `rff` 0x04, `cyc` 0x10, `wca` 0x20 (write to config space),
//! `wff` 0x40 (all writes to one address). The Etherbone specification and its
//! reference implementation put the same flags in the mirrored bit order
//! (`bca` 0x80 ... `wff` 0x02); this crate follows LiteX, its peer.
//!
//! Over TCP there is no length field: like LiteX, a packet is the header plus
//! exactly one record whose counts give its length. Writes are posted and
//! answered by nothing; reads are answered by a packet of one record that
//! carries the read values as writes to the requested return address. A
//! LiteX read of n words is one record of n reads and gets one answer record.
//! A probe (`pf`) is a header alone, answered with `pr` and `nr` set.
//!
//! # Server-information line
//!
//! On connection the server first sends `<comm>:<host>:<port>` — ASCII, one
//! write, no line terminator — as `litex_server` does (for example
//! `CommUDP:localhost:1234`); `RemoteClient.open()` waits for it, reading
//! at most 128 bytes. This crate's servers announce
//! [`ServerInfo::DEFAULT_COMM`] (`CommVirtualBoard`) unless told otherwise,
//! with the listener's IP address and port: `CommVirtualBoard:127.0.0.1:1234`.
//!
//! # How an AXI error reaches a client
//!
//! Etherbone has no error field in an answer. The server therefore:
//!
//! 1. answers a failed read (SLVERR or DECERR) with `0xFFFF_FFFF`
//!    ([`FAILED_READ_VALUE`]), what a PCIe host reads from a failed access;
//!    a failed write, being posted, has no answer;
//! 2. prints one line per failed access on stderr
//!    (`etherbone: 127.0.0.1:50000: read 0x00000100 failed: SLVERR (bus error 3)`)
//!    and counts it ([`ServerHandle::bus_errors`]);
//! 3. keeps, per connection, the specification's error shift register and
//!    serves it in Etherbone config space (records with `rca`): every bus
//!    access shifts in one bit, 1 if it failed, the newest in bit 0;
//!    config address 0x0 holds its upper and 0x4 ([`CONFIG_ERROR_LOW`]) its
//!    lower 32 bits; 0x8/0xC is the SDB address (0: none); 0x10
//!    ([`CONFIG_BUS_ERROR_COUNT`]) the server's failed-access count. Config
//!    reads are not bus accesses and do not shift the register. Config-space
//!    writes are ignored.
//!
//! The Rust [`Client`] sends, with every access and in the same TCP write, a
//! config read of 0x4, and returns [`BusError::Response`] (kind
//! [`AxiResp::Error`]: Etherbone cannot say SLVERR or DECERR) when bit 0 is
//! set. A LiteX script can do the same with `EtherboneRecord.rca = 1`.
//!
//! Accesses that never complete count as failed the same way: when the
//! simulation does not answer within [`ServerInfo::reply_timeout`] (1.5 s by
//! default, below the 2 s after which `RemoteClient` gives up), when its
//! request receiver is gone, or when a record's byte enable is not 0xF.
//!
//! # Packets sent together run together
//!
//! The server reads every whole packet a client has already sent (one TCP
//! write of several packets, as [`Client::write32_all`] sends them) and
//! hands all their bus accesses to the simulation as one [`BusRequest`],
//! in order, then sends the answers in order. A board's Etherbone core runs
//! a pipelined stream back to back; served a packet at a time, the
//! simulation loop would run on between them, and the `ctrl.start` writes
//! of sessions started together would land hundreds of cycles apart, so
//! that the first session had the link to itself and measured a higher
//! rate than the others.
//!
//! # Addresses outside the register map
//!
//! A server given the map's span ([`ServerOptions::register_span`]; the
//! virtual board gives `1 << RegisterMap::address_bits()`, 0x800 today)
//! refuses every access at or above it itself, before the simulation sees
//! it: a bus that decodes only the map's address bits would otherwise alias
//! 0x854 onto 0x054. The access fails as an error response does: a read
//! answers `0xFFFF_FFFF`, the error shift register gets its 1 bit, and one
//! line is printed (`etherbone: 127.0.0.1:50000: write 0x00000854 <-
//! 0x00000001 failed: outside the register map (0x0000..0x07FF) (bus error
//! 1)`). Accesses inside the span in the same record still run.
//!
//! A record's write burst is checked address by address, each at its own
//! address: a burst from 0xFFFFFFFC runs on to 0x1_0000_0000 and beyond,
//! which no 32-bit bus has, so those writes are refused the same way
//! (`write 0x100000000 <- ...`), with or without a span; the burst never
//! wraps onto 0x0.
//!
//! # Connections
//!
//! One thread per connection, at most [`ServerOptions::max_connections`]
//! (64 by default) at once: one more is closed as soon as it is accepted,
//! with a line on stderr. A connection on which nothing is received for
//! [`ServerOptions::idle_timeout`] (60 s by default; the virtual board's
//! `--idle-timeout`) is closed with the line `etherbone: 127.0.0.1:50000:
//! connection closed: nothing received for 60 s (the server's idle limit)`,
//! so forgotten clients do not hold threads for ever. The limit counts only
//! the time the server waits for the client's bytes, not the time a request
//! spends on the bus. Sending is bounded too: each answer must be sent
//! whole within [`ServerOptions::write_timeout`] (10 s by default), so a
//! client that pipelines requests and never reads the answers (its socket
//! buffers full, a few MB) is closed with `etherbone: 127.0.0.1:50000:
//! connection closed: an answer could not be sent within 10 s, the client
//! reads nothing (the server's write limit)`, and its place among the
//! connections is free again. The Rust [`Client`] notices such a close before its
//! next access and connects again; LiteX's `RemoteClient` does not, so a
//! LiteX session left alone for longer must `open()` again.
//!
//! # Limits
//!
//! - 32-bit data and addresses, byte enable 0xF only; a packet with 64-bit
//!   addresses closes the connection (the codec itself handles them).
//! - Over TCP one record per packet, at most 255 writes and 255 reads.
//! - A request whose reply time-out passed may still be performed by the
//!   simulation later; its writes then land after the client was told they
//!   failed.
//! - A malformed packet (wrong magic, version or address size, or a stream
//!   that ends mid-packet) closes that connection, with a line on stderr; the
//!   stream cannot be resynchronised. Other connections carry on.
//! - The server-information line has no terminator; a client that received it
//!   split in two TCP segments could misread it (LiteX's client as well).

pub mod bus;
pub mod client;
pub mod codec;
pub mod litex;
pub mod server;

pub use bus::{AxiResp, BusError, MemoryBus, Op, RegisterBus};
pub use client::Client;
pub use server::{
    serve_requests, spawn_server, spawn_server_with, BusRequest, InfoError, ServerHandle, ServerInfo, ServerOptions,
    CONFIG_BUS_ERROR_COUNT, CONFIG_ERROR_HIGH, CONFIG_ERROR_LOW, FAILED_READ_VALUE,
};
