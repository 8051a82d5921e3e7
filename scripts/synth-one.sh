#!/usr/bin/env bash
# synth-one.sh DIR MODULE NETLIST LOG: one yosys run of the synthesis
# estimate (scripts/synth-estimate.sh): every file of DIR/rtl/files.f read,
# `synth_xilinx -family xcup -nowidelut` on MODULE, flattened, the mapped
# netlist written as JSON to NETLIST, yosys's output to LOG.
#
# The netlist cache: a run whose inputs are byte for byte those of an earlier
# run takes that run's netlist instead of running yosys again. The key is the
# SHA-256 of yosys's version, the yosys script (top module included) and
# every file read, path and contents; yosys is deterministic on the same
# inputs, so the netlist is the one it would write. Netlists are kept
# gzipped in SYNTH_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/toe-user-logic/synth);
# SYNTH_CACHE=off runs yosys every time. A cache hit writes
# "synth-one: cached netlist <key>" to LOG.
#
# synth-one.sh --prune: removes the netlists no run has taken for 30 days,
# then the least recently taken ones while the cache holds more than
# SYNTH_CACHE_MB megabytes (default 1024; a netlist is 1-3 MB gzipped), and
# prints the cache's folder (or "off").
set -euo pipefail
cache=${SYNTH_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/toe-user-logic/synth}
if [ "${1:-}" = --prune ]; then
    if [ "$cache" != off ] && [ -d "$cache" ]; then
        find "$cache" -maxdepth 1 -name '*.json.gz' -mtime +30 -delete
        budget=$((${SYNTH_CACHE_MB:-1024} * 1024 * 1024))
        # Newest first: keep while the running total fits.
        find "$cache" -maxdepth 1 -name '*.json.gz' -printf '%T@ %s %p\n' | sort -rn \
            | awk -v budget="$budget" '{ total += $2; if (total > budget) { sub(/^[^ ]+ [^ ]+ /, ""); print } }' \
            | xargs -r -d '\n' rm -f
    fi
    echo "$cache"
    exit 0
fi
[ $# -eq 4 ] || { echo "usage: synth-one.sh DIR MODULE NETLIST LOG, or synth-one.sh --prune" >&2; exit 2; }
dir=$1 module=$2 netlist=$3 log=$4
# yosys runs in DIR: a relative NETLIST is the caller's.
case $netlist in /*) ;; *) netlist=$PWD/$netlist ;; esac
mapfile -t files <"$dir/rtl/files.f"
script="read_verilog -sv ${files[*]}; synth_xilinx -family xcup -nowidelut -noiopad -noclkbuf -flatten -top $module"
synthesise() {
    (cd "$dir" && yosys -q -p "$script; write_json $netlist") >"$log" 2>&1
}

if [ "$cache" = off ]; then
    synthesise
    exit
fi
key=$(
    {
        yosys -V
        echo "$script"
        for f in "${files[@]}"; do
            printf '== %s %s\n' "$f" "$(wc -c <"$dir/$f")"
            cat "$dir/$f"
        done
    } | sha256sum | cut -c1-64
) || { echo "synth-one: cannot read the inputs in $dir" >&2; exit 2; }
entry="$cache/$key.json.gz"
if [ -f "$entry" ] && gzip -dc "$entry" >"$netlist" 2>/dev/null; then
    touch "$entry"
    echo "synth-one: cached netlist $key" >"$log"
    exit 0
fi
synthesise
# Written whole or not at all; a cache that cannot be written only costs time.
if mkdir -p "$cache" 2>/dev/null && gzip -c "$netlist" >"$entry.$$" 2>/dev/null; then
    mv -f "$entry.$$" "$entry"
else
    rm -f "$entry.$$"
fi
