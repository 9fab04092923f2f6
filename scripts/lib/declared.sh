# The declaration of a result that grows over many legs and machines, shared by
# scripts/ethereal_match.sh, scripts/texel_data.sh, scripts/lever_sprts.sh and
# scripts/group_tunes.sh. Source this file, then:
#
#   declare_or_check FILE WHAT PREFIX
#
# runs the caller's `declaration` function (it prints whatever makes the result what it
# is: binaries' sha256, seeds, settings). With FILE absent or empty, it writes FILE and
# shows it; otherwise it compares, and on any difference prints both sides and exits 2,
# so a leg can never continue a result under other conditions. WHAT names the result in
# that message ("match", "data set"); PREFIX is the script's name for its messages.
#
#   write_origin FILE
#   origin_commit FILE
#
# write_origin writes where the result was declared from: the checkout's commit and
# bench signature (run from the repository root), beside the declaration, which names
# binaries only; origin_commit prints that commit back (nothing when FILE is missing).
declare_or_check() {
    local file=$1 what=$2 prefix=$3
    if [[ ! -s $file ]]; then
        declaration >"$file"
        echo "$prefix: declared in $file:" >&2
        sed 's/^/    /' "$file" >&2
        return 0
    fi
    local differs
    differs=$(diff <(declaration) "$file") && return 0
    {
        echo "$prefix: $file declares another $what:"
        sed 's/^/    /' <<<"$differs"
        echo "    (< as given now, > as declared)"
        echo "use another STATE for another $what"
    } >&2
    exit 2
}

write_origin() {
    echo "built from $(git rev-parse --short HEAD 2>/dev/null || echo '?'), bench $(tr -dc '0-9' <bench.txt)" >"$1"
}

origin_commit() {
    sed -n 's/^built from \([^,]*\),.*/\1/p' "$1" 2>/dev/null || true
}
