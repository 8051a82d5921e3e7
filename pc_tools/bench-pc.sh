#!/usr/bin/env bash
# make bench-pc: tcpdatatest against iperf3 on loopback, side by side, at
# 1, 2 and 4 parallel streams.
#
# Each round runs, one after the other on 127.0.0.1, for each stream count N
# the same total byte count:
#   1. tcpdatatest s t -> tcpdatatest c r, pattern 1 (fill + verify)
#   2. tcpdatatest s t -> tcpdatatest c r, pattern 0 (no verification)
#   3. iperf3 -s -> iperf3 -c -R (server sends, client receives, like 1 and 2)
# and prints the receiver's MB/s (10^6 bytes/s) of each. With N > 1,
# tcpdatatest runs --sessions N (N connections on consecutive ports, each
# carrying BENCH_BYTES / N bytes; the client's "total rx" line) and iperf3
# runs -P N (BENCH_BYTES in total over N streams; its sum_received). The rounds
# are interleaved so a burst of load from other processes hits all runs alike;
# the summary gives, per stream count, the median and the best round and the
# ratios to iperf3.
#
# Both tools get the same placement: with BENCH_PIN=1 (default, when the
# machine has 2 or more cores and taskset exists) the server is pinned to CPU 0
# and the client to CPU 1, so neither tool gains from the scheduler happening
# to put sender and receiver on one core; BENCH_PIN=0 leaves placement free.
#
# Settings (environment): BENCH_BYTES (default 4000000000, total per run, a
# multiple of every stream count), BENCH_BUFFER (tcpdatatest <buffer> 1-5,
# default 2 = 128 KB, iperf3's default length), BENCH_ROUNDS (default 5),
# BENCH_PIN (default 1), BENCH_STREAMS (default "1 2 4"). Only loopback traffic.
set -euo pipefail

cd "$(dirname "$0")/.."
BYTES=${BENCH_BYTES:-4000000000}
BUFFER=${BENCH_BUFFER:-2}
ROUNDS=${BENCH_ROUNDS:-5}
STREAMS=${BENCH_STREAMS:-1 2 4}
TARGET=${CARGO_TARGET_DIR:-target}
PIN=${BENCH_PIN:-1}
# Bound on one client run (tcpdatatest also bounds every connect, accept, read
# and write with --timeout).
RUN_LIMIT=300
for n in $STREAMS; do
    case $n in
        *[!0-9]* | 0*) echo "bench-pc: BENCH_STREAMS: '$n' is not a stream count (1-64)" >&2; exit 2 ;;
    esac
    if [ "$n" -gt 64 ]; then
        echo "bench-pc: BENCH_STREAMS: '$n' is out of range (1-64)" >&2
        exit 2
    fi
    if [ $((BYTES % n)) -ne 0 ]; then
        echo "bench-pc: BENCH_BYTES $BYTES is not a multiple of $n streams" >&2
        exit 2
    fi
done
[ -n "${STREAMS// /}" ] || { echo "bench-pc: BENCH_STREAMS is empty" >&2; exit 2; }
if [ "$PIN" = 1 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
    ON_SERVER=(taskset -c 0)
    ON_CLIENT=(taskset -c 1)
    PLACEMENT="server on CPU 0, client on CPU 1"
else
    ON_SERVER=()
    ON_CLIENT=()
    PLACEMENT="placement left to the scheduler"
fi

if ! command -v iperf3 >/dev/null 2>&1; then
    echo "bench-pc: installing iperf3 (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y iperf3 >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y iperf3 >/dev/null; }
fi
command -v python3 >/dev/null 2>&1 || { echo "bench-pc: python3 is needed to read iperf3's JSON" >&2; exit 1; }

cargo build --release -q -p pc_tools
BIN="$TARGET/release"
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$TMP"' EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Prints a port P such that P .. P+$1-1 are all free on 127.0.0.1, taken below
# the ephemeral range so that new connections' local ports do not take them.
free_ports() {
    python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(200):
    base = random.randrange(20000, 32000 - n)
    socks = []
    try:
        for p in range(base, base + n):
            s = socket.socket()
            socks.append(s)
            s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        for s in socks:
            s.close()
    print(base)
    sys.exit(0)
sys.exit("bench-pc: no %d consecutive free ports found" % n)
PY
}

# Waits (at most 10 s) for $2 "listening on IP:PORT" lines in file $1 while
# server $3 runs, and prints the first PORT; returns 1 if the server ended
# first or took longer.
listening_port() {
    local i
    for i in $(seq 1 1000); do
        if [ "$(grep -c 'listening on ' "$1" 2>/dev/null || true)" -ge "$2" ]; then
            sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$1" | head -n 1
            return 0
        fi
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.01
    done
    return 1
}

# The run functions write the receiver's MB/s to $TMP/result (not to stdout:
# a $(...) subshell would own the background server, out of reach of the trap).

# tcpdatatest s t -> c r with pattern $1 over $2 sessions, BYTES in total
# (BYTES / $2 per session).
run_tcpdatatest() {
    local pattern=$1 n=$2 port='' mbps server attempt base
    local each=$((BYTES / n))
    # One session: the server picks a free port (port 0). Several: the client
    # connects to consecutive ports from the one given, so the server is given
    # a free run of them; another process may take one first, hence retries.
    for attempt in 1 2 3; do
        if [ "$n" -eq 1 ]; then base=0; else base=$(free_ports "$n"); fi
        "${ON_SERVER[@]}" "$BIN/tcpdatatest" s t 127.0.0.1 "$base" "$each" "$pattern" "$BUFFER" \
            --sessions "$n" --quiet --timeout 60 >"$TMP/server.out" 2>&1 &
        server=$!
        if port=$(listening_port "$TMP/server.out" "$n" "$server"); then
            break
        fi
        port=''
        kill "$server" 2>/dev/null || true
        wait "$server" || true
        echo "bench-pc: tcpdatatest server did not start (attempt $attempt of 3): $(cat "$TMP/server.out")" >&2
    done
    [ -n "$port" ] || return 1
    if ! timeout --foreground "$RUN_LIMIT" "${ON_CLIENT[@]}" "$BIN/tcpdatatest" c r 127.0.0.1 "$port" "$each" "$pattern" "$BUFFER" \
        --sessions "$n" --quiet --timeout 60 >"$TMP/client.out" 2>&1; then
        kill "$server" 2>/dev/null || true
        echo "bench-pc: tcpdatatest client failed (or ran over $RUN_LIMIT s): $(cat "$TMP/client.out")" >&2
        return 1
    fi
    wait "$server" || { echo "bench-pc: tcpdatatest server failed: $(cat "$TMP/server.out")" >&2; return 1; }
    if [ "$n" -eq 1 ]; then
        mbps=$(sed -n 's/^rx: .* bytes in .* s, \([0-9.]*\) MB\/s.*/\1/p' "$TMP/client.out")
    else
        mbps=$(sed -n 's/^total rx: .* bytes in .* s, \([0-9.]*\) MB\/s.*/\1/p' "$TMP/client.out")
    fi
    [ -n "$mbps" ] || { echo "bench-pc: no rx line: $(cat "$TMP/client.out")" >&2; return 1; }
    echo "$mbps" >"$TMP/result"
}

# iperf3 -P $1 with the same total byte count, server sending (-R), one test
# per server.
run_iperf3() {
    local n=$1 port server i
    port=$(free_port)
    # --forceflush: written to a file, the "listening" line would otherwise
    # stay in stdio's buffer until the server exits.
    "${ON_SERVER[@]}" iperf3 -s -1 -B 127.0.0.1 -p "$port" --forceflush >"$TMP/iperf3-server.out" 2>&1 &
    server=$!
    for i in $(seq 0 1000); do
        grep -q 'listening' "$TMP/iperf3-server.out" 2>/dev/null && break
        if [ "$i" -eq 1000 ] || ! kill -0 "$server" 2>/dev/null; then
            kill "$server" 2>/dev/null || true
            echo "bench-pc: iperf3 server did not start within 10 s: $(cat "$TMP/iperf3-server.out")" >&2
            return 1
        fi
        sleep 0.01
    done
    if ! timeout --foreground "$RUN_LIMIT" "${ON_CLIENT[@]}" iperf3 -c 127.0.0.1 -p "$port" -n "$BYTES" -P "$n" -R -J >"$TMP/iperf3.json"; then
        kill "$server" 2>/dev/null || true
        echo "bench-pc: iperf3 failed (or ran over $RUN_LIMIT s): $(grep '"error"' "$TMP/iperf3.json" || true)" >&2
        return 1
    fi
    wait "$server" || true
    python3 -c '
import json, sys
end = json.load(open(sys.argv[1]))["end"]["sum_received"]
print("%.1f" % (end["bytes"] / end["seconds"] / 1e6))' "$TMP/iperf3.json" >"$TMP/result"
}

echo "bench-pc: loopback 127.0.0.1, $BYTES bytes per run, tcpdatatest buffer $BUFFER, $ROUNDS rounds, streams $STREAMS, $PLACEMENT"
echo "bench-pc: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(iperf3 --version | head -n 1)"
printf '%-6s %7s %16s %16s %12s\n' round streams "verify on MB/s" "verify off MB/s" "iperf3 MB/s"
for n in $STREAMS; do
    : >"$TMP/on.$n"; : >"$TMP/off.$n"; : >"$TMP/iperf.$n"
done
for r in $(seq 1 "$ROUNDS"); do
    for n in $STREAMS; do
        run_tcpdatatest 1 "$n"; on=$(cat "$TMP/result")
        run_tcpdatatest 0 "$n"; off=$(cat "$TMP/result")
        run_iperf3 "$n"; ip=$(cat "$TMP/result")
        echo "$on" >>"$TMP/on.$n"; echo "$off" >>"$TMP/off.$n"; echo "$ip" >>"$TMP/iperf.$n"
        printf '%-6s %7s %16s %16s %12s\n' "$r" "$n" "$on" "$off" "$ip"
    done
done

for n in $STREAMS; do
    python3 - "$n" "$TMP/on.$n" "$TMP/off.$n" "$TMP/iperf.$n" <<'PY'
import statistics, sys
n = sys.argv[1]
on, off, ip = ([float(x) for x in open(p).read().split()] for p in sys.argv[2:5])
for name, f in (("median", statistics.median), ("best", max)):
    a, b, c = f(on), f(off), f(ip)
    print("%-6s %7s %16.1f %16.1f %12.1f   verify off / iperf3 = %.2f, verify on / iperf3 = %.2f (target >= 1.00)"
          % (name, n, a, b, c, b / c, a / c))
PY
done
