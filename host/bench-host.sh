#!/usr/bin/env bash
# make bench-host: tcpdatatest against iperf3 on loopback, side by side.
#
# Each round runs, one after the other on 127.0.0.1, the same byte count:
#   1. tcpdatatest s t -> tcpdatatest c r, pattern 1 (fill + verify)
#   2. tcpdatatest s t -> tcpdatatest c r, pattern 0 (no verification)
#   3. iperf3 -s -> iperf3 -c -R (server sends, client receives, like 1 and 2)
# and prints the receiver's MB/s (10^6 bytes/s) of each. The rounds are
# interleaved so a burst of load from other processes hits all three alike;
# the summary gives the median and the best round and the ratios to iperf3.
#
# Both tools get the same placement: with BENCH_PIN=1 (default, when the
# machine has 2 or more cores and taskset exists) the server is pinned to CPU 0
# and the client to CPU 1, so neither tool gains from the scheduler happening
# to put sender and receiver on one core; BENCH_PIN=0 leaves placement free.
#
# Settings (environment): BENCH_BYTES (default 4000000000), BENCH_BUFFER
# (tcpdatatest <buffer> 1-5, default 2 = 128 KB, iperf3's default length),
# BENCH_ROUNDS (default 5), BENCH_PIN (default 1). Only loopback traffic.
set -euo pipefail

cd "$(dirname "$0")/.."
BYTES=${BENCH_BYTES:-4000000000}
BUFFER=${BENCH_BUFFER:-2}
ROUNDS=${BENCH_ROUNDS:-5}
TARGET=${CARGO_TARGET_DIR:-target}
PIN=${BENCH_PIN:-1}
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
    echo "bench-host: installing iperf3 (Debian package)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y iperf3 >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y iperf3 >/dev/null; }
fi
command -v python3 >/dev/null 2>&1 || { echo "bench-host: python3 is needed to read iperf3's JSON" >&2; exit 1; }

cargo build --release -q -p host
BIN="$TARGET/release"
TMP=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$TMP"' EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits (at most 10 s) for "listening on IP:PORT" in file $1 and prints PORT.
listening_port() {
    local i
    for i in $(seq 1 1000); do
        if grep -q 'listening on ' "$1" 2>/dev/null; then
            sed -n 's/.*listening on .*:\([0-9]*\)$/\1/p' "$1" | head -n 1
            return 0
        fi
        sleep 0.01
    done
    echo "bench-host: server did not start: $(cat "$1")" >&2
    return 1
}

# The run functions write the receiver's MB/s to $TMP/result (not to stdout:
# a $(...) subshell would own the background server, out of reach of the trap).

# tcpdatatest s t -> c r with pattern $1.
run_tcpdatatest() {
    local pattern=$1 port mbps server
    "${ON_SERVER[@]}" "$BIN/tcpdatatest" s t 127.0.0.1 0 "$BYTES" "$pattern" "$BUFFER" --quiet --timeout 60 >"$TMP/server.out" 2>&1 &
    server=$!
    port=$(listening_port "$TMP/server.out")
    "${ON_CLIENT[@]}" "$BIN/tcpdatatest" c r 127.0.0.1 "$port" "$BYTES" "$pattern" "$BUFFER" --quiet --timeout 60 >"$TMP/client.out"
    wait "$server"
    mbps=$(sed -n 's/^rx: .* bytes in .* s, \([0-9.]*\) MB\/s.*/\1/p' "$TMP/client.out")
    [ -n "$mbps" ] || { echo "bench-host: no rx line: $(cat "$TMP/client.out")" >&2; return 1; }
    echo "$mbps" >"$TMP/result"
}

# iperf3 with the same byte count, server sending (-R), one test per server.
run_iperf3() {
    local port server i
    port=$(free_port)
    "${ON_SERVER[@]}" iperf3 -s -1 -B 127.0.0.1 -p "$port" >"$TMP/iperf3-server.out" 2>&1 &
    server=$!
    for i in $(seq 1 1000); do
        grep -q 'listening' "$TMP/iperf3-server.out" 2>/dev/null && break
        sleep 0.01
    done
    if ! "${ON_CLIENT[@]}" iperf3 -c 127.0.0.1 -p "$port" -n "$BYTES" -R -J >"$TMP/iperf3.json"; then
        kill "$server" 2>/dev/null || true
        echo "bench-host: iperf3 failed: $(grep '"error"' "$TMP/iperf3.json")" >&2
        return 1
    fi
    wait "$server" || true
    python3 -c '
import json, sys
end = json.load(open(sys.argv[1]))["end"]["sum_received"]
print("%.1f" % (end["bytes"] / end["seconds"] / 1e6))' "$TMP/iperf3.json" >"$TMP/result"
}

echo "bench-host: loopback 127.0.0.1, $BYTES bytes per run, tcpdatatest buffer $BUFFER, $ROUNDS rounds, $PLACEMENT"
echo "bench-host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(iperf3 --version | head -n 1)"
printf '%-6s %16s %16s %12s\n' round "verify on MB/s" "verify off MB/s" "iperf3 MB/s"
: >"$TMP/on"; : >"$TMP/off"; : >"$TMP/iperf"
for r in $(seq 1 "$ROUNDS"); do
    run_tcpdatatest 1; on=$(cat "$TMP/result")
    run_tcpdatatest 0; off=$(cat "$TMP/result")
    run_iperf3; ip=$(cat "$TMP/result")
    echo "$on" >>"$TMP/on"; echo "$off" >>"$TMP/off"; echo "$ip" >>"$TMP/iperf"
    printf '%-6s %16s %16s %12s\n' "$r" "$on" "$off" "$ip"
done

python3 - "$TMP/on" "$TMP/off" "$TMP/iperf" <<'EOF'
import statistics, sys
on, off, ip = ([float(x) for x in open(p).read().split()] for p in sys.argv[1:4])
for name, f in (("median", statistics.median), ("best", max)):
    a, b, c = f(on), f(off), f(ip)
    print("%-6s %16.1f %16.1f %12.1f   verify off / iperf3 = %.2f (target >= 1.00), verify on / iperf3 = %.2f (target >= 0.90)"
          % (name, a, b, c, b / c, a / c))
EOF
