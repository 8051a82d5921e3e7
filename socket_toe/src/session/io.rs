//! The socket I/O of one session, done by `poll`: accept, connect completion
//! and timeout, writing the TX buffer, our FIN, reading into the RX buffer,
//! the push timeout, resets and closing a fully closed connection.

use std::io::{self, IoSlice, Read};
use std::net::{Shutdown, SocketAddr};
use std::time::Instant;

use socket2::Socket;

use super::{Conn, Session};
use crate::events::Log;
use crate::socket::{connect_failure, io_failure, peer_info};
use crate::NetConfig;

impl Session {
    pub(crate) fn poll(&mut self, s: usize, now: Instant, net: &NetConfig, beat: usize, log: &mut Log) -> bool {
        self.moved = false;
        match self.conn {
            Conn::Idle => false,
            Conn::Listening(_) => self.poll_listen(s, log),
            Conn::Connecting { .. } => self.poll_connect(s, now, net, log),
            Conn::Open(_) => self.poll_open(s, now, net, beat, log),
        }
    }

    fn poll_listen(&mut self, s: usize, log: &mut Log) -> bool {
        let Conn::Listening(l) = &self.conn else { unreachable!() };
        match l.accept() {
            Ok((sock, addr)) => {
                if let Err(e) = sock.set_nonblocking(true) {
                    self.fail(s, log, format!("accepted connection unusable: {e}"));
                    return true;
                }
                let _ = sock.set_tcp_nodelay(true);
                let local = self.local.map_or("?".into(), |a| a.to_string());
                let remote = addr.as_socket();
                log.push(s, format!("accepted {} on {local}", remote.map_or("?".into(), |a| a.to_string())));
                self.connected(s, sock, remote, log);
                true
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted | io::ErrorKind::ConnectionAborted
                ) =>
            {
                false
            }
            Err(e) => {
                let local = self.local.map_or("?".into(), |a| a.to_string());
                self.fail(s, log, format!("accept on {local} failed: {e}"));
                true
            }
        }
    }

    fn poll_connect(&mut self, s: usize, now: Instant, net: &NetConfig, log: &mut Log) -> bool {
        let Conn::Connecting { sock, deadline } = &self.conn else { unreachable!() };
        let deadline = *deadline;
        let remote = || self.remote.map_or_else(|| "?".to_string(), |a| a.to_string());
        let err = match sock.take_error() {
            Ok(Some(e)) | Err(e) => Some(e),
            Ok(None) => None,
        };
        if let Some(e) = err {
            let msg = connect_failure(remote(), &e);
            self.fail(s, log, msg);
            return true;
        }
        match sock.peer_addr() {
            Ok(addr) => {
                let Conn::Connecting { sock, .. } = std::mem::replace(&mut self.conn, Conn::Idle) else {
                    unreachable!()
                };
                let _ = sock.set_tcp_nodelay(true);
                self.connected(s, sock, addr.as_socket(), log);
                true
            }
            Err(e) if e.raw_os_error() == Some(libc::ENOTCONN) => {
                if now >= deadline {
                    let (t, remote) = (net.connect_timeout, remote());
                    self.fail(s, log, format!("connect to {remote} timed out after {t:?}"));
                    true
                } else {
                    false
                }
            }
            Err(e) => {
                let remote = remote();
                self.fail(s, log, format!("connect to {remote} failed: {e}"));
                true
            }
        }
    }

    /// A connection is up (accepted or connect completed).
    fn connected(&mut self, s: usize, sock: Socket, remote: Option<SocketAddr>, log: &mut Log) {
        if let Ok(a) = sock.local_addr() {
            self.local = a.as_socket();
        }
        self.remote = remote;
        let (mss, ws) = peer_info(&sock);
        self.status.set_peer(remote.map_or(0, |a| a.port()), mss, ws);
        self.conn = Conn::Open(sock);
        self.status.established = true;
        self.last_arrival = Instant::now();
        self.stats.connects += 1;
        log.push(
            s,
            format!(
                "connected {} -> {} (peer mss {mss}, window scale {ws})",
                self.local.map_or("?".into(), |a| a.to_string()),
                self.remote.map_or("?".into(), |a| a.to_string()),
            ),
        );
    }

    fn poll_open(&mut self, s: usize, now: Instant, net: &NetConfig, beat: usize, log: &mut Log) -> bool {
        let Conn::Open(sock) = &self.conn else { unreachable!() };
        let mut changed = false;
        // TX: write the buffer until the socket would block; while the user
        // logic keeps filling it, only in writes of a quarter of it or more.
        let growing = self.tx.len() > self.tx_after_poll;
        let write = !growing || self.close_req || self.tx.len() >= self.tx.capacity() / 4;
        while write && !self.tx.is_empty() {
            let (a, b) = self.tx.slices();
            let r = sock.send_vectored_with_flags(&[IoSlice::new(a), IoSlice::new(b)], libc::MSG_NOSIGNAL);
            match r {
                Ok(0) => break,
                Ok(n) => {
                    self.tx.consume(n);
                    self.stats.tx_bytes += n as u64;
                    self.tx_out += n as u64;
                    self.moved = true;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.fail(s, log, io_failure(&e));
                    return true;
                }
            }
        }
        self.tx_after_poll = self.tx.len();
        // Our FIN, after every byte taken on TX.
        if self.close_req && !self.fin_sent && self.tx.is_empty() {
            match sock.shutdown(Shutdown::Write) {
                Ok(()) => {
                    self.fin_sent = true;
                    changed = true;
                    log.push(s, format!("FIN sent after {} bytes", self.tx_out));
                }
                Err(e) => {
                    self.fail(s, log, io_failure(&e));
                    return true;
                }
            }
        }
        // RX: read only while the buffer has room (flow control).
        let mut drained = false;
        if !self.fin_seen {
            let mut reader: &Socket = sock;
            while self.rx.free() > 0 {
                match reader.read(self.rx.spare()) {
                    Ok(0) => {
                        self.fin_seen = true;
                        changed = true;
                        if self.rx_in > self.last_push {
                            self.push_points.push_back(self.rx_in);
                            self.last_push = self.rx_in;
                        }
                        log.push(s, format!("peer closed (FIN) after {} bytes", self.rx_in));
                        break;
                    }
                    Ok(n) => {
                        self.rx.commit(n);
                        self.rx_in += n as u64;
                        self.stats.rx_bytes += n as u64;
                        self.last_arrival = now;
                        self.moved = true;
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        drained = true;
                        break;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.fail(s, log, io_failure(&e));
                        return true;
                    }
                }
            }
        }
        // Push timeout: a trailing partial beat waits and nothing more comes.
        if drained
            && self.rx_in > self.last_push
            && (self.rx_in - self.last_push) % beat as u64 != 0
            && now.duration_since(self.last_arrival) >= net.push_timeout
        {
            self.push_points.push_back(self.rx_in);
            self.last_push = self.rx_in;
            self.stats.push_timeouts += 1;
            changed = true;
        }
        let was = (self.status.established, self.status.peer_closed);
        self.check_closed();
        changed |= was != (self.status.established, self.status.peer_closed);
        // Fully closed: both FINs, every byte delivered.
        if self.fin_sent && self.status.peer_closed {
            self.status.established = false;
            self.drop_socket();
            log.push(s, "connection closed (both sides)");
            changed = true;
        }
        changed || self.moved
    }
}
