# Vivado commands the generated scripts and XDC may use.
::recording {
    create_project read_verilog read_edif read_ip synth_design opt_design place_design
    phys_opt_design route_design write_checkpoint write_bitstream report_utilization
    report_timing_summary report_clock_interaction report_cdc report_design_analysis
    report_drc create_ip generate_target synth_ip set_property create_clock
    set_clock_groups set_false_path set_max_delay
}
::getter get_ports port
::getter get_clocks clock
::getter get_pins pin
::getter get_ips ip
::getter get_cells cell
proc current_project {args} { ::record current_project {*}$args; return project }
proc current_design {args} { ::record current_design {*}$args; return design }
# read_xdc records the file and runs it, so its constraints are recorded too.
proc read_xdc {args} {
    ::record read_xdc {*}$args
    set f [lindex $args end]
    if {![file exists $f]} { error "stand-in: read_xdc: no file $f" }
    uplevel #0 [list source $f]
}
