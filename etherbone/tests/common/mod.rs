//! Shared by the integration tests: a server on 127.0.0.1 backed by a MemoryBus.

#![allow(dead_code)]

use std::net::{SocketAddr, TcpListener};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use etherbone::{serve_requests, spawn_server_with, MemoryBus, ServerHandle, ServerInfo, ServerOptions};

pub struct TestServer {
    pub server: ServerHandle,
    pub sim: JoinHandle<MemoryBus>,
    pub mem: MemoryBus,
}

impl TestServer {
    pub fn addr(&self) -> SocketAddr {
        self.server.local_addr()
    }
}

/// A server on an ephemeral loopback port; `mem` (a clone) stays with the test.
pub fn start(mem: &MemoryBus) -> TestServer {
    start_with(mem, ServerInfo::DEFAULT_REPLY_TIMEOUT)
}

pub fn start_with(mem: &MemoryBus, reply_timeout: Duration) -> TestServer {
    start_opts(mem, reply_timeout, ServerOptions::default())
}

/// A server with the given limits.
pub fn start_opts(mem: &MemoryBus, reply_timeout: Duration, opts: ServerOptions) -> TestServer {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let info = ServerInfo::for_addr(ServerInfo::DEFAULT_COMM, listener.local_addr().unwrap())
        .unwrap()
        .with_reply_timeout(reply_timeout);
    let (server, requests) = spawn_server_with(listener, info, opts).expect("spawn server");
    let sim = serve_requests(requests, mem.clone());
    TestServer { server, sim, mem: mem.clone() }
}

/// Polls `cond` until it holds or `within` passes.
pub fn wait_until(within: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !cond() {
        assert!(Instant::now() < deadline, "not within {within:?}: {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}
