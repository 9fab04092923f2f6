# Checks of a script's environment knobs, shared by the queues in scripts/. Source this
# file after defining `fail MESSAGE` (which prints and exits), then:
#
#   whole_numbers NAME...   each knob a positive whole number
#   numbers NAME...         each knob a number (a sign and decimals allowed)
#   clock_or_empty NAME     the knob empty, or a clock BASE+INC in seconds
whole_numbers() {
    local knob
    for knob; do
        [[ ${!knob} =~ ^[1-9][0-9]*$ ]] || fail "$knob must be a positive whole number, got '${!knob}'"
    done
}

numbers() {
    local knob
    for knob; do
        [[ ${!knob} =~ ^-?[0-9]+(\.[0-9]+)?$ ]] || fail "$knob must be a number, got '${!knob}'"
    done
}

clock_or_empty() {
    [[ -z ${!1} || ${!1} =~ ^[0-9]+(\.[0-9]+)?\+[0-9]+(\.[0-9]+)?$ ]] ||
        fail "$1 must be BASE+INC in seconds (for example 10+0.1), got '${!1}'"
}
