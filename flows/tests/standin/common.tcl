# Recording stand-in, shared part: each command a stand-in proc receives is
# appended to the record file as fields separated by \x1f, records by \x1e.
# `::record_path` is set by the driver before this file is sourced.

set ::rec_fh [open $::record_path w]
fconfigure $::rec_fh -translation binary -encoding utf-8

proc ::record {args} {
    puts -nonewline $::rec_fh "[join $args \x1f]\x1e"
    flush $::rec_fh
}

rename exit ::_real_exit
proc exit {{code 0}} {
    ::record EXIT $code
    close $::rec_fh
    ::_real_exit $code
}

proc ::standin_done {} {
    ::record DONE
    close $::rec_fh
}

# A command no stand-in defines is a script error: the vendor tool would not
# know it either (as far as this stand-in set knows the tool).
proc unknown {args} {
    ::record UNKNOWN {*}$args
    error "stand-in: unknown command \"[lindex $args 0]\""
}

# Define stand-ins that only record.
proc ::recording {names} {
    foreach name $names {
        proc ::$name {args} "::record $name {*}\$args; return {}"
    }
}

# Object getters return a tagged name, so the record shows which object a
# command received: port:<name>, clock:<name>, pin:<name>, ip:<name>.
proc ::getter {name tag} {
    proc ::$name {args} "
        ::record $name {*}\$args
        set of \[lsearch -exact \$args -of_objects\]
        if {\$of >= 0} { return \"$tag:of(\[lindex \$args \[expr {\$of + 1}\]\])\" }
        return \"$tag:\[lindex \$args end\]\"
    "
}
