#!/usr/bin/env bash
# Instructions per put: z_pub_thr runs under callgrind (which counts instructions, so the figure
# does not depend on the machine's load), peer to peer over TCP on loopback to a z_sub_thr that
# runs natively, and the instructions spent inside z_publisher_put (inclusive: encoding, batching
# and the write to the socket's system call) are divided by its calls, summed over every place
# that calls it. Each build directory given gets one line; with two, the second's ratio to the
# first follows. A figure to compare builds with, never a pass or a fail.
#
# usage: bench/instr.sh [-s BYTES] EXAMPLES_DIR [EXAMPLES_DIR2]     (each holds z_pub_thr, z_sub_thr)
set -euo pipefail
size=8
if [ "${1:-}" = -s ]; then
    size=$2
    shift 2
fi
[ $# -ge 1 ] || { sed -n 's/^# usage: //p' "$0" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "error: valgrind not found (apt-get install valgrind)" >&2; exit 1; }

work=$(mktemp -d /tmp/zmote-instr.XXXXXX)
sub_pid=
cleanup() {
    [ -z "$sub_pid" ] || kill "$sub_pid" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Prints "<calls> <instructions>" of z_publisher_put from a callgrind output file: every call
# site's calls= line, followed by the line of its inclusive cost (the first event is Ir).
per_put() {
    awk '
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
        /^cfn=/ { callee = (name_of(substr($0, 5)) == "z_publisher_put"); next }
        /^calls=/ { if (callee) { split(substr($0, 7), c, " "); n += c[1]; take = 1 } next }
        take { split($0, f, " "); ir += f[2]; take = 0 }
        END { print n + 0, ir + 0 }
    ' "$1"
}

first=
for dir in "$@"; do
    dir=$(cd "$dir" && pwd)
    port=$(free_port)
    "$dir/z_sub_thr" -m peer -l "tcp/127.0.0.1:$port" >"$work/sub.log" 2>&1 &
    sub_pid=$!
    sleep 0.5
    out=$work/callgrind.out
    valgrind --tool=callgrind --callgrind-out-file="$out" "$dir/z_pub_thr" -m peer -e "tcp/127.0.0.1:$port" \
        -s "$size" >"$work/pub.log" 2>&1 || { cat "$work/pub.log" >&2; exit 1; }
    kill "$sub_pid" 2>/dev/null || true
    wait "$sub_pid" 2>/dev/null || true
    sub_pid=
    read -r calls ir < <(per_put "$out")
    [ "$calls" -gt 0 ] || { echo "error: no call of z_publisher_put recorded in $dir" >&2; exit 1; }
    per=$(awk -v i="$ir" -v c="$calls" 'BEGIN { printf "%.1f", i / c }')
    line="$dir: $size B puts: $calls calls, $per instructions per put"
    if [ -z "$first" ]; then
        first=$per
    else
        line="$line ($(awk -v a="$per" -v b="$first" 'BEGIN { printf "%.3f", a / b }') of the first)"
    fi
    echo "$line"
done
