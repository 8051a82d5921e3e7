# {{ banner[0] }}
# {{ banner[1] }}
#
# Timing reports, run by quartus_sta --report_script after the timing netlist
# is built and the SDC read. Reports land in quartus/out/<flow>/reports/.

set reports [file join [pwd] reports]
file mkdir $reports

create_timing_summary -setup -file [file join $reports timing_summary_setup.rpt]
create_timing_summary -hold -file [file join $reports timing_summary_hold.rpt]
report_clock_fmax_summary -file [file join $reports fmax.rpt]
report_clock_transfers -file [file join $reports clock_transfers.rpt]
report_timing -setup -npaths 20 -detail path_only -file [file join $reports worst_paths.rpt]
report_logic_depth -npaths 20 -file [file join $reports logic_depth.rpt]
