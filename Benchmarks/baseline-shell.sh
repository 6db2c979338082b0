#!/bin/sh
# The do-it-yourself cue loop a user writes in a shell: sleep for the interval, then notify.
#
#   baseline-shell.sh COUNT PERIOD_SECONDS
#
# COUNT cues, PERIOD_SECONDS apart as far as `sleep` goes: each cue also costs the time to spawn `sleep` and
# `notify-send`, which is where this loop drifts. Like intervald, it keeps one notification and replaces it in place
# (notify-send --print-id / --replace-id), so the notification server does the same work for both.
count=${1:?count}
period=${2:?period}
id=
i=0
while [ "$i" -lt "$count" ]; do
    sleep "$period"
    id=$(notify-send -a bench-shell -p ${id:+-r "$id"} "Cue $i" "Work · 250 ms")
    i=$((i + 1))
done
