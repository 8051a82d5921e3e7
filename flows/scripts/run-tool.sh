#!/usr/bin/env bash
# Runs a generated vendor script when the vendor tool is on PATH.
#   bash flows/scripts/run-tool.sh vivado|quartus BUILD_DIR [ooc|board]
# ooc (default): out-of-context synthesis of the user logic; board: full board build.
# Exits non-zero, saying why, when the tool is missing or the script is not generated.
set -euo pipefail

usage() {
    echo "usage: $0 vivado|quartus BUILD_DIR [ooc|board]" >&2
    exit 2
}

[ $# -ge 2 ] && [ $# -le 3 ] || usage
tool=$1
build=$2
flow=${3:-ooc}

case "$flow" in
    ooc) script_name=ooc_synth.tcl ;;
    board) script_name=build.tcl ;;
    *) usage ;;
esac

case "$tool" in
    vivado) exe=vivado; dir="$build/vivado" ;;
    quartus) exe=quartus_sh; dir="$build/quartus" ;;
    *) usage ;;
esac

script="$dir/$script_name"
if [ ! -f "$script" ]; then
    echo "error: $script not found: generate it first (cargo run -p gen -- --out $build);" >&2
    echo "       the board build is generated only for a board of that vendor." >&2
    exit 1
fi

if ! command -v "$exe" >/dev/null 2>&1; then
    echo "error: $exe is not on PATH: cannot run $script." >&2
    echo "       Install $tool (or source its settings script) and run this target again;" >&2
    echo "       $build/README.md says what the script does and what you must supply." >&2
    exit 127
fi

cd "$dir"
case "$tool" in
    vivado) exec vivado -mode batch -nojournal -log "$flow.log" -source "$script_name" ;;
    quartus) exec quartus_sh -t "$script_name" ;;
esac
