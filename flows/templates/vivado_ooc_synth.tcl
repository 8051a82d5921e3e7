# {{ banner[0] }}
# {{ banner[1] }}
#
# Out-of-context synthesis of the user logic `{{ top_plain }}` for {{ part }}
# ({{ part_note }}). Run from anywhere:
#   vivado -mode batch -source vivado/ooc_synth.tcl
# Reports land in vivado/out/ooc/.

set script_dir [file dirname [file normalize [info script]]]
set build_dir [file dirname $script_dir]
set out_dir [file join $script_dir out ooc]
file mkdir $out_dir

set part {{ part }}
set top {{ top }}
set rtl_files [list{% for f in rtl %} \
    {{ f }}{% endfor %}]

foreach f $rtl_files {
    set path [file join $build_dir $f]
    if {![file exists $path]} {
        puts stderr "ERROR: RTL file $path is missing: run `cargo run -p gen -- --out $build_dir` first."
        exit 1
    }
    read_verilog $path
}
read_xdc -mode out_of_context [file join $script_dir ooc.xdc]

synth_design -top $top -part $part -mode out_of_context -flatten_hierarchy rebuilt

report_utilization -file [file join $out_dir utilization.rpt]
report_utilization -hierarchical -file [file join $out_dir utilization_hier.rpt]
report_timing_summary -max_paths 20 -report_unconstrained -file [file join $out_dir timing_summary.rpt]
report_clock_interaction -file [file join $out_dir clock_interaction.rpt]
report_cdc -details -file [file join $out_dir cdc.rpt]
report_design_analysis -logic_level_distribution -file [file join $out_dir logic_levels.rpt]
write_checkpoint -force [file join $out_dir $top.dcp]
puts "OOC synthesis of $top for $part done: reports in $out_dir"
