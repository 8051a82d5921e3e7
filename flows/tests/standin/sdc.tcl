# SDC commands (Quartus Timing Analyzer) the generated SDC files may use.
::recording {
    set_time_format create_clock derive_clock_uncertainty derive_pll_clocks
    set_clock_groups set_false_path set_max_delay
}
::getter get_ports port
::getter get_clocks clock
::getter get_registers reg
