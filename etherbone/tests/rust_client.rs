//! The Rust client against the Rust server, and the server against raw bytes.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use common::{start, start_opts, start_with, wait_until};
use etherbone::codec::{read_packet, Packet, PacketHeader, Record, RecordFlags};
use etherbone::{
    spawn_server, AxiResp, BusError, Client, MemoryBus, Op, RegisterBus, ServerInfo, ServerOptions, CONFIG_ERROR_LOW,
    FAILED_READ_VALUE,
};

const TIMEOUT: Duration = Duration::from_secs(5);

fn raw_connect(addr: std::net::SocketAddr) -> (TcpStream, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(TIMEOUT)).unwrap();
    let mut buf = [0u8; 128];
    let n = s.read(&mut buf).unwrap();
    (s, String::from_utf8(buf[..n].to_vec()).unwrap())
}

fn raw_transact(s: &mut TcpStream, p: &Packet) -> Packet {
    s.write_all(&p.encode().unwrap()).unwrap();
    read_packet(s).unwrap().expect("an answer")
}

#[test]
fn server_information_line_on_connect() {
    let t = start(&MemoryBus::new());
    let (mut s, line) = raw_connect(t.addr());
    assert_eq!(line, format!("CommVirtualBoard:127.0.0.1:{}", t.addr().port()));
    // Nothing else follows until the client asks.
    s.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    let mut more = [0u8; 16];
    assert!(s.read(&mut more).is_err(), "the line is all the server sends first");

    let c = Client::connect(t.addr(), TIMEOUT).unwrap();
    assert_eq!(c.server_info().comm(), "CommVirtualBoard");
    assert_eq!(c.server_info().port(), t.addr().port());
}

#[test]
fn client_reads_and_writes() {
    let mem = MemoryBus::new();
    mem.poke(0x100, 0xcafe_f00d);
    let t = start(&mem);
    let mut c = Client::connect(t.addr(), TIMEOUT).unwrap();
    assert_eq!(c.read32(0x100), Ok(0xcafe_f00d));
    assert_eq!(c.read32(0x104), Ok(0));
    c.write32(0x104, 0x1234_5678).unwrap();
    assert_eq!(mem.peek(0x104), Some(0x1234_5678));
    assert_eq!(c.read32(0x104), Ok(0x1234_5678));
    assert_eq!(c.error_status(), Ok(0));
    assert_eq!(t.server.bus_errors(), 0);
}

#[test]
fn client_reports_error_responses() {
    let mem = MemoryBus::new().with_error(0x10, AxiResp::SlvErr).with_error(0x20, AxiResp::DecErr);
    mem.poke(0x10, 7);
    let t = start(&mem);
    let mut c = Client::connect(t.addr(), TIMEOUT).unwrap();

    let e = c.read32(0x10).unwrap_err();
    assert_eq!(e, BusError::Response { addr: 0x10, resp: AxiResp::Error });
    assert!(e.is_response());
    assert_eq!(
        e.to_string(),
        "bus error at 0x00000010: an error response (SLVERR or DECERR; Etherbone does not say which)"
    );
    assert_eq!(c.write32(0x10, 1), Err(BusError::Response { addr: 0x10, resp: AxiResp::Error }));
    assert_eq!(mem.peek(0x10), Some(7), "a failed write changes nothing");
    assert_eq!(c.write32(0x20, 1), Err(BusError::Response { addr: 0x20, resp: AxiResp::Error }));
    // The connection stays usable after an error response.
    c.write32(0x24, 9).unwrap();
    assert_eq!(c.read32(0x24), Ok(9));
    // Shift register, newest access in bit 0: fail fail fail ok ok.
    assert_eq!(c.error_status(), Ok(0b11100));
    assert_eq!(t.server.bus_errors(), 3);
    assert_eq!(c.server_bus_errors(), Ok(3));
}

#[test]
fn failed_read_answers_all_ones_in_one_record() {
    let mem = MemoryBus::new().with_error(0x8, AxiResp::DecErr);
    mem.poke(0x0, 1);
    mem.poke(0x4, 2);
    let t = start(&mem);
    let (mut s, _) = raw_connect(t.addr());
    let answer = raw_transact(&mut s, &Packet::new(vec![Record::reads([0x0, 0x4, 0x8, 0x4])]));
    // LiteX's server answers: same header, one record carrying the values as writes.
    assert_eq!(answer.header, PacketHeader::default());
    assert_eq!(answer.records, vec![Record::writes(0, [1, 2, FAILED_READ_VALUE, 2])]);
    let status = Packet::new(vec![Record {
        flags: RecordFlags { rca: true, ..RecordFlags::default() },
        ..Record::reads([u64::from(CONFIG_ERROR_LOW)])
    }]);
    assert_eq!(raw_transact(&mut s, &status).records[0].writes, vec![0b0010]);
}

#[test]
fn writes_are_posted_and_ordered() {
    let mem = MemoryBus::new();
    let t = start(&mem);
    let (mut s, _) = raw_connect(t.addr());
    let mut bytes = Packet::new(vec![Record::writes(0x40, [1, 2, 3])]).encode().unwrap();
    let fifo = Record { flags: RecordFlags { wff: true, ..RecordFlags::default() }, ..Record::writes(0x50, [4, 5]) };
    bytes.extend(Packet::new(vec![fifo]).encode().unwrap());
    bytes.extend(Packet::new(vec![Record::reads([0x40, 0x44, 0x48, 0x50])]).encode().unwrap());
    s.write_all(&bytes).unwrap();
    let answer = read_packet(&mut s).unwrap().unwrap();
    assert_eq!(answer.records[0].writes, vec![1, 2, 3, 5]);
    assert_eq!(mem.peek(0x54), None, "wff writes all go to the base address");
}

#[test]
fn two_clients_at_once() {
    let mem = MemoryBus::new();
    let t = start(&mem);
    let workers: Vec<_> = (0..2u32)
        .map(|k| {
            let addr = t.addr();
            thread::spawn(move || {
                let mut c = Client::connect(addr, TIMEOUT).unwrap();
                for i in 0..200u32 {
                    let a = 0x1000 * (k + 1) + 4 * (i % 16);
                    let v = (k << 24) | i;
                    c.write32(a, v).unwrap();
                    assert_eq!(c.read32(a), Ok(v), "client {k} access {i}");
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(t.server.bus_errors(), 0);
}

#[test]
fn client_leaving_mid_packet_leaves_others_alone() {
    let mem = MemoryBus::new();
    mem.poke(0x8, 8);
    let t = start(&mem);
    let mut good = Client::connect(t.addr(), TIMEOUT).unwrap();
    assert_eq!(good.read32(0x8), Ok(8));

    let (mut bad, _) = raw_connect(t.addr());
    wait_until(TIMEOUT, "two connections", || t.server.connections() == 2);
    let bytes = Packet::new(vec![Record::writes(0x8, [1, 2, 3])]).encode().unwrap();
    bad.write_all(&bytes[..bytes.len() - 5]).unwrap();
    drop(bad);
    wait_until(TIMEOUT, "the broken connection closed", || t.server.connections() == 1);

    assert_eq!(mem.peek(0x8), Some(8), "a partial record performs nothing");
    assert_eq!(good.read32(0x8), Ok(8));
    good.write32(0xc, 12).unwrap();
    assert_eq!(good.read32(0xc), Ok(12));
}

#[test]
fn malformed_packet_closes_only_that_connection() {
    let t = start(&MemoryBus::new());
    let mut good = Client::connect(t.addr(), TIMEOUT).unwrap();
    let (mut bad, _) = raw_connect(t.addr());
    bad.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    let mut buf = [0u8; 16];
    assert_eq!(bad.read(&mut buf).unwrap(), 0, "the server closes a connection that sends garbage");
    good.write32(0, 1).unwrap();
    assert_eq!(good.read32(0), Ok(1));
}

#[test]
fn probe_is_answered() {
    let t = start(&MemoryBus::new());
    let (mut s, _) = raw_connect(t.addr());
    let probe =
        Packet { header: PacketHeader { probe: true, probe_id: 0xabcd, ..PacketHeader::default() }, records: vec![] };
    let answer = raw_transact(&mut s, &probe);
    assert!(answer.header.probe_reply && answer.header.no_reads && !answer.header.probe);
    assert_eq!(answer.header.probe_id, 0xabcd);
}

#[test]
fn stalled_simulation_answers_failure_in_time() {
    let mem = MemoryBus::new();
    mem.poke(0x0, 5);
    mem.set_latency(Duration::from_millis(600));
    let t = start_with(&mem, Duration::from_millis(100));
    let (mut s, _) = raw_connect(t.addr());
    let started = Instant::now();
    let answer = raw_transact(&mut s, &Packet::new(vec![Record::reads([0x0])]));
    assert!(started.elapsed() < Duration::from_millis(500), "{:?}", started.elapsed());
    assert_eq!(answer.records[0].writes, vec![FAILED_READ_VALUE]);
    assert_eq!(t.server.bus_errors(), 1);

    mem.set_latency(Duration::ZERO);
    // The stale request is still performed; wait for it before the next access.
    thread::sleep(Duration::from_millis(700));
    let mut c = Client::connect(t.addr(), TIMEOUT).unwrap();
    assert_eq!(c.read32(0x0), Ok(5));
}

#[test]
fn simulation_gone_is_an_error_not_a_hang() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let info = ServerInfo::for_addr("CommTest", listener.local_addr().unwrap()).unwrap();
    let (server, requests) = spawn_server(listener, info).unwrap();
    drop(requests);
    let mut c = Client::connect(server.local_addr(), TIMEOUT).unwrap();
    assert_eq!(c.server_info().comm(), "CommTest");
    assert!(c.read32(0).unwrap_err().is_response());
    assert_eq!(server.bus_errors(), 1);
}

#[test]
fn client_times_out_on_a_silent_server() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let fake = thread::spawn(move || {
        // First connection: no information line at all.
        let (first, _) = listener.accept().unwrap();
        // Second: the line, then silence.
        let (mut second, _) = listener.accept().unwrap();
        second.write_all(b"CommSilent:127.0.0.1:1").unwrap();
        let mut sink = Vec::new();
        let _ = second.read_to_end(&mut sink);
        drop(first);
    });
    let t = Duration::from_millis(200);

    let started = Instant::now();
    let e = Client::connect(addr, t).err().expect("no information line");
    assert_eq!(e.to_string(), format!("timed out after 200ms waiting for the server-information line from {addr}"));
    assert!(started.elapsed() < Duration::from_secs(2));

    let mut c = Client::connect(addr, t).unwrap();
    let started = Instant::now();
    let e = c.read32(0x40).unwrap_err();
    assert_eq!(
        e,
        BusError::Timeout { what: format!("waiting for the answer for read 0x00000040 from {addr}"), after: t }
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    let e = c.write32(0, 0).unwrap_err();
    assert!(
        e.to_string().starts_with(&format!("connection to {addr} unusable after an earlier error (timed out")),
        "{e}"
    );
    drop(c);
    fake.join().unwrap();
}

#[test]
fn stop_closes_connections_and_ends_the_simulation_feed() {
    let mem = MemoryBus::new();
    let t = start(&mem);
    let mut c = Client::connect(t.addr(), TIMEOUT).unwrap();
    c.write32(0, 1).unwrap();
    let started = Instant::now();
    t.server.stop();
    assert!(started.elapsed() < Duration::from_secs(1), "stop took {:?}", started.elapsed());
    assert!(!c.read32(0).unwrap_err().is_response());
    // Every sender is gone, so the bus thread ends.
    let mem_back = t.sim.join().unwrap();
    assert_eq!(mem_back.peek(0), Some(1));
}

#[test]
fn without_error_checks_the_client_is_plain_litex() {
    let mem = MemoryBus::new().with_error(0x10, AxiResp::SlvErr);
    let t = start(&mem);
    let mut c = Client::connect(t.addr(), TIMEOUT).unwrap();
    c.set_error_checks(false);
    assert_eq!(c.read32(0x10), Ok(FAILED_READ_VALUE));
    c.write32(0x10, 1).unwrap();
    c.write32(0x14, 2).unwrap();
    assert_eq!(c.read32(0x14), Ok(2));
    // The register still recorded everything: read fail, write fail, ok, ok.
    assert_eq!(c.error_status(), Ok(0b1100));
}

/// Options with a register map of 0x800 bytes (11 address bits).
fn map_of_0x800() -> ServerOptions {
    ServerOptions { register_span: Some(0x800), ..ServerOptions::default() }
}

#[test]
fn accesses_outside_the_register_map_never_reach_the_bus() {
    let mem = MemoryBus::new();
    mem.poke(0x054, 0xc0a8_c82a);
    mem.poke(0x000, 0x7e11_0001);
    let t = start_opts(&mem, ServerInfo::DEFAULT_REPLY_TIMEOUT, map_of_0x800());
    let mut c = Client::connect(t.addr(), TIMEOUT).unwrap();
    assert_eq!(c.write32(0x854, 1), Err(BusError::Response { addr: 0x854, resp: AxiResp::Error }));
    assert_eq!(c.read32(0x800), Err(BusError::Response { addr: 0x800, resp: AxiResp::Error }));
    assert_eq!(c.read32(0xffff_fffc), Err(BusError::Response { addr: 0xffff_fffc, resp: AxiResp::Error }));
    assert_eq!(c.read32(0x7fc), Ok(0), "the last word of the map reaches the bus");
    // One record across the map's end: the words inside are written, the others refused.
    let (mut s, _) = raw_connect(t.addr());
    s.write_all(&Packet::new(vec![Record::writes(0x7f8, [1, 2, 3, 4])]).encode().unwrap()).unwrap();
    let answer = raw_transact(&mut s, &Packet::new(vec![Record::reads([0x7f8, 0x7fc, 0x800, 0x000])]));
    assert_eq!(answer.records[0].writes, vec![1, 2, FAILED_READ_VALUE, 0x7e11_0001]);
    let status = Packet::new(vec![Record {
        flags: RecordFlags { rca: true, ..RecordFlags::default() },
        ..Record::reads([u64::from(CONFIG_ERROR_LOW)])
    }]);
    // Newest in bit 0: writes ok ok fail fail, reads ok ok fail ok.
    assert_eq!(raw_transact(&mut s, &status).records[0].writes, vec![0b0011_0010]);
    assert!(
        mem.log().iter().all(|op| op.addr() < 0x800),
        "only addresses inside the map reach the bus: {:?}",
        mem.log()
    );
    assert_eq!(mem.peek(0x054), Some(0xc0a8_c82a), "0x854 does not alias onto 0x054");
    assert_eq!(t.server.bus_errors(), 6);
}

/// The record of issue 51, item 2: 24 writes from 0xFFFFFFFC. The first is
/// at the top of the address space, the other 23 past it (0x1_0000_0000 on):
/// none of them is 0x000-0x058, whatever the low 32 bits say.
fn burst_over_the_top() -> Packet {
    Packet::new(vec![Record::writes(0xffff_fffc, (0..24).map(|k| 0x1234_5678 + k))])
}

/// The words 0x000-0x05C (`target_mac_lo` among them) with values of their own.
fn poke_low_words(mem: &MemoryBus) -> Vec<u32> {
    let words: Vec<u32> = (0..24).map(|k| 0xa000_0000 | (4 * k)).collect();
    for (k, &w) in words.iter().enumerate() {
        mem.poke(4 * k as u32, w);
    }
    words
}

/// Reads 0x000-0x05C back through the server and the error shift register's
/// low word (newest access in bit 0).
fn low_words_and_error_bits(s: &mut TcpStream) -> (Vec<u32>, u32) {
    let status = Packet::new(vec![Record {
        flags: RecordFlags { rca: true, ..RecordFlags::default() },
        ..Record::reads([u64::from(CONFIG_ERROR_LOW)])
    }]);
    let errors = raw_transact(s, &status).records[0].writes[0];
    let words = raw_transact(s, &Packet::new(vec![Record::reads((0..24).map(|k| 4 * k))])).records[0].writes.clone();
    (words, errors)
}

#[test]
fn a_write_burst_past_0xffffffff_is_refused_address_by_address_and_never_wraps_into_the_map() {
    // With the map's span (the virtual board): all 24 are outside it.
    let mem = MemoryBus::new();
    let before = poke_low_words(&mem);
    let t = start_opts(&mem, ServerInfo::DEFAULT_REPLY_TIMEOUT, map_of_0x800());
    let (mut s, _) = raw_connect(t.addr());
    s.write_all(&burst_over_the_top().encode().unwrap()).unwrap();
    let (words, errors) = low_words_and_error_bits(&mut s);
    assert_eq!(errors, 0x00ff_ffff, "each of the 24 writes failed, as the error shift register tells the client");
    assert_eq!(words, before, "0x000-0x05C read back unchanged through the server");
    assert_eq!(mem.log().iter().filter(|op| matches!(op, Op::Write { .. })).count(), 0, "{:?}", mem.log());
    assert_eq!(t.server.bus_errors(), 24);

    // Without a span every 32-bit address reaches the bus: 0xFFFFFFFC does,
    // the 23 past it are refused all the same.
    let mem = MemoryBus::new();
    let before = poke_low_words(&mem);
    let t = start(&mem);
    let (mut s, _) = raw_connect(t.addr());
    s.write_all(&burst_over_the_top().encode().unwrap()).unwrap();
    let (words, errors) = low_words_and_error_bits(&mut s);
    assert_eq!(errors, 0x007f_ffff, "the first (oldest, bit 23) write succeeded, the 23 after it failed");
    assert_eq!(words, before, "nothing wrapped onto 0x000-0x05C");
    assert_eq!(mem.peek(0xffff_fffc), Some(0x1234_5678));
    let writes: Vec<Op> = mem.log().into_iter().filter(|op| matches!(op, Op::Write { .. })).collect();
    assert_eq!(writes, vec![Op::Write { addr: 0xffff_fffc, value: 0x1234_5678 }]);
    assert_eq!(t.server.bus_errors(), 23);

    // A FIFO burst (`wff`) writes its base every time: 0xFFFFFFFC, never past it.
    let fifo = Packet::new(vec![Record {
        flags: RecordFlags { wff: true, ..RecordFlags::default() },
        ..Record::writes(0xffff_fffc, [1, 2, 3])
    }]);
    s.write_all(&fifo.encode().unwrap()).unwrap();
    let (words, errors) = low_words_and_error_bits(&mut s);
    assert_eq!(errors & 0b111, 0, "the three FIFO writes reach the bus");
    assert_eq!(words, before);
    assert_eq!(mem.peek(0xffff_fffc), Some(3));
}

#[test]
fn an_idle_connection_is_closed_and_the_client_connects_again() {
    let mem = MemoryBus::new();
    mem.poke(0x10, 10);
    let opts = ServerOptions { idle_timeout: Some(Duration::from_millis(300)), ..ServerOptions::default() };
    let t = start_opts(&mem, ServerInfo::DEFAULT_REPLY_TIMEOUT, opts);
    let mut c = Client::connect(t.addr(), TIMEOUT).unwrap();
    assert_eq!(c.read32(0x10), Ok(10));
    let (mut raw, _) = raw_connect(t.addr());
    wait_until(TIMEOUT, "two connections", || t.server.connections() == 2);
    let started = Instant::now();
    wait_until(TIMEOUT, "the idle connections closed", || t.server.connections() == 0);
    assert!(started.elapsed() >= Duration::from_millis(250), "closed after {:?}", started.elapsed());
    let mut buf = [0u8; 4];
    assert_eq!(raw.read(&mut buf).unwrap_or(0), 0, "the server closed the raw connection");
    // The client notices the close before its next access and connects again.
    assert_eq!(c.read32(0x10), Ok(10));
    c.write32(0x14, 14).unwrap();
    assert_eq!(mem.peek(0x14), Some(14));
    // A connection that keeps talking is not idle.
    for _ in 0..6 {
        thread::sleep(Duration::from_millis(100));
        assert_eq!(c.read32(0x10), Ok(10));
    }
    assert_eq!(t.server.connections(), 1);
}

#[test]
fn connections_beyond_the_limit_are_closed_at_once() {
    let opts = ServerOptions { max_connections: 3, ..ServerOptions::default() };
    let t = start_opts(&MemoryBus::new(), ServerInfo::DEFAULT_REPLY_TIMEOUT, opts);
    let held: Vec<_> = (0..3).map(|_| raw_connect(t.addr()).0).collect();
    wait_until(TIMEOUT, "three connections", || t.server.connections() == 3);
    let mut extra = TcpStream::connect(t.addr()).unwrap();
    extra.set_read_timeout(Some(TIMEOUT)).unwrap();
    let mut buf = [0u8; 128];
    assert_eq!(extra.read(&mut buf).unwrap_or(0), 0, "the fourth connection is closed without the line");
    assert_eq!(t.server.connections(), 3);
    drop(held);
    wait_until(TIMEOUT, "the held connections closed", || t.server.connections() == 0);
    let mut c = Client::connect(t.addr(), TIMEOUT).unwrap();
    c.write32(0, 1).unwrap();
}

/// `write32_all` performs every write in order, 32 to a packet, and names
/// the first that failed; the default (write by write) does the same.
#[test]
fn writes_together_are_all_performed_and_the_first_failure_is_named() {
    let mem = MemoryBus::new().with_error(0x10c, AxiResp::SlvErr).with_error(0x18c, AxiResp::DecErr);
    let t = start(&mem);
    let mut c = Client::connect(t.addr(), TIMEOUT).unwrap();
    // 40 writes: two TCP writes, a failure in each.
    let writes: Vec<(u32, u32)> = (0..40).map(|k| (0x100 + 4 * k, 1000 + k)).collect();
    assert_eq!(c.write32_all(&writes), Err(BusError::Response { addr: 0x10c, resp: AxiResp::Error }));
    for &(addr, value) in &writes {
        let want = if addr == 0x10c || addr == 0x18c { None } else { Some(value) };
        assert_eq!(mem.peek(addr), want, "{addr:#x}");
    }
    let order: Vec<u32> = mem
        .log()
        .iter()
        .filter_map(|op| match op {
            Op::Write { addr, .. } => Some(*addr),
            Op::Read { .. } => None,
        })
        .collect();
    assert_eq!(order, writes.iter().map(|w| w.0).collect::<Vec<_>>(), "in order, each once");
    // Only the second packet's failure: it is named.
    assert_eq!(c.write32_all(&writes[32..]), Err(BusError::Response { addr: 0x18c, resp: AxiResp::Error }));
    assert_eq!(c.write32_all(&writes[..3]), Ok(()));
    // The connection stays usable; the default of the trait agrees.
    assert_eq!(c.read32(0x100), Ok(1000));
    let mut local = mem.clone();
    assert_eq!(local.write32_all(&writes[..5]), Err(BusError::slverr(0x10c)));
}

/// Packets a client sends in one go reach the bus as one request, in
/// order, and are answered in order: a board's Etherbone core runs a
/// pipelined stream without pausing between packets, and the virtual board
/// must too, or writes sent together (the starts of several sessions)
/// land a simulation-loop turn apart each.
#[test]
fn packets_sent_together_reach_the_bus_as_one_request() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let info = ServerInfo::for_addr(ServerInfo::DEFAULT_COMM, listener.local_addr().unwrap()).unwrap();
    let (server, requests) = spawn_server(listener, info).unwrap();
    let (mut s, _) = raw_connect(server.local_addr());
    let mut bytes = Vec::new();
    for k in 0..8u32 {
        bytes.extend(Packet::new(vec![Record::writes(u64::from(0x40 + 4 * k), [k])]).encode().unwrap());
    }
    let probe =
        Packet { header: PacketHeader { probe: true, probe_id: 7, ..PacketHeader::default() }, records: vec![] };
    bytes.extend(probe.encode().unwrap());
    bytes.extend(Packet::new(vec![Record::reads([0x40, 0x5c])]).encode().unwrap());
    let status = Record {
        flags: RecordFlags { rca: true, ..RecordFlags::default() },
        ..Record::reads([u64::from(CONFIG_ERROR_LOW)])
    };
    bytes.extend(Packet::new(vec![status]).encode().unwrap());
    s.write_all(&bytes).unwrap();

    let request = requests.recv_timeout(TIMEOUT).expect("a bus request");
    let writes = (0..8).map(|k| Op::Write { addr: 0x40 + 4 * k, value: k });
    let want: Vec<Op> = writes.chain([Op::Read { addr: 0x40 }, Op::Read { addr: 0x5c }]).collect();
    assert_eq!(request.ops(), want.as_slice(), "every packet's accesses in one request, in order");
    let mut results: Vec<Result<u32, BusError>> = vec![Ok(0); want.len()];
    results[3] = Err(BusError::slverr(0x4c));
    results[9] = Ok(7);
    assert!(request.respond(results));

    let answer = read_packet(&mut s).unwrap().unwrap();
    assert!(answer.header.probe_reply && answer.header.probe_id == 7, "the probe first: {answer:?}");
    assert_eq!(read_packet(&mut s).unwrap().unwrap().records[0].writes, vec![0, 7], "then the reads");
    // Ten accesses, newest in bit 0: the fourth (bit 6) failed.
    assert_eq!(read_packet(&mut s).unwrap().unwrap().records[0].writes, vec![1 << 6], "then the error status");
    assert!(requests.try_recv().is_err(), "nothing more went to the bus");
}
