#!/usr/bin/env bash
# make equiv: proves that a change to the generator left the logic of every
# generated module it touched the same, cycle for cycle, with yosys.
#
# The modules compared are those of a golden example (examples/golden/,
# default small_2s_256, the smallest with every module's file): each rtl/*.v
# file whose text differs between BEFORE and AFTER is proven equivalent to
# its old self. Both sides are read with every other module from AFTER, the
# old module renamed, then
#     equiv_make; equiv_simple -seq 2; equiv_induct; equiv_status -assert
# so the proof holds for every input sequence from any state in which the
# two sides' registers agree (they start so: both take their initial values).
# yosys reads a module's synthesis form: the simulation forms under
# `ifdef VERILATOR` are proven equal to it by hdl/tests/equivalence.rs.
#
#   BEFORE=REV     the goldens of git revision REV (default HEAD)
#   AFTER=REV      the goldens of git revision REV (default the work tree's,
#                  as `UPDATE_GOLDEN=1 cargo test -p gen --test examples golden` wrote them)
#   EXAMPLE=NAME   the golden example (default small_2s_256)
#   BEFORE_DIR=DIR, AFTER_DIR=DIR
#                  a build folder (rtl/files.f and the files it lists) instead
#                  of a golden example: `gen --out DIR` of the same
#                  configuration before and after the change
#
# A module whose ports changed, or a file added or removed, cannot be proven
# this way: the run names it and fails. Exit 0 only when every changed
# module was proven.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
before=${BEFORE:-HEAD}
after=${AFTER:-}
example=${EXAMPLE:-small_2s_256}
dir=examples/golden/$example
command -v yosys >/dev/null || { echo "equiv: yosys not found (make deps installs it)" >&2; exit 2; }
# Some goldens keep only their modules' hashes (rtl/blocks.sha256): they cannot be proven.
complete() {
    local f
    [ -f "$1/rtl/files.f" ] || return 1
    while read -r f; do [ -f "$1/$f" ] || return 1; done <"$1/rtl/files.f"
}
[ -n "${BEFORE_DIR:-}${AFTER_DIR:-}" ] || complete "$root/$dir" || { echo "equiv: $dir does not hold every module's file: EXAMPLE must name a golden example that does (small_2s_256, toe200g_agilex7)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# side REV OUT before|after: the example's golden folder at REV (the work
# tree when REV is empty) into OUT, or the side's folder (BEFORE_DIR, AFTER_DIR).
side() {
    mkdir -p "$2"
    local folder
    [ "$3" = before ] && folder=${BEFORE_DIR:-} || folder=${AFTER_DIR:-}
    if [ -n "$folder" ]; then
        complete "$folder" || { echo "equiv: $folder does not hold rtl/files.f and every file it lists" >&2; exit 2; }
        cp -r "$folder/." "$2"
    elif [ -z "$1" ]; then
        cp -r "$root/$dir/." "$2"
    else
        git -C "$root" rev-parse --verify -q "$1^{commit}" >/dev/null || { echo "equiv: no git revision $1" >&2; exit 2; }
        git -C "$root" archive "$1" "$dir" | tar -x -C "$work/archive-$3" 2>/dev/null || true
        [ -d "$work/archive-$3/$dir" ] || { echo "equiv: $dir does not exist at $1" >&2; exit 2; }
        cp -r "$work/archive-$3/$dir/." "$2"
    fi
}
mkdir -p "$work/archive-before" "$work/archive-after"
side "$before" "$work/before" before
side "$after" "$work/after" after
name() { [ "$1" = before ] && echo "${BEFORE_DIR:-$example at $before}" || echo "${AFTER_DIR:-$example in ${after:-the work tree}}"; }
echo "equiv: $(name before) against $(name after)"

mapfile -t files <"$work/after/rtl/files.f"
mapfile -t old_files <"$work/before/rtl/files.f"
failed=()
for f in "${old_files[@]}"; do
    [ -f "$work/after/$f" ] || { echo "  $(basename "$f" .v): removed, nothing to prove it against"; failed+=("$(basename "$f" .v)"); }
done
proven=0
for f in "${files[@]}"; do
    m=$(basename "$f" .v)
    if [ ! -f "$work/before/$f" ]; then
        echo "  $m: new, nothing to prove it against"
        failed+=("$m")
        continue
    fi
    cmp -s "$work/before/$f" "$work/after/$f" && continue
    grep -q "^module $m\b" "$work/before/$f" || { echo "  $m: no \`module $m\` in the old file"; failed+=("$m"); continue; }
    sed "0,/^module $m\b/s//module equiv_before_$m/" "$work/before/$f" >"$work/before_$m.v"
    log="$work/$m.log"
    if (cd "$work/after" && yosys -q -l "$log" -p "read_verilog -sv ${files[*]}; read_verilog -sv $work/before_$m.v; \
            proc; opt_clean; equiv_make equiv_before_$m $m equiv; hierarchy -top equiv; \
            equiv_simple -seq 2; equiv_induct; equiv_status -assert") >/dev/null 2>&1; then
        cells=$(sed -n 's/^Found \([0-9]*\) \$equiv cells in equiv:.*/\1/p' "$log" | tail -1)
        echo "  $m: equivalent (${cells:-all} \$equiv cells proven)"
        proven=$((proven + 1))
    else
        echo "  $m: NOT proven equivalent; yosys said:"
        # The outputs (and registers) that differ, or why yosys stopped.
        grep -E "^ERROR|Unproven \\\$equiv|proven and" "$log" | sed 's/^ */      /' | awk 'NR <= 20'
        failed+=("$m")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "equiv: $proven module(s) proven, not proven: ${failed[*]}"
    exit 1
fi
[ "$proven" -gt 0 ] || { echo "equiv: no module's text changed, nothing to prove"; exit 0; }
echo "equiv: $proven changed module(s), every one proven equivalent"
