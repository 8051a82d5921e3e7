# Quartus commands (quartus_sh -t) the generated scripts and QSF may use.
rename package ::_real_package
proc package {args} {
    if {[lindex $args 0] eq "require" && [string match ::quartus::* [lindex $args end]]} {
        ::record package {*}$args
        return 1.0
    }
    uplevel 1 [list ::_real_package {*}$args]
}
::recording {
    project_new project_close set_global_assignment set_instance_assignment
    set_location_assignment export_assignments execute_module execute_flow
}
