# Quartus Timing Analyzer report commands (quartus_sta --report_script).
::recording {
    create_timing_summary report_clock_fmax_summary report_clock_transfers
    report_timing report_logic_depth
}
