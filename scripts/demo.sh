#!/usr/bin/env bash
# The live demo: two zmote programs talk Zenoh to each other over loopback, peer to peer, with no
# router. z_sub listens on a free TCP port and waits for 5 samples; z_pub connects to it and puts
# one a second. Both print as the samples flow; the demo ends by itself in about 10 s and exits
# 0 only if the subscriber received all 5. Every wait is bounded, and only the process groups
# started here are signalled.
set -euo pipefail
cd "$(dirname "$0")/.."

count=5
limit_s=20

scripts/setup.sh build
dir=build/demo
mkdir -p "$dir"
if ! { cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZM_BUILD_TESTS=OFF &&
       ninja -C "$dir" -j2 z_pub z_sub; } >"$dir/build.log" 2>&1; then
    cat "$dir/build.log" >&2
    echo "error: z_pub and z_sub did not build (log: $dir/build.log)" >&2
    exit 1
fi

# A TCP port nobody listens on: a random one, checked against the kernel's socket tables.
free_port() {
    local port
    for _ in $(seq 50); do
        port=$((20000 + RANDOM % 40000))
        if ! awk 'FNR > 1 { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null |
                grep -qix "$(printf '%04X' "$port")"; then
            echo "$port"
            return 0
        fi
    done
    echo "error: no free TCP port found" >&2
    return 1
}

groups=()
cleanup() {
    local g
    for g in "${groups[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
    sleep 0.2
    for g in "${groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null || true; done
    wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Runs a program in its own process group; its lines go to LOG and, labelled, to the terminal.
start() {
    local label=$1 log=$2
    shift 2
    setsid "$@" > >(tee "$log" | sed -u "s/^/  $label | /") 2>&1 &
    groups+=($!)
}

# Waits until a line of FILE matches REGEX, at most SECONDS.
wait_for() {
    local file=$1 regex=$2 seconds=$3 i
    for ((i = 0; i < seconds * 10; i++)); do
        grep -qE "$regex" "$file" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

port=$(free_port)
ep=tcp/127.0.0.1:$port
sub_log=$dir/z_sub.log
pub_log=$dir/z_pub.log
rm -f "$sub_log" "$pub_log"

echo "zmote demo: z_sub listens on $ep, z_pub connects to it; peer to peer, no router."
echo "\$ z_sub -m peer -l $ep -n $count"
start "z_sub" "$sub_log" "$dir/examples/z_sub" -m peer -l "$ep" -n "$count"
sub_pid=${groups[-1]}
if ! wait_for "$sub_log" '^Press CTRL-C' 10; then
    echo "error: z_sub did not get ready within 10 s" >&2
    exit 1
fi

echo "\$ z_pub -m peer -e $ep -n $count"
start "z_pub" "$pub_log" "$dir/examples/z_pub" -m peer -e "$ep" -n "$count" -v "Hello from zmote!"

# z_sub exits by itself after the count; bounded all the same.
status=
for ((i = 0; i < limit_s * 10; i++)); do
    if ! kill -0 "$sub_pid" 2>/dev/null; then
        if wait "$sub_pid"; then status=0; else status=$?; fi
        break
    fi
    sleep 0.1
done
sleep 0.2 # the labelling pipes flush their last lines

received=$(grep -c '^>> \[Subscriber\] Received' "$sub_log" || true)
if [ -z "$status" ]; then
    echo "demo failed: z_sub still waiting after ${limit_s}s ($received of $count samples)" >&2
    exit 1
fi
if [ "$status" != 0 ] || [ "$received" != "$count" ]; then
    echo "demo failed: z_sub exited with $status after $received of $count samples" >&2
    exit 1
fi
echo "demo ok: z_sub received $received of $count samples from z_pub, peer to peer."
