#!/usr/bin/env bash
# verilator --lint-only -Wall on every generated Verilog file, top and each
# module file on its own, with the rust-hdl waivers only.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
waivers="$root/scripts/verilator_waivers.vlt"
cd "$build"
mapfile -t files < rtl/files.f
top=$(basename "${files[-1]}" .v)
echo "lint: top $top (${#files[@]} files)"
verilator --lint-only -Wall "$waivers" -f rtl/files.f --top-module "$top"
for f in "${files[@]}"; do
    module=$(basename "$f" .v)
    verilator --lint-only -Wall "$waivers" -f rtl/files.f --top-module "$module"
done
echo "lint: clean"
