#!/usr/bin/env bash
# The benchmark harness (bench/run.sh) on zmote alone, as short as it runs: throughput, latency
# and heap in peer mode, latency beside its floor (bench/floor.c), latency through a Rust router
# in client mode, throughput and latency of peers on a multicast group (in a network namespace of
# their own), one round of 1 s with 8-byte payloads. It checks that each prints its figure lines
# and leaves no program running; the figures themselves decide nothing (a shared machine makes
# them noise at this length).
#
# usage: scripts/check-bench.sh [EXAMPLES_DIR]    (default build/release/examples, built when missing)
set -uo pipefail
cd "$(dirname "$0")/.."

dir=${1:-}
export ZM_BENCH_OUT=$PWD/build/bench-smoke
failed=0
netns=
bad() { echo "FAILED: $1" >&2; failed=1; }

# Runs bench/run.sh with the arguments after NAME and checks its output against each regex given
# after "--": every one must match a line.
check() {
    local name=$1 args=() out=$ZM_BENCH_OUT/$1.out re
    shift
    while [ "$1" != -- ]; do args+=("$1"); shift; done
    shift
    mkdir -p "$ZM_BENCH_OUT"
    if ! timeout 120 $netns bench/run.sh "${args[@]}" ${dir:+-b "$dir"} >"$out" 2>&1; then
        cat "$out" >&2
        bad "$name: bench/run.sh ${args[*]} failed"
        return
    fi
    cat "$out"
    for re in "$@"; do
        grep -qE "$re" "$out" || bad "$name: no line matching '$re'"
    done
}

n='[0-9]+'
f='[0-9]+(\.[0-9]+)?'
check thr-peer thr -m peer -r 1 -d 1 -s 8 -w 2 -- \
    "^8 +B +$n +$n +$n +$f +([1-9]|10)/10 +$n\$"
check lat-peer lat -m peer -r 1 -n 100 -s 8 -- \
    "^8 +B +$n +$n +$n +$n +100/100\$"
check heap-peer heap -m peer -d 1 -s 8 -w 2 -- \
    "^8 +z_pub_thr +B( +$n){7} +$f\$" "^8 +z_sub_thr +B( +$n){7} +$f\$"
# Beside the floor under the round trip, bare sockets with the examples' threads (bench/floor.c).
floor=$(cd "${dir:-build/release/examples}/../bench/floor" 2>/dev/null && pwd) || floor=
if [ -n "$floor" ]; then
    check lat-floor lat -m peer -r 1 -n 100 -s 8 -a "$floor" -- \
        "^8 +A +$n +$n +$n +$n +100/100\$" "^8 +B +$n +$n +$n +$n +100/100\$" "^8 +B/A +$f +$f\$"
else
    bad "lat-floor: no bench/floor programs beside ${dir:-build/release/examples}"
fi
check lat-client lat -m client -r 1 -n 100 -s 8 -- \
    "^8 +B +$n +$n +$n +$n +100/100\$"
# Peers on a multicast group, inside a network namespace of their own (scripts/netns.sh).
netns=scripts/netns.sh
check thr-mcast thr -m mcast -r 1 -d 1 -s 8 -w 2 -- \
    "^8 +B +$n +$n +$n +$f +([1-9]|10)/10 +$n\$"
check lat-mcast lat -m mcast -r 1 -n 100 -s 8 -- \
    "^8 +B +$n +$n +$n +$n +100/100\$"
netns=

# Whatever the harness started, it stopped.
examples=$(cd "${dir:-build/release/examples}" 2>/dev/null && pwd) || examples=$PWD/build/release/examples
if strays=$(pgrep -af "^($examples${floor:+|$floor})/z_(pub_thr|sub_thr|ping|pong)( |\$)|$PWD/tests/interop/router.py"); then
    bad "programs left running: $strays"
fi

[ "$failed" = 0 ] && echo "bench harness: ok"
[ "$failed" = 0 ]
