# {{ banner[0] }}
# {{ banner[1] }}
#
# Full board build for {{ board.board_desc }} ({{ board.part }}):
{% if board.open -%}
# user logic with the open TOE engine + {{ mac_desc }} (your MAC wrapper)
{% else -%}
# user logic + TOE core (black box, licensed netlist) + {{ mac_desc }}
{% endif -%}
# + register path ({{ board.reg_desc }}), pins and clocks from {{ board.board_file }},
# implementation, reports and bitstream. Run from anywhere:
#   vivado -mode batch -source vivado/build.tcl
# Outputs land in vivado/out/board/. See README.md for what you must supply.

set script_dir [file dirname [file normalize [info script]]]
set build_dir [file dirname $script_dir]
set out_dir [file join $script_dir out board]

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
set part {{ board.part }}
set rtl_files [list{% for f in board.rtl %} \
    {{ f }}{% endfor %}]

file mkdir $out_dir
create_project -in_memory -part $part
set_property target_language Verilog [current_project]

foreach f $rtl_files {
    set path [file join $build_dir $f]
    if {![file exists $path]} {
        puts stderr "ERROR: RTL file $path is missing: run `cargo run -p gen -- --out $build_dir` first."
        exit 1
    }
    read_verilog $path
}
foreach path [list $board_top_file $platform_file{% if board.open %} $mac_file{% endif %}] {
    if {![file exists $path]} {
        puts stderr "ERROR: RTL file $path is missing: run `cargo run -p gen -- --out $build_dir` first."
        exit 1
    }
    read_verilog $path
}

{% if !board.open -%}
switch -- [string tolower [file extension $toe_netlist]] {
    .edf - .edn - .edif {
        # A netlist fills the black box declared by the generated stub (same module name and ports).
        read_verilog [file join $build_dir {{ board.toe_stub }}]
        read_edif $toe_netlist
    }
    .v { read_verilog $toe_netlist }
    .sv { read_verilog -sv $toe_netlist }
    .xci { read_ip $toe_netlist }
    default {
        puts stderr "ERROR: TOE core $toe_netlist: unsupported file type; use .edf/.edn/.edif, .v, .sv or .xci"
        exit 1
    }
}

{% endif -%}
# Vendor IP: register path and Ethernet MAC.
source [file join $script_dir ip.tcl]

read_xdc [file join $script_dir board.xdc]

synth_design -top $board_top -part $part
write_checkpoint -force [file join $out_dir post_synth.dcp]
opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $out_dir post_route.dcp]

report_utilization -hierarchical -file [file join $out_dir utilization_hier.rpt]
report_utilization -file [file join $out_dir utilization.rpt]
report_timing_summary -max_paths 20 -report_unconstrained -file [file join $out_dir timing_summary.rpt]
report_clock_interaction -file [file join $out_dir clock_interaction.rpt]
report_cdc -details -file [file join $out_dir cdc.rpt]
report_design_analysis -logic_level_distribution -file [file join $out_dir logic_levels.rpt]
report_drc -file [file join $out_dir drc.rpt]

write_bitstream -force [file join $out_dir "$board_top.bit"]
puts "Board build for $part done: bitstream and reports in $out_dir"
