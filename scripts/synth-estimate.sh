#!/usr/bin/env bash
# Resource and logic-depth estimate without vendor tools: yosys
# `synth_xilinx -family xcup` (UltraScale+) on each block of the generated
# design and on the whole top, flattened, figures from the mapped netlist.
# -nowidelut keeps abc from building LUT7..LUT9 functions out of LUT6 and
# MUXF7/8/9 for random logic (Vivado keeps MUXFs for real multiplexers), so
# the LUT+MUXF level count is the one Vivado's logic-level report would give.
#
# Then the whole top of every example configuration (examples/*.toml, by
# name; EXAMPLES=DIR takes them from DIR), each generated once into a
# temporary folder by `gen --config`, with the same yosys command: one row
# per example. Then the open engine's network node (hdl::net) at each data
# width, MTU 1500, written by tap_harness's `net-rtl`: one row per width. An example whose RTL is identical to the default build's
# reuses the whole top's netlist from the first table. Every yosys run (the
# blocks, the examples' tops and the node's widths) is one queue, SYNTH_JOBS at a time
# (default: the number of cores); the rows come out in block order and in
# name order, once every run has ended.
#
# Each yosys run goes through scripts/synth-one.sh: a run on inputs byte for
# byte those of an earlier run (yosys's version, its script, every file it
# reads) takes that run's netlist from the cache (SYNTH_CACHE, default
# ~/.cache/toe-user-logic/synth; SYNTH_CACHE=off runs every one), so a change
# that leaves the RTL alone is not synthesised again. The run says how many
# of its yosys runs came from the cache.
#
# The depth budget: a block, a whole top or a node deeper than SYNTH_MAX_LEVELS LUT
# levels (default 5, the whole top's target) fails the run, after the tables.
set -euo pipefail
export SYNTH_MAX_LEVELS=${SYNTH_MAX_LEVELS:-5}
over=()
# rows CMD...: synth_report CMD..., a row over the depth budget (exit 3)
# noted for the end, any other failure fatal.
rows() {
    local rc=0
    "$report" "$@" || rc=$?
    case $rc in
        0) ;;
        3) over+=("$2") ;;
        *) return "$rc" ;;
    esac
}
# budget: fail when a row was over the depth budget.
budget() {
    [ ${#over[@]} -eq 0 ] && return 0
    echo "synth-estimate: over the depth budget of $SYNTH_MAX_LEVELS LUT levels: ${over[*]}"
    exit 1
}
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
bin="${CARGO_TARGET_DIR:-$root/target}/debug"
# GEN_BUILT=1: `gen`, `synth_report` and `net-rtl` are already in $bin (make
# test builds every binary once, in its build stage); otherwise build them here.
[ "${GEN_BUILT:-0}" = 1 ] || cargo build -q -p gen -p tap_harness --bin synth_report --bin gen --bin net-rtl
report="$bin/synth_report"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# synth DIR MODULE NETLIST LOG: yosys on the build folder DIR, top MODULE
# (scripts/synth-one.sh: a run on the same inputs as an earlier one takes
# its netlist from SYNTH_CACHE).
synth() {
    bash "$root/scripts/synth-one.sh" "$@"
}

mapfile -t files <"$build/rtl/files.f"
top_module=$(basename "${files[-1]}" .v)
mapfile -t blocks < <(cd "$build" && "$report" blocks "${files[@]}")
jobs=${SYNTH_JOBS:-$(nproc)}

shopt -s nullglob
examples=("${EXAMPLES:-$root/examples}"/*.toml)
[ ${#examples[@]} -eq 0 ] || mapfile -t examples < <(printf '%s\n' "${examples[@]}" | LC_ALL=C sort)
# Generate every example first: a bad configuration stops the run before any synthesis.
for config in "${examples[@]}"; do
    name=$(basename "$config" .toml)
    "$bin/gen" --config "$config" --out "$work/ex/$name" 2>"$work/$name.log" \
        || { cat "$work/$name.log"; echo "synth-estimate: gen failed on example $name ($config)"; exit 1; }
done
# The network node at each width (MTU 1500): its RTL, its top module.
net_widths=(64 128 256 512 1024)
declare -A net_top
for w in "${net_widths[@]}"; do
    net_top[$w]=$("$bin/net-rtl" --width "$w" --mtu 1500 --out "$work/net/$w" 2>"$work/net-$w.log") \
        || { cat "$work/net-$w.log"; echo "synth-estimate: net-rtl failed at width $w"; exit 1; }
done

# One queue of yosys runs, SYNTH_JOBS at a time: the whole top first (the
# longest, some 11 minutes for the default design), then every example's
# top, largest RTL first, then the network node, widest first, then the
# blocks, last to first (the larger ones come last in files.f). One queue keeps every core busy while the top
# runs; two phases left one idle for most of it. The rows come out in
# block order, then in example name order.
queue=()   # entries: OUT-KEY DIR MODULE
queue+=("block-$((${#blocks[@]} - 1)) $build ${blocks[-1]}")
mapfile -t by_size < <(for config in "${examples[@]}"; do
    name=$(basename "$config" .toml)
    # An example whose RTL is byte for byte the default build's (the default
    # itself) has the top's netlist: nothing to run.
    diff -rq "$build/rtl" "$work/ex/$name/rtl" >/dev/null 2>&1 && continue
    echo "$(cat "$work/ex/$name/rtl/"*.v | wc -c) $name"
done | sort -rn | awk '{print $2}')
for name in "${by_size[@]}"; do
    mapfile -t ex_files <"$work/ex/$name/rtl/files.f"
    queue+=("$name $work/ex/$name $(basename "${ex_files[-1]}" .v)")
done
for ((i = ${#net_widths[@]} - 1; i >= 0; i--)); do
    w=${net_widths[$i]}
    queue+=("net-$w $work/net/$w ${net_top[$w]}")
done
for ((i = ${#blocks[@]} - 2; i >= 0; i--)); do
    queue+=("block-$i $build ${blocks[$i]}")
done
for entry in "${queue[@]}"; do
    read -r key dir module <<<"$entry"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    (
        rc=0
        synth "$dir" "$module" "$work/$key.json" "$work/$key.log" || rc=$?
        echo "$rc" >"$work/$key.rc"
    ) &
done
wait
hits=$( (grep -l "^synth-one: cached netlist" "$work"/*.log 2>/dev/null || true) | wc -l)
# Drops the netlists the cache should no longer hold, and names its folder.
cache_dir=$(bash "$root/scripts/synth-one.sh" --prune)
echo "synth-estimate: ${#queue[@]} yosys runs, $hits of them on inputs an earlier run had (netlist cache $cache_dir; SYNTH_CACHE=off runs every one)"

echo "synth-estimate: yosys $(yosys -V | awk '{print $2}') synth_xilinx -family xcup -nowidelut, flattened per module"
"$report" header
for i in "${!blocks[@]}"; do
    module=${blocks[$i]}
    [ "$(cat "$work/block-$i.rc" 2>/dev/null)" = 0 ] \
        || { cat "$work/block-$i.log"; echo "synth-estimate: yosys failed on $module"; exit 1; }
    rows row "$module" "$work/block-$i.json"
    [ "$module" != "$top_module" ] || cp "$work/block-$i.json" "$work/top.json"
done
echo "levels: LUT+MUXF levels on the deepest register-to-register path (carry cells not counted); carry: longest carry chain in cells"
echo "LUT: logic LUTs; the round-trip meter's 16 stamps are distributed RAM (three RAM32M16 cells a session), not counted there"

if [ ${#examples[@]} -eq 0 ]; then
    echo "synth-estimate: no examples/*.toml"
else
    echo
    echo "synth-estimate: the whole top of every example (${#examples[@]}, examples/*.toml), same yosys command"
    "$report" example-header
    for config in "${examples[@]}"; do
        name=$(basename "$config" .toml)
        if [ ! -e "$work/$name.rc" ]; then
            cp "$work/top.json" "$work/$name.json" && echo 0 >"$work/$name.rc"
        fi
        [ "$(cat "$work/$name.rc" 2>/dev/null)" = 0 ] \
            || { cat "$work/$name.log"; echo "synth-estimate: yosys failed on example $name ($config)"; exit 1; }
        rows example "$name" "$config" "$work/$name.json" \
            || { echo "synth-estimate: no row for example $name ($config)"; exit 1; }
    done
    echo "MB/s: peak user bandwidth of one session (W/8 x user clock); the whole top: register file and every session"
fi

echo
echo "synth-estimate: the open engine's network node at each width (MTU 1500; hdl::net, tap_harness net-rtl), same yosys command"
"$report" header
for w in "${net_widths[@]}"; do
    [ "$(cat "$work/net-$w.rc" 2>/dev/null)" = 0 ] \
        || { cat "$work/net-$w.log"; echo "synth-estimate: yosys failed on the network node at width $w"; exit 1; }
    rows row "${net_top[$w]}" "$work/net-$w.json"
done
budget
