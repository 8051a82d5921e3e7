#!/usr/bin/env bash
# make yardstick: the generated datapath beside the hand-written yardstick
# (issue 14). Writes the loopback wrapper `top` and the datapath it wraps
# (`yardstick` binary of gen, default design) into a temporary folder and runs
# the yardstick's compare.sh on them with the generator's and verifier's
# module names as the binary reports them.
#   YARDSTICK=DIR  the yardstick folder (compare.sh, reference/); default ../shared/yardstick
#   REPS=N         interleaved simulation runs (default 3)
#   RECORD=pruned  leave the first-error record out of err_cnt, so its logic
#                  is pruned (default live, as in the product)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
yardstick=${YARDSTICK:-$root/../shared/yardstick}
if [ ! -x "$yardstick/compare.sh" ]; then
    echo "yardstick: no executable compare.sh in $yardstick: set YARDSTICK=DIR to the yardstick folder (e.g. make yardstick YARDSTICK=/path/to/shared/yardstick)" >&2
    exit 2
fi
cargo build -q -p gen --bin yardstick
bin="${CARGO_TARGET_DIR:-$root/target}/debug/yardstick"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" --out "$work/rtl" --record "${RECORD:-live}" >"$work/names"
# key value: wrapper (file), datapath (one line per module file), generator, verifier (module names).
value() { awk -v k="$1" '$1 == k { print $2 }' "$work/names"; }
wrapper=$(value wrapper) generator=$(value generator) verifier=$(value verifier)
mapfile -t datapath < <(value datapath)
for v in wrapper datapath generator verifier; do
    [ -n "${!v}" ] || { echo "yardstick: the yardstick binary did not report the $v:"; cat "$work/names"; exit 1; } >&2
done
echo "yardstick: $(basename "$wrapper") around $(basename "${datapath[-1]}") (${#datapath[@]} module files); generator $generator, verifier $verifier; first-error record ${RECORD:-live}"
"$yardstick/compare.sh" --reps "${REPS:-3}" --generator "$generator" --verifier "$verifier" "$wrapper" "${datapath[@]}"
