#!/usr/bin/env bash
# `make test`: every check the project has, stage by stage, with the time
# each stage took printed as a table at the end (also when a stage fails, so
# a slow or failing stage is visible in the CI log).
#
# Stages: deps (scripts/install-deps.sh), lint (generated Verilog and
# cargo fmt), synth-estimate (yosys), build (every test binary, once), one
# stage per crate's tests (the binaries built in the build stage, nothing
# rebuilt), and the large transfer (the PC tools' multi-gigabyte loopback
# run, optimised).
set -uo pipefail
cd "$(dirname "$0")/.."
make=${MAKE:-make}
cargo=${CARGO:-cargo}

# The virtual board's model cache inside target/, so a fresh clone builds
# it (once, shared by every test that starts a board) and `cargo clean`
# removes it.
export VBOARD_CACHE=${VBOARD_CACHE:-$PWD/target/vboard-cache}

names=()
secs=()
start=$SECONDS
summary() {
    local rc=$?
    echo
    echo "test stages (seconds):"
    local i
    for i in "${!names[@]}"; do
        printf '  %-24s %6s\n' "${names[$i]}" "${secs[$i]}"
    done
    printf '  %-24s %6s\n' "total" "$((SECONDS - start))"
    [ "$rc" -eq 0 ] && echo "test: all stages passed" || echo "test: failed (exit $rc)"
}
trap summary EXIT

# stage NAME CMD...: runs CMD, records its time, stops the run when it fails.
stage() {
    local name=$1
    shift
    echo "== $name"
    local t0=$SECONDS rc=0
    "$@" || rc=$?
    names+=("$name")
    secs+=("$((SECONDS - t0))")
    [ "$rc" -eq 0 ] || { names[-1]="$name (FAILED)"; exit "$rc"; }
}

stage deps "$make" -s deps
stage lint "$make" -s lint
stage synth-estimate "$make" -s synth-estimate
stage build "$cargo" test --workspace --no-run
# One stage per crate, in the workspace's order.
mapfile -t crates < <(sed -n 's/^members *= *\[\(.*\)\]/\1/p' Cargo.toml | tr -d '" ' | tr ',' '\n')
[ "${#crates[@]}" -gt 0 ] || { echo "test: no workspace members found in Cargo.toml" >&2; exit 1; }
for crate in "${crates[@]}"; do
    stage "test $crate" "$cargo" test -q -p "$crate"
done
stage "large transfer" "$make" -s test-pc-large
