#!/usr/bin/env bash
# Installs what the tests need and is missing, from Debian's packages:
# Verilator (testbench, lint), yosys (synth-estimate), tclsh (script stand-ins),
# gcc (C header self-test), iperf3 (bench-pc), iperf 2.x (the iperf interop
# tests), ip, ss, nstat, ping, arping and tcpdump (the open engine's tests on
# a TAP device in a private namespace), zlib (FST traces), Python's
# venv; then LiteX, pinned in scripts/requirements-litex.txt, into .venv/ (the
# Etherbone interop test runs LiteX's own client). Quick when all is present.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

need=()
command -v verilator >/dev/null || need+=(verilator)
command -v yosys >/dev/null || need+=(yosys)
command -v tclsh >/dev/null || need+=(tcl)
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v iperf3 >/dev/null || need+=(iperf3)
command -v iperf >/dev/null || need+=(iperf)
command -v ip >/dev/null && command -v ss >/dev/null && command -v nstat >/dev/null || need+=(iproute2)
command -v ping >/dev/null || need+=(iputils-ping)
command -v arping >/dev/null || need+=(arping)
command -v tcpdump >/dev/null || need+=(tcpdump)
[ -e /usr/include/zlib.h ] || need+=(zlib1g-dev)
if ! command -v python3 >/dev/null; then
    need+=(python3 python3-venv)
elif [ ! -x "$root/.venv/bin/python" ] && ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    # Debian's python3 ships venv without ensurepip; python3-venv adds it.
    need+=(python3-venv)
fi
if [ ${#need[@]} -eq 0 ]; then
    echo "deps: verilator $(verilator --version | awk '{print $2}'), yosys, tclsh, gcc, iperf3, iperf, ip, ss, nstat, ping, arping, tcpdump, python3 present"
else
    echo "deps: installing ${need[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    echo "deps: verilator $(verilator --version | awk '{print $2}') installed"
fi

# LiteX in .venv/, at exactly the pinned version.
req="$root/scripts/requirements-litex.txt"
want="$(sed -n 's/^litex==\([^[:space:]]*\).*/\1/p' "$req")"
[ -n "$want" ] || { echo "deps: no litex==VERSION line in $req" >&2; exit 1; }
py="$root/.venv/bin/python"
have="$( [ -x "$py" ] && "$py" -c 'import importlib.metadata as m; print(m.version("litex"))' 2>/dev/null || true)"
if [ "$have" = "$want" ]; then
    echo "deps: litex $have present in .venv"
    exit 0
fi
if [ ! -x "$py" ]; then
    echo "deps: creating .venv"
    python3 -m venv "$root/.venv"
fi
echo "deps: installing litex $want into .venv"
"$py" -m pip install --quiet --disable-pip-version-check -r "$req"
echo "deps: litex $("$py" -c 'import importlib.metadata as m; print(m.version("litex"))') installed in .venv"
