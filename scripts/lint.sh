#!/usr/bin/env bash
# verilator --lint-only -Wall on every generated Verilog file, top and each
# module file on its own, with the rust-hdl waivers only. Each run is done
# twice: as Verilator reads the files (VERILATOR defined) and with
# -UVERILATOR, which is what synthesis reads (the verifier's byte check has a
# simulation-only form; see hdl/src/beat_check.rs). The runs are independent
# and go LINT_JOBS at a time (default: the number of cores).
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
waivers="$root/verilate/verilator_waivers.vlt"
cd "$build"
mapfile -t files < rtl/files.f
top=$(basename "${files[-1]}" .v)
echo "lint: top $top (${#files[@]} files)"
modules=("$top")
for f in "${files[@]}"; do
    modules+=("$(basename "$f" .v)")
done
# One line per run: FORM MODULE (FORM "-" for none).
for form in - -UVERILATOR; do
    for module in "${modules[@]}"; do
        printf '%s %s\n' "$form" "$module"
    done
done | xargs -P "${LINT_JOBS:-$(nproc)}" -L 1 bash -c '
    form=$1 module=$2
    args=(--lint-only -Wall)
    [ "$form" = - ] || args+=("$form")
    verilator "${args[@]}" "$0" -f rtl/files.f --top-module "$module" \
        || { echo "lint: $module failed${args[2]:+ with ${args[2]}}" >&2; exit 1; }
' "$waivers" || { echo "lint: FAILED" >&2; exit 1; }
echo "lint: clean"
