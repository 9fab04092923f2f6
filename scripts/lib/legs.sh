# A long queue played in legs, its state kept in a folder to commit, shared by
# scripts/lever_sprts.sh and scripts/group_tunes.sh. Source this file after setting
# STATE (the run folder), KEEP (a folder to copy the state to, or empty), LEG (seconds
# a leg may take, or empty) and defining `say MESSAGE`, then:
#
#   restore_kept    a STATE without a declaration starts from the copy in KEEP
#   keep_state      copies STATE, all but its binaries and lock files, to KEEP
#   leg_limit       sets the array `leg` to the `timeout` that ends a command at the
#                   leg's end (empty without LEG); fails once the leg's time is spent
#
# A command run under "${leg[@]}" gets SIGTERM at the leg's end, which the tuner takes
# as Ctrl-C (the pairs in flight finish, the journal or results file stays whole), and
# SIGKILL 90 seconds later as the backstop; its exit status is then 124.
LEGS_STARTED=$(date +%s)

restore_kept() {
    if [[ ! -s $STATE/declared.txt && -n $KEEP && -s $KEEP/declared.txt ]]; then
        say "continuing from the copy in $KEEP"
        mkdir -p "$STATE"
        cp -R "$KEEP/." "$STATE/"
    fi
}

keep_state() {
    [[ -n $KEEP ]] || return 0
    mkdir -p "$KEEP"
    tar -C "$STATE" --exclude=./bin --exclude='.*.lock' -cf - . | tar -C "$KEEP" -xf -
    say "kept in $KEEP (commit it so the result outlives this machine)"
}

leg_limit() {
    leg=()
    [[ -n $LEG ]] || return 0
    local left=$((LEG - ($(date +%s) - LEGS_STARTED)))
    ((left > 0)) || return 1
    leg=(timeout --foreground -s TERM -k 90 "$left")
}
