#!/usr/bin/env bash
# Instructions per put, or per delivered sample, counted by callgrind (which counts instructions,
# so the figure does not depend on the machine's load), peer to peer over TCP on loopback.
#   put:    z_pub_thr runs under callgrind, to a z_sub_thr that runs natively; the instructions
#           spent inside z_publisher_put (inclusive: encoding, batching and the write to the
#           socket's system call) are divided by its calls, summed over every place that calls it.
#   sample: z_sub_thr runs under callgrind, fed by the feeder's z_pub_thr running natively (by
#           default the last folder given: zmote's flood, which stays steady); every instruction
#           of the subscriber's process, all threads (start-up included: a few million, against
#           hundreds of thousands of samples), is divided by the calls of its on_sample callback.
# Each build directory given gets one line; with two, the second's ratio to the first follows. A
# figure to compare builds with, never a pass or a fail. bench/run.sh instr runs it for both sides.
#
# usage: bench/instr.sh [-s BYTES] [-w put|sample] [-f FEED_DIR] EXAMPLES_DIR [EXAMPLES_DIR2]
#        (each folder holds z_pub_thr and z_sub_thr; with -w sample the feeder's z_pub_thr too)
set -euo pipefail
size=8
what=put
feed=
while getopts "s:w:f:" opt; do
    case "$opt" in
        s) size=$OPTARG ;;
        w) what=$OPTARG ;;
        f) feed=$OPTARG ;;
        *) sed -n 's/^# usage: //p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] && [[ $what = put || $what = sample ]] || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "error: valgrind not found (apt-get install valgrind)" >&2; exit 1; }
[ -n "$feed" ] || feed=${!#}
feed=$(cd "$feed" && pwd)

work=$(mktemp -d /tmp/zmote-instr.XXXXXX)
bg_pid=
cleanup() {
    [ -z "$bg_pid" ] || kill "$bg_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    [ -z "${ZM_INSTR_KEEP:-}" ] || cp -r "$work" "$ZM_INSTR_KEEP"; rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until a socket listens on loopback PORT (as /proc lists them), for up to a minute: a
# program starting under callgrind on a loaded machine takes seconds.
wait_listening() {
    local hex deadline=$((SECONDS + 60))
    printf -v hex '%04X' "$1"
    until awk -v p="$hex" 'FNR > 1 { split($2, l, ":"); if (l[2] == p && $4 == "0A") found = 1 } END { exit !found }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null; do
        [ "$SECONDS" -lt "$deadline" ] || { echo "error: nothing listens on port $1" >&2; exit 1; }
        sleep 0.1
    done
}

# Prints "<calls> <instructions>" of function FN from a callgrind output file: every call site's
# calls= line, followed by the line of its inclusive cost (the first event is Ir); and the
# whole program's instructions as a third figure (its "totals:" or "summary:" line).
calls_of() {
    awk -v fn="$2" '
        # Function names are compressed: "(id) name" the first time, "(id)" after.
        function name_of(rest,    id) {
            if (match(rest, /^\([0-9]+\)/)) {
                id = substr(rest, 1, RLENGTH)
                rest = substr(rest, RLENGTH + 1)
                sub(/^ /, "", rest)
                if (rest != "") names[id] = rest
                return names[id]
            }
            return rest
        }
        /^fn=/ { name_of(substr($0, 4)); next }
        /^cfn=/ { callee = (name_of(substr($0, 5)) == fn); next }
        /^calls=/ { if (callee) { split(substr($0, 7), c, " "); n += c[1]; take = 1 } next }
        take { split($0, f, " "); ir += f[2]; take = 0 }
        /^(totals|summary):/ { split($0, t, " "); total = t[2] }
        END { print n + 0, ir + 0, total + 0 }
    ' "$1"
}

first=
for dir in "$@"; do
    dir=$(cd "$dir" && pwd)
    port=$(free_port)
    out=$work/callgrind.out
    if [ "$what" = put ]; then
        "$dir/z_sub_thr" -m peer -l "tcp/127.0.0.1:$port" >"$work/sub.log" 2>&1 &
        bg_pid=$!
        wait_listening "$port"
        valgrind --tool=callgrind --callgrind-out-file="$out" "$dir/z_pub_thr" -m peer -e "tcp/127.0.0.1:$port" \
            -s "$size" >"$work/pub.log" 2>&1 || { cat "$work/pub.log" >&2; exit 1; }
        read -r calls ir _ < <(calls_of "$out" z_publisher_put)
        unit=put
    else
        valgrind --tool=callgrind --callgrind-out-file="$out" "$dir/z_sub_thr" -m peer -l "tcp/127.0.0.1:$port" \
            >"$work/sub.log" 2>&1 &
        bg_pid=$!
        wait_listening "$port"
        "$feed/z_pub_thr" -m peer -e "tcp/127.0.0.1:$port" -s "$size" >"$work/pub.log" 2>&1 || true
        wait "$bg_pid" || { cat "$work/sub.log" >&2; exit 1; }
        read -r calls _ ir < <(calls_of "$out" on_sample)
        unit="delivered sample"
    fi
    [ -z "$bg_pid" ] || kill "$bg_pid" 2>/dev/null || true
    wait "$bg_pid" 2>/dev/null || true
    bg_pid=
    [ "$calls" -gt 0 ] || { echo "error: no $unit recorded in $dir" >&2; exit 1; }
    per=$(awk -v i="$ir" -v c="$calls" 'BEGIN { printf "%.1f", i / c }')
    line="$dir: $size B: $calls ${unit}s, $per instructions per $unit"
    if [ -z "$first" ]; then
        first=$per
    else
        line="$line ($(awk -v a="$per" -v b="$first" 'BEGIN { printf "%.3f", a / b }') of the first)"
    fi
    echo "$line"
done
