# {{ banner[0] }}
# {{ banner[1] }}
#
# Out-of-context synthesis of the user logic `{{ top_plain }}` for {{ part }}
# ({{ part_note }}). Quartus has no out-of-context mode: the user logic is the
# top and its non-clock ports are virtual pins. Run from anywhere:
#   quartus_sh -t quartus/ooc_synth.tcl
# The project and reports land in quartus/out/ooc/.

package require ::quartus::project
package require ::quartus::flow

set script_dir [file dirname [file normalize [info script]]]
set build_dir [file dirname $script_dir]
set work_dir [file join $script_dir out ooc]
file mkdir $work_dir
cd $work_dir

set family {{ family }}
set part {{ part }}
set top {{ top }}
set rtl_files [list{% for f in rtl %} \
    {{ f }}{% endfor %}]
set clock_ports [list{% for c in clocks %} {{ c.name }}{% endfor %}]

foreach f $rtl_files {
    if {![file exists [file join $build_dir $f]]} {
        puts stderr "ERROR: RTL file [file join $build_dir $f] is missing: run `cargo run -p gen -- --out $build_dir` first."
        exit 1
    }
}

project_new -overwrite -revision $top $top
set_global_assignment -name FAMILY $family
set_global_assignment -name DEVICE $part
set_global_assignment -name TOP_LEVEL_ENTITY $top
set_global_assignment -name PROJECT_OUTPUT_DIRECTORY output_files
foreach f $rtl_files {
    set_global_assignment -name VERILOG_FILE [file join $build_dir $f]
}
set_global_assignment -name SDC_FILE [file join $script_dir ooc.sdc]
set_instance_assignment -name VIRTUAL_PIN ON -to *
foreach clk $clock_ports {
    set_instance_assignment -name VIRTUAL_PIN OFF -to $clk
}
{% if let Some(x) = cdc %}# Register-file crossing: the synchroniser flip-flops (registers u_core|u_req_sync|ff1_reg ...).{% for c in x.quartus_sync %}
set_instance_assignment -name SYNCHRONIZER_IDENTIFICATION FORCED -to {{ c }}{% endfor %}
{% endif %}export_assignments

execute_module -tool syn
execute_module -tool fit
execute_module -tool sta -args "--report_script=[file join $script_dir sta_report.tcl]"
project_close

# Utilisation: Quartus writes the fitter summary; keep a copy beside the timing reports.
file mkdir [file join $work_dir reports]
foreach summary [list "output_files/$top.syn.summary" "output_files/$top.fit.summary"] {
    if {[file exists $summary]} {
        file copy -force $summary [file join $work_dir reports]
    }
}
puts "OOC synthesis of $top for $part done: reports in [file join $work_dir reports]"
