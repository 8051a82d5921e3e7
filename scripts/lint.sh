#!/usr/bin/env bash
# verilator --lint-only -Wall on every generated Verilog file, top and each
# module file on its own, with the rust-hdl waivers only. Each run is done
# twice: as Verilator reads the files (VERILATOR defined) and with
# -UVERILATOR, which is what synthesis reads (the verifier's byte check has a
# simulation-only form; see hdl/src/beat_check.rs).
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
waivers="$root/verilate/verilator_waivers.vlt"
cd "$build"
mapfile -t files < rtl/files.f
top=$(basename "${files[-1]}" .v)
echo "lint: top $top (${#files[@]} files)"
for form in "" -UVERILATOR; do
    verilator --lint-only -Wall ${form:+"$form"} "$waivers" -f rtl/files.f --top-module "$top"
    for f in "${files[@]}"; do
        module=$(basename "$f" .v)
        verilator --lint-only -Wall ${form:+"$form"} "$waivers" -f rtl/files.f --top-module "$module"
    done
done
echo "lint: clean"
