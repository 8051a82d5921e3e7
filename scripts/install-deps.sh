#!/usr/bin/env bash
# Installs what the tests need and is missing, from Debian's packages:
# Verilator (testbench, lint), yosys (synth-estimate), tclsh (script stand-ins),
# gcc (C header self-test), iperf3 (bench-host), zlib (FST traces).
set -euo pipefail
need=()
command -v verilator >/dev/null || need+=(verilator)
command -v yosys >/dev/null || need+=(yosys)
command -v tclsh >/dev/null || need+=(tcl)
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
command -v make >/dev/null || need+=(make)
command -v iperf3 >/dev/null || need+=(iperf3)
[ -e /usr/include/zlib.h ] || need+=(zlib1g-dev)
if [ ${#need[@]} -eq 0 ]; then
    echo "deps: verilator $(verilator --version | awk '{print $2}'), yosys, tclsh, gcc, iperf3 present"
    exit 0
fi
echo "deps: installing ${need[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
echo "deps: verilator $(verilator --version | awk '{print $2}') installed"
