#!/usr/bin/env bash
# The CPU an idle virtual board costs: starts the release `vboard` on a
# spare register port, lets it start up (SETTLE seconds, default 20), then
# reads its user+system CPU ticks from /proc/<pid>/stat over SECONDS
# (default 30) with nothing connected, and prints them with the share of
# one core. Usage: scripts/vboard-idle-cpu.sh [VBOARD_BINARY] (default
# target/release/vboard; build it with `cargo build --release -p vboard`).
set -euo pipefail
bin=${1:-target/release/vboard}
settle=${SETTLE:-20}
seconds=${SECONDS_IDLE:-30}
port=${PORT:-1299}
[ -x "$bin" ] || { echo "vboard-idle-cpu: no $bin (cargo build --release -p vboard)" >&2; exit 1; }
hz=$(getconf CLK_TCK)
"$bin" --port "$port" --seconds $((settle + seconds + 10)) >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
sleep "$settle"
[ -r "/proc/$pid/stat" ] || { echo "vboard-idle-cpu: $bin exited during start-up" >&2; exit 1; }
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
a=$(ticks)
sleep "$seconds"
b=$(ticks)
awk -v t=$((b - a)) -v hz="$hz" -v s="$seconds" -v bin="$bin" \
    'BEGIN { printf "%s: %d CPU ticks in %d s idle (%.1f %% of a core)\n", bin, t, s, 100 * t / hz / s }'
