# {{ banner[0] }}
# {{ banner[1] }}
#
# Full board build for {{ board.board_desc }} ({{ board.part }}):
{% if board.open -%}
# user logic with the open TOE engine + Ethernet MAC IP (your MAC wrapper)
{% else -%}
# user logic + TOE core (black box, licensed netlist) + Ethernet MAC IP
{% endif -%}
# + register path ({{ board.reg_desc }}), pins and clocks from {{ board.board_file }},
# compilation (synthesis, fit, timing, assembler: .sof) and reports. Run from anywhere:
#   quartus_sh -t quartus/build.tcl
# The project lands in quartus/out/board/. See README.md for what you must supply.

package require ::quartus::project
package require ::quartus::flow

set script_dir [file dirname [file normalize [info script]]]
set build_dir [file dirname $script_dir]
set work_dir [file join $script_dir out board]

{% if board.open -%}
# The board files are yours, not generated: the platform and the Ethernet MAC wrapper, in one folder.
set supply_dir {{ board.supply_dir }}
if {[file pathtype $supply_dir] ne "absolute"} {
    set supply_dir [file join $build_dir $supply_dir]
}

# The board top (generated) instantiates {{ board.user_inst_plain }} ($top, the user logic with the open TOE engine),
# {{ board.mac_inst_plain }} (the Ethernet MAC) and {{ board.platform_inst_plain }}: the MAC wrapper and the platform module
# (clocks, resets, register master) are yours, in $supply_dir, with the ports of the stubs.
set top {{ board.top }}
set board_top {{ board.board_top }}
set board_top_file [file join $build_dir {{ board.board_top_file }}]
set platform_file [file join $supply_dir {{ board.platform_file }}]
set platform_stub [file join $build_dir {{ board.platform_stub }}]
if {![file exists $platform_file]} {
    puts stderr "ERROR: platform module not found: $platform_file"
    puts stderr "ERROR: write [file rootname [file tail $platform_file]] (clocks, resets, register master) with the ports of $platform_stub there; see README.md, section 'What you supply'."
    exit 1
}
set mac_file [file join $supply_dir {{ board.mac_file }}]
set mac_stub [file join $build_dir {{ board.mac_stub }}]
if {![file exists $mac_file]} {
    puts stderr "ERROR: MAC wrapper not found: $mac_file"
    puts stderr "ERROR: write [file rootname [file tail $mac_file]] (the vendor Ethernet MAC IP, its AXI4-Stream crossed to user_clk) with the ports of $mac_stub beside the platform; see README.md, section 'What you supply'."
    exit 1
}

{% else -%}
# The licensed TOE core is not generated: stop before anything else if it is absent.
set toe_netlist {{ board.toe_netlist }}
if {[file pathtype $toe_netlist] ne "absolute"} {
    set toe_netlist [file join $build_dir $toe_netlist]
}
if {![file exists $toe_netlist]} {
    puts stderr "ERROR: TOE core netlist not found: $toe_netlist"
    puts stderr "ERROR: copy your licensed TOE core there, or set toe.netlist in the configuration and run `cargo run -p gen` again."
    exit 1
}

# The board top (generated) instantiates {{ board.user_inst_plain }} ($top), {{ board.toe_inst_plain }} (the TOE core) and
# {{ board.platform_inst_plain }}: the platform module (clocks, resets, register master) is yours, in the
# folder of the TOE netlist, with the ports of the stub {{ board.platform_stub_plain }}.
set top {{ board.top }}
set board_top {{ board.board_top }}
set board_top_file [file join $build_dir {{ board.board_top_file }}]
set platform_file [file join [file dirname $toe_netlist] {{ board.platform_file }}]
set platform_stub [file join $build_dir {{ board.platform_stub }}]
if {![file exists $platform_file]} {
    puts stderr "ERROR: platform module not found: $platform_file"
    puts stderr "ERROR: write [file rootname [file tail $platform_file]] (clocks, resets, register master) with the ports of $platform_stub beside the TOE netlist; see README.md, section 'What you supply'."
    exit 1
}

{% endif -%}
# IP you create in Quartus (parameters in README.md): checked before the long compile.
set ip_files [list{% for ip in ip_files %} \
    {{ ip }}{% endfor %}]
foreach ip $ip_files {
    if {![file exists [file join $script_dir $ip]]} {
        puts stderr "ERROR: IP file [file join $script_dir $ip] not found: create it as README.md, section 'Quartus IP', describes."
        exit 1
    }
}

set family {{ family }}
set part {{ board.part }}
set rtl_files [list{% for f in board.rtl %} \
    {{ f }}{% endfor %}]
foreach f $rtl_files {
    if {![file exists [file join $build_dir $f]]} {
        puts stderr "ERROR: RTL file [file join $build_dir $f] is missing: run `cargo run -p gen -- --out $build_dir` first."
        exit 1
    }
}

file mkdir $work_dir
cd $work_dir
project_new -overwrite -revision $board_top $board_top
set_global_assignment -name FAMILY $family
set_global_assignment -name DEVICE $part
set_global_assignment -name TOP_LEVEL_ENTITY $board_top
set_global_assignment -name PROJECT_OUTPUT_DIRECTORY output_files
foreach f $rtl_files {
    set_global_assignment -name VERILOG_FILE [file join $build_dir $f]
}
foreach f [list $board_top_file $platform_file{% if board.open %} $mac_file{% endif %}] {
    if {![file exists $f]} {
        puts stderr "ERROR: RTL file $f is missing: run `cargo run -p gen -- --out $build_dir` first."
        exit 1
    }
    set_global_assignment -name VERILOG_FILE $f
}
{% if !board.open -%}
switch -- [string tolower [file extension $toe_netlist]] {
    .v { set_global_assignment -name VERILOG_FILE $toe_netlist }
    .sv { set_global_assignment -name SYSTEMVERILOG_FILE $toe_netlist }
    .vqm { set_global_assignment -name VQM_FILE $toe_netlist }
    .ip { set_global_assignment -name IP_FILE $toe_netlist }
    default {
        puts stderr "ERROR: TOE core $toe_netlist: unsupported file type; use .v, .sv, .vqm or .ip"
        exit 1
    }
}
{% endif -%}
foreach ip $ip_files {
    set_global_assignment -name IP_FILE [file join $script_dir $ip]
}
# Pins and I/O standards of the board.
source [file join $script_dir board.qsf]
set_global_assignment -name SDC_FILE [file join $script_dir board.sdc]
export_assignments

execute_flow -compile
execute_module -tool sta -args "--report_script=[file join $script_dir sta_report.tcl]"
project_close
puts "Board build for $part done: output_files/$board_top.sof and reports in $work_dir"
