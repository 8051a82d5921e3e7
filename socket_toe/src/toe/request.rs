//! What a connection request or a `toe_init` pulse taken at an edge does to
//! the sessions' sockets (socket, bind, connect, listen, close).

use std::io;
use std::net::SocketAddrV4;
use std::sync::Arc;
use std::time::Instant;

use super::{HostToe, INIT_CYCLES};
use crate::session::Conn;
use crate::socket::{bound_socket, busy_port, connect_failure, start_connect};
use crate::SessionOutputs;

impl HostToe {
    /// A connection request taken at this edge.
    pub(crate) fn request(&mut self, s: usize, o: &SessionOutputs, init_done: bool) {
        let net = &self.net;
        let log = &mut self.log;
        let sess = &mut self.sessions[s];
        if !o.conn_req_open {
            match sess.conn {
                Conn::Idle => {}
                Conn::Listening(_) => {
                    log.push(s, format!("listen on {} cancelled", sess.local.map_or("?".into(), |a| a.to_string())));
                    sess.drop_socket();
                }
                Conn::Connecting { .. } => {
                    log.push(s, format!("connect to {} cancelled", sess.remote.map_or("?".into(), |a| a.to_string())));
                    sess.drop_socket();
                }
                Conn::Open(_) => {
                    sess.close_req = true;
                }
            }
            return;
        }

        // Open request: whatever the session still has goes first.
        match sess.conn {
            Conn::Idle => {}
            Conn::Listening(_) => log.push(s, "listen replaced by a new open request"),
            Conn::Connecting { .. } => log.push(s, "pending connect abandoned for a new open request"),
            Conn::Open(_) => {
                if sess.status.established {
                    log.push(s, "open request on a live connection: resetting it");
                }
            }
        }
        sess.drop_socket();
        sess.clear_data();
        sess.status.reset_for_open();
        sess.check.open_request();
        sess.local = None;
        sess.remote = None;
        if !init_done {
            sess.status.conn_error = true;
            sess.stats.errors += 1;
            log.push(s, "open request refused: TOE not initialised");
            return;
        }
        let local = SocketAddrV4::new(net.bind, o.conn_req_local_port);
        if o.conn_req_active {
            let remote = SocketAddrV4::new(net.target, o.conn_req_remote_port);
            sess.remote = Some(remote.into());
            let sock = match start_connect(local, remote) {
                Err(e) if busy_port(&e) => {
                    let any = SocketAddrV4::new(net.bind, 0);
                    let r = start_connect(any, remote);
                    if let Ok(sock) = &r {
                        let port = sock.local_addr().ok().and_then(|a| a.as_socket()).map_or(0, |a| a.port());
                        log.push(
                            s,
                            format!(
                                "source port {local} unusable ({e}): connecting from ephemeral port {port} instead"
                            ),
                        );
                    }
                    r
                }
                r => r,
            };
            match sock {
                Ok(sock) => {
                    sess.local = sock.local_addr().ok().and_then(|a| a.as_socket());
                    sess.conn = Conn::Connecting { sock, deadline: Instant::now() + net.connect_timeout };
                }
                Err(e) => {
                    sess.fail(s, log, connect_failure(remote, &e));
                }
            }
        } else {
            // Another session listening on the port shares its socket (as
            // the board's TOE gives each session listening on a port one of
            // its connections): the backlog grows to the sessions sharing it.
            let shared = self.sessions.iter().find_map(|other| match &other.conn {
                Conn::Listening(l) if other.local.is_some_and(|a| a.port() == local.port()) => Some(Arc::clone(l)),
                _ => None,
            });
            let sess = &mut self.sessions[s];
            let r = match shared {
                Some(l) => {
                    let sharing = i32::try_from(Arc::strong_count(&l)).unwrap_or(i32::MAX);
                    l.listen(sharing).map(|_| l)
                }
                None => bound_socket(local).and_then(|sock| {
                    sock.listen(1)?;
                    Ok(Arc::new(sock))
                }),
            };
            match r {
                Ok(sock) => {
                    sess.local = sock.local_addr().ok().and_then(|a| a.as_socket());
                    let sharing = Arc::strong_count(&sock) - 1;
                    let with = if sharing > 0 { format!(" (with {sharing} other session(s))") } else { String::new() };
                    log.push(s, format!("listening on {}{with}", sess.local.map_or("?".into(), |a| a.to_string())));
                    sess.conn = Conn::Listening(sock);
                }
                Err(e) if e.kind() == io::ErrorKind::AddrInUse => {
                    let hint = if net.port_taken_hint.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", net.port_taken_hint)
                    };
                    sess.fail(
                        s,
                        log,
                        format!(
                            "cannot listen on port {} ({local}): another socket holds the port ({e}){hint}",
                            local.port()
                        ),
                    );
                }
                Err(e) => {
                    sess.fail(s, log, format!("cannot listen on port {} ({local}): {e}", local.port()));
                }
            }
        }
    }

    /// `toe_init`: drop every connection, listen and pending open.
    pub(crate) fn init(&mut self) {
        self.init_countdown = INIT_CYCLES;
        for (s, sess) in self.sessions.iter_mut().enumerate() {
            let what = match sess.conn {
                Conn::Idle => continue,
                Conn::Listening(_) => "listen",
                Conn::Connecting { .. } => "pending connect",
                Conn::Open(_) if !sess.status.established => {
                    // Fully closed, socket not yet closed by poll: nothing lost.
                    sess.drop_socket();
                    continue;
                }
                Conn::Open(_) => "connection",
            };
            sess.fail(s, &mut self.log, format!("toe_init: {what} dropped"));
        }
    }
}
