#!/usr/bin/env bash
# zmote's benchmark harness: throughput, round-trip latency and heap use of the example programs
# of two builds that share zenoh-pico's example CLI (z_pub_thr, z_sub_thr, z_ping, z_pong), side
# A (zenoh-pico's, built by the user) and side B (zmote's). Runs alternate A B A B, each side's
# figures are pooled, and the answer is B's median over A's. Without -a only B runs, and its
# figures are printed alone. Every program gets a process group of its own, every wait has a
# deadline, and whatever was started here is stopped when the script ends, however it ends.
#
# usage: bench/run.sh thr|lat|heap|instr|plot [-a A_DIR] [-b B_DIR] [-m peer|client|mcast]
#                     [-s "SIZES"] [-r ROUNDS] [-d SECS] [-w WARM] [-n PINGS]
#   thr   msg/s received by z_sub_thr, from its 100 ms windows, per payload size
#   lat   z_ping's round trips against z_pong, in microseconds, per payload size
#   heap  heap calls and peak heap bytes of z_pub_thr and z_sub_thr under bench/allocount.c
#   instr instructions per put and per delivered sample (callgrind: load does not change them),
#         peer mode only, one run per side and size (bench/instr.sh; default sizes "8 1024")
#   plot  thr then lat, their tables printed, then both drawn against payload size into one PNG
#         (bench/plot.py, matplotlib): build/bench/plot-MODE/bench.png, and bench.svg beside it
#   -a    side A's folder of example programs (none: B alone); for lat, z_ping and z_pong are
#         enough: BUILD/bench/floor, the floor under the round trip (bench/floor.c)
#   -b    side B's (default build/release/examples, built when missing)
#   -m    peer: the receiving program listens on a free loopback port and the other connects;
#         client: both connect to a Rust Zenoh router started here (tests/interop/router.py);
#         mcast: both are peers on the multicast group 224.0.0.123 of lo (a free port), which
#         only runs inside a network namespace of its own: scripts/netns.sh bench/run.sh ...
#   -s    payload sizes in bytes (default "8 64 1024 65536"; heap: "8")
#   -r    rounds per side and size (default 3; heap: 1)      -d  seconds measured per run (5;
#         past 16, thr needs examples built for longer runs: cmake -DZM_THR_RUN_S=SECS)
#   -w    warm-up windows dropped per run (default 3)       -n  round trips per run (2000)
# env: ZM_PYTHON  a python with eclipse-zenoh 1.10.2 for the router (default .venv/bin/python,
#                 made when missing); ZM_BENCH_OUT  logs (default build/bench); ZM_PLOT_PYTHON
#                 a python with matplotlib for plot (default .venv/bin/python, scripts/setup.sh
#                 installs it); ZM_PLOT_A, ZM_PLOT_B  the sides' names on the plot (zenoh-pico, zmote)
# Exit status: 0 when every run gave figures, 1 when one did not (its log is named), 2 on usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    sed -n '/^# usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

cmd=${1:-}
case "$cmd" in
    thr | lat | heap | instr | plot) shift ;;
    *) usage ;;
esac
dir_a=
dir_b=
default_b=$root/build/release/examples
mode=peer
sizes="8 64 1024 65536"
rounds=3
secs=5
warm=3
pings=2000
if [ "$cmd" = heap ]; then
    sizes=8
    rounds=1
elif [ "$cmd" = instr ]; then
    sizes="8 1024"
fi
while getopts "a:b:m:s:r:d:w:n:" opt; do
    case "$opt" in
        a) dir_a=$OPTARG ;;
        b) dir_b=$OPTARG ;;
        m) mode=$OPTARG ;;
        s) sizes=$OPTARG ;;
        r) rounds=$OPTARG ;;
        d) secs=$OPTARG ;;
        w) warm=$OPTARG ;;
        n) pings=$OPTARG ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 0 ] || usage
[[ $mode = peer || $mode = client || $mode = mcast ]] || usage
if [ "$mode" = mcast ] && [ "${ZM_NETNS:-}" != 1 ]; then
    echo "bench: -m mcast sends multicast: run it inside scripts/netns.sh" >&2
    exit 2
fi
for n in "$rounds" "$secs" "$warm" "$pings" $sizes; do
    [[ $n =~ ^[0-9]+$ ]] || usage
done
[ "$rounds" -gt 0 ] && [ "$secs" -gt 0 ] && [ -n "$sizes" ] || usage

out=${ZM_BENCH_OUT:-$root/build/bench}/$cmd-$mode
mkdir -p "$out"
rm -f "$out"/*
failures=0

# Side B by default is this tree's Release build, made here the first time.
if [ -z "$dir_b" ]; then
    dir_b=$default_b
    if [ ! -x "$dir_b/z_pub_thr" ]; then
        echo "bench: building zmote's Release examples in build/release" >&2
        { cmake -S "$root" -B "$root/build/release" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZM_BUILD_TESTS=OFF &&
          ninja -C "$root/build/release" -j2; } >"$out/build.log" 2>&1 ||
            { tail -n 30 "$out/build.log" >&2; echo "bench: the build failed (log: $out/build.log)" >&2; exit 1; }
    fi
fi
sides=(B)
[ -z "$dir_a" ] || sides=(A B)
declare -A dir_of=([A]=$dir_a [B]=$dir_b)
# the programs a side's folder must hold: lat's alone, where side A is the floor (bench/floor.c)
progs="z_pub_thr z_sub_thr z_ping z_pong"
[ "$cmd" != lat ] || progs="z_ping z_pong"
for side in "${sides[@]}"; do
    d=${dir_of[$side]}
    for prog in $progs; do
        [ -x "$d/$prog" ] || { echo "bench: side $side: no program $d/$prog" >&2; exit 2; }
    done
    dir_of[$side]=$(cd "$d" && pwd)
done

# ---- processes: each in its own group, all of them stopped at exit ----

groups=()
fifos=()
held=()
spawned=

# Runs a command in a new process group (setsid execs it, so its pid is the group's id), with
# stdin from IN, stdout and stderr to LOG, and none of the FIFOs this shell holds open. The pid
# is left in $spawned.
spawn() {
    local in=$1 log=$2
    shift 2
    (
        for fd in "${held[@]}"; do eval "exec $fd>&-"; done
        exec setsid "$@" <"$in" >"$log" 2>&1
    ) &
    spawned=$!
    groups+=("$spawned")
}

# True while PID runs (a zombie, exited but not yet waited for, does not count).
alive() {
    local stat
    { read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
    stat=${stat##*) }
    [ "${stat%% *}" != Z ]
}

not_alive() { ! alive "$1"; }

# Polls COMMAND... every 50 ms until it succeeds or SECONDS have passed.
wait_until() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || return 1
        sleep 0.05
    done
}

# Stops the group of PID: SIGTERM, then SIGKILL if the program is still there after 2 s; reaps it.
stop() {
    local pid=$1 g kept=()
    kill -TERM -- "-$pid" 2>/dev/null || true
    wait_until 2 not_alive "$pid" || kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    for g in "${groups[@]}"; do [ "$g" = "$pid" ] || kept+=("$g"); done
    groups=("${kept[@]}")
}

cleanup() {
    local g f
    stop_router
    for g in "${groups[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
    for g in "${groups[@]}"; do wait_until 2 not_alive "$g" || kill -KILL -- "-$g" 2>/dev/null || true; done
    wait 2>/dev/null || true
    for f in "${fifos[@]}"; do rm -f "$f"; done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# A FIFO this shell holds open for reading and writing (fd $fifo_fd), so that a program reading it
# as stdin neither blocks opening it nor sees its end; what the shell writes there, it reads.
fifo_fd=
open_fifo() {
    rm -f "$1"
    mkfifo "$1"
    fifos+=("$1")
    exec {fifo_fd}<>"$1"
    held+=("$fifo_fd")
}

close_fifo() {
    local fd kept=()
    eval "exec $1>&-"
    for fd in "${held[@]}"; do [ "$fd" = "$1" ] || kept+=("$fd"); done
    held=("${kept[@]}")
}

# ---- loopback ports ----

# Sockets on loopback, as /proc lists them: "LOCAL_PORT REMOTE_PORT STATE", ports in hex.
sockets() {
    awk 'FNR > 1 { split($2, l, ":"); split($3, r, ":"); print l[2], r[2], $4 }' /proc/net/tcp /proc/net/tcp6 \
        /proc/net/udp 2>/dev/null
}

# Whether a UDP socket is bound to PORT (a member of a group listens there).
udp_bound() {
    local hex
    printf -v hex '%04X' "$1"
    awk -v p="$hex" 'FNR > 1 { split($2, l, ":"); if (l[2] == p) found = 1 } END { exit !found }' /proc/net/udp
}

# A TCP port that no socket uses, picked at random among the unprivileged ones.
free_port() {
    local port hex
    for _ in $(seq 100); do
        port=$((20000 + RANDOM % 40000))
        printf -v hex '%04X' "$port"
        if ! sockets | awk -v p="$hex" '$1 == p || $2 == p { found = 1 } END { exit !found }'; then
            echo "$port"
            return 0
        fi
    done
    echo "bench: no free TCP port found" >&2
    return 1
}

listening() {
    local hex
    printf -v hex '%04X' "$1"
    sockets | awk -v p="$hex" '$1 == p && $3 == "0A" { found = 1 } END { exit !found }'
}

# How many connections are established to PORT, counted from their connecting side.
connected_to() {
    local hex
    printf -v hex '%04X' "$1"
    sockets | awk -v p="$hex" '$2 == p && $3 == "01" { n++ } END { print n + 0 }'
}

more_connected_than() { [ "$(connected_to "$1")" -gt "$2" ]; }

# ---- the router (client mode) ----

router_port=
py=${ZM_PYTHON:-$root/.venv/bin/python}

# The router needs the Python binding of Rust Zenoh; the default venv is made when missing, as
# the tests make it (scripts/setup.sh all makes the same one, with pytest besides).
need_python() {
    "$py" -c 'import zenoh' 2>/dev/null && return 0
    if [ -n "${ZM_PYTHON:-}" ]; then
        echo "bench: $py cannot import zenoh (pip install eclipse-zenoh==1.10.2)" >&2
        exit 1
    fi
    echo "bench: making .venv with eclipse-zenoh==1.10.2 for the router" >&2
    { python3 -m venv "$root/.venv" &&
      "$root/.venv/bin/pip" install -q --disable-pip-version-check eclipse-zenoh==1.10.2; } \
        >"$out/venv.log" 2>&1 </dev/null ||
        { tail -n 20 "$out/venv.log" >&2; echo "bench: could not make .venv (log: $out/venv.log)" >&2; exit 1; }
}

# One router serves every run of the script; it listens on a free loopback port.
router_pid=
router_fd=
start_router() {
    need_python
    router_port=$(free_port)
    open_fifo "$out/router.in"
    router_fd=$fifo_fd
    spawn "$out/router.in" "$out/router.log" "$py" "$root/tests/interop/router.py" "tcp/127.0.0.1:$router_port"
    router_pid=$spawned
    if ! wait_until 30 grep -qs '^ready' "$out/router.log"; then
        cat "$out/router.log" >&2
        echo "bench: the router did not get ready within 30 s" >&2
        exit 1
    fi
}

# The end of its stdin is what router.py takes as the order to close; a signal is the fallback.
stop_router() {
    [ -n "$router_pid" ] || return 0
    close_fifo "$router_fd"
    wait_until 10 not_alive "$router_pid" || true
    stop "$router_pid"
    router_pid=
}

# ---- figures ----

# The lines of FILE that are one number each (the examples' figure lines).
numbers() { grep -E '^[0-9]+(\.[0-9]+)?$' "$1" 2>/dev/null || true; }

# Reads numbers on stdin; prints "count min median p99 max" (median of an even count: the mean of
# the middle two; p99: the value 99 % of the sample is at or under), "0 - - - -" for none.
stats() {
    sort -g | awk '{ v[NR] = $1 }
        END {
            if (NR == 0) { print "0 - - - -"; exit }
            m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
            p = int(NR * 0.99); if (p < NR * 0.99) p++
            printf "%d %s %s %s %s\n", NR, v[1], m, v[p], v[NR]
        }'
}

# B over A, two decimals; "-" when either is missing or A is 0.
ratio() {
    awk -v a="${1:--}" -v b="${2:--}" 'BEGIN {
        if (a == "-" || b == "-" || a + 0 == 0) print "-"; else printf "%.2f\n", b / a }'
}

# Rounds a figure for the tables.
fig() { awk -v x="${1:--}" 'BEGIN { if (x == "-") print "-"; else printf "%.0f\n", x }'; }

failed_run() {
    echo "# $1 (log: $2)"
    failures=$((failures + 1))
}

# ---- one pair of throughput programs ----

# Endpoints of a run: the receiving side's flags (it listens, as a peer) and the sending side's.
recv_args=()
send_args=()
port=
endpoints() {
    if [ "$mode" = peer ]; then
        port=$(free_port)
        recv_args=(-m peer -l "tcp/127.0.0.1:$port")
        send_args=(-m peer -e "tcp/127.0.0.1:$port")
    elif [ "$mode" = mcast ]; then
        port=$(free_port)
        recv_args=(-m peer -l "udp/224.0.0.123:$port#iface=lo")
        send_args=("${recv_args[@]}")
    else
        port=$router_port
        recv_args=(-m client -e "tcp/127.0.0.1:$router_port")
        send_args=("${recv_args[@]}")
    fi
}

has_window() { [ -n "$(numbers "$1" | head -n 1)" ]; }

# Waits until the receiving program is reachable: listening as a peer, connected to the router
# as a client (it prints nothing before its first figure). BEFORE: connections counted before.
recv_ready() {
    if [ "$mode" = peer ]; then
        wait_until 10 listening "$port"
    elif [ "$mode" = mcast ]; then
        wait_until 10 udp_bound "$port"
    else
        wait_until 10 more_connected_than "$port" "$1"
    fi
}

# Starts z_sub_thr then z_pub_thr of DIR with payloads of SIZE, logs LOG.sub and LOG.pub, and
# waits for the first window; further arguments go before each program (env and the shim). The
# pids are left in $sub_pid and $pub_pid; returns 1, both stopped, if a step missed its deadline.
sub_pid=
pub_pid=
start_pair() {
    local dir=$1 size=$2 log=$3 before
    shift 3
    endpoints
    before=$(connected_to "$port")
    spawn /dev/null "$log.sub" "$@" stdbuf -oL "$dir/z_sub_thr" "${recv_args[@]}"
    sub_pid=$spawned
    if ! recv_ready "$before"; then
        stop "$sub_pid"
        echo "z_sub_thr not reachable within 10 s" >>"$log.sub"
        return 1
    fi
    spawn /dev/null "$log.pub" "$@" stdbuf -oL "$dir/z_pub_thr" -s "$size" "${send_args[@]}"
    pub_pid=$spawned
    # z_pub_thr waits a second before its first put.
    if ! wait_until 15 has_window "$log.sub"; then
        stop "$pub_pid"
        stop "$sub_pid"
        echo "no window within 15 s" >>"$log.sub"
        return 1
    fi
}

stop_pair() {
    stop "$pub_pid"
    stop "$sub_pid"
}

# Seconds as sleep takes them, for W windows of 100 ms plus S seconds plus slack.
span() { awk -v w="$1" -v s="$2" 'BEGIN { printf "%.2f\n", w / 10 + s + 0.15 }'; }

# The windows of a run that count: after the first WARM, at most SECS * 10 of them.
kept_windows() { numbers "$1" | awk -v w="$warm" -v n=$((secs * 10)) 'NR > w && NR <= w + n'; }

# ---- thr ----

thr() {
    local size round side log n s_min s_med s_max p_med
    echo "# thr mode=$mode rounds=$rounds secs=$secs warm-up=$warm windows;" \
        "A=${dir_of[A]:-none} B=${dir_of[B]}"
    printf '%-7s %-4s %11s %11s %11s %9s %9s %11s\n' size side "msg/s med" min max "MB/s med" windows \
        "pub msg/s"
    for size in $sizes; do
        for round in $(seq "$rounds"); do
            for side in "${sides[@]}"; do
                log=$out/$size-$round-$side
                if start_pair "${dir_of[$side]}" "$size" "$log"; then
                    sleep "$(span "$warm" "$secs")"
                    # zenoh-pico's examples put for 20 s: longer runs need examples built for them
                    alive "$sub_pid" && alive "$pub_pid" ||
                        failed_run "side $side size $size round $round: a program ended within the run" \
                            "$log.sub; for -d past 16: cmake -DZM_THR_RUN_S=SECS"
                    stop_pair
                    [ -n "$(kept_windows "$log.sub")" ] ||
                        failed_run "side $side size $size round $round: nothing received after the warm-up" \
                            "$log.sub"
                else
                    failed_run "side $side size $size round $round: no figures" "$log.sub"
                fi
                kept_windows "$log.sub" >>"$out/$size-$side.sub"
                kept_windows "$log.pub" >>"$out/$size-$side.pub"
            done
        done
        local -A med_of=()
        for side in "${sides[@]}"; do
            read -r n s_min s_med _ s_max <<<"$(stats <"$out/$size-$side.sub")"
            read -r _ _ p_med _ _ <<<"$(stats <"$out/$size-$side.pub")"
            med_of[$side]=$s_med
            printf '%-7s %-4s %11s %11s %11s %9s %9s %11s\n' "$size" "$side" "$(fig "$s_med")" "$(fig "$s_min")" \
                "$(fig "$s_max")" "$(awk -v m="$s_med" -v s="$size" 'BEGIN {
                    if (m == "-") print "-"; else printf "%.2f\n", m * s / 1e6 }')" \
                "$n/$((rounds * secs * 10))" "$(fig "$p_med")"
        done
        if [ "${#sides[@]}" = 2 ]; then
            printf '%-7s %-4s %11s\n' "$size" B/A "$(ratio "${med_of[A]}" "${med_of[B]}")"
        fi
    done
}

# ---- instr ----

# The figure of one bench/instr.sh line ("DIR: ..., F instructions per ..."), "-" when it failed.
instr_figure() {
    local line
    line=$("$root/bench/instr.sh" "$@" 2>>"$out/instr.err" | tail -n 1) || true
    awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "instructions") f = $i } END { print f == "" ? "-" : f }' \
        <<<"$line"
}

instr() {
    [ "$mode" = peer ] || { echo "bench: instr runs peer to peer only" >&2; exit 2; }
    local size side what fig
    echo "# instr: instructions per put (z_publisher_put, inclusive) and per delivered sample (the whole" \
        "subscriber process, fed by B's z_pub_thr); A=${dir_of[A]:-none} B=${dir_of[B]}"
    printf '%-7s %-7s %11s %11s %7s
' size per A B B/A
    for size in $sizes; do
        for what in put sample; do
            local -A fig_of=([A]=-)
            for side in "${sides[@]}"; do
                fig=$(instr_figure -s "$size" -w "$what" -f "${dir_of[B]}" "${dir_of[$side]}")
                [ "$fig" != - ] || failed_run "side $side size $size: no instructions per $what" "$out/instr.err"
                fig_of[$side]=$fig
            done
            printf '%-7s %-7s %11s %11s %7s
' "$size" "$what" "${fig_of[A]}" "${fig_of[B]}" \
                "$(ratio "${fig_of[A]}" "${fig_of[B]}")"
        done
    done
}

# ---- lat ----

pong_ready() { grep -qs "^Pong app is running" "$1"; }

# One z_ping run of DIR against its z_pong; the round trips go to LOG.ping.
ping_run() {
    local dir=$1 size=$2 log=$3 pong ping fd limit status=0
    endpoints
    open_fifo "$log.in"
    fd=$fifo_fd
    spawn "$log.in" "$log.pong" stdbuf -oL "$dir/z_pong" "${recv_args[@]}"
    pong=$spawned
    if ! wait_until 10 pong_ready "$log.pong"; then
        stop "$pong"
        close_fifo "$fd"
        echo "z_pong not ready within 10 s" >>"$log.pong"
        return 1
    fi
    # z_ping warms up for a second, may wait 10 s for a first echo, then takes microseconds a ping.
    limit=$((30 + pings / 200))
    spawn /dev/null "$log.ping" "$dir/z_ping" -s "$size" -n "$pings" "${send_args[@]}"
    ping=$spawned
    wait_until "$limit" not_alive "$ping" || status=1
    stop "$ping"
    # 'q' ends z_pong by itself; stop() is for one that does not.
    printf q >&"$fd" || true
    wait_until 3 not_alive "$pong" || true
    stop "$pong"
    close_fifo "$fd"
    [ "$status" = 0 ] || echo "z_ping still running after $limit s" >>"$log.ping"
    return "$status"
}

lat() {
    local size round side log n min med p99 max
    echo "# lat mode=$mode rounds=$rounds pings=$pings; round trips in µs pooled over the rounds;" \
        "A=${dir_of[A]:-none} B=${dir_of[B]}"
    printf '%-7s %-4s %8s %8s %8s %8s %11s\n' size side min median p99 max pings
    for size in $sizes; do
        for round in $(seq "$rounds"); do
            for side in "${sides[@]}"; do
                log=$out/$size-$round-$side
                ping_run "${dir_of[$side]}" "$size" "$log" ||
                    failed_run "side $side size $size round $round: no round trips" "$log.ping"
                numbers "$log.ping" >>"$out/$size-$side.rtt"
            done
        done
        local -A med_of=() p99_of=()
        for side in "${sides[@]}"; do
            read -r n min med p99 max <<<"$(stats <"$out/$size-$side.rtt")"
            med_of[$side]=$med
            p99_of[$side]=$p99
            printf '%-7s %-4s %8s %8s %8s %8s %11s\n' "$size" "$side" "$min" "$(fig "$med")" "$p99" "$max" \
                "$n/$((rounds * pings))"
        done
        if [ "${#sides[@]}" = 2 ]; then
            printf '%-7s %-4s %8s %8s %8s\n' "$size" B/A "" "$(ratio "${med_of[A]}" "${med_of[B]}")" \
                "$(ratio "${p99_of[A]}" "${p99_of[B]}")"
        fi
    done
}

# ---- heap ----

shim=
build_shim() {
    shim=$(dirname "$out")/allocount.so
    "${CC:-cc}" -O2 -Wall -Wextra -std=c11 -shared -fPIC -o "$shim" "$root/bench/allocount.c" \
        >"$out/shim.log" 2>&1 || { cat "$out/shim.log" >&2; echo "bench: allocount.c did not build" >&2; exit 1; }
}

# The shim's snapshot N of process PID in FILE, as "malloc calloc realloc aligned free peak_bytes".
snapshot() {
    awk -v pid="$2" -v n="$3" '$2 == "snapshot=" n && $4 == "pid=" pid {
            for (i = 5; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
            print f["malloc"], f["calloc"], f["realloc"], f["aligned"], f["free"], f["peak_bytes"]
        }' "$1" 2>/dev/null | tail -n 1
}

# Messages in figure lines FROM+1..TO of LOG: each line is a rate over a 100 ms window.
messages_between() {
    numbers "$1" | awk -v a="$2" -v b="$3" 'NR > a && NR <= b { s += $1 / 10 } END { printf "%.0f\n", s }'
}

# One pair under the shim; snapshot 1 at the end of the warm-up, snapshot 2 SECS later. Writes
# LOG.pub.heap and LOG.sub.heap: "malloc calloc realloc aligned free peak_bytes messages
# calls/message", the counts at snapshot 2 (the whole run so far), calls per message between the
# two snapshots. Both programs append to LOG.counts, one line per snapshot, told apart by pid.
heap_run() {
    local dir=$1 size=$2 log=$3 role pid s1 s2 msgs
    local -A from_of=() to_of=()
    rm -f "$log.counts" "$log.pub.heap" "$log.sub.heap"
    start_pair "$dir" "$size" "$log" env LD_PRELOAD="$shim" ALLOCOUNT_OUT="$log.counts" || return 1
    local -A pid_of=([sub]=$sub_pid [pub]=$pub_pid)
    sleep "$(span "$warm" 0)"
    for role in sub pub; do from_of[$role]=$(numbers "$log.$role" | wc -l); done
    kill -USR1 "$sub_pid" "$pub_pid" 2>/dev/null || true
    sleep "$secs"
    for role in sub pub; do to_of[$role]=$(numbers "$log.$role" | wc -l); done
    kill -USR1 "$sub_pid" "$pub_pid" 2>/dev/null || true
    sleep 0.3
    stop_pair
    for role in pub sub; do
        pid=${pid_of[$role]}
        s1=$(snapshot "$log.counts" "$pid" 1)
        s2=$(snapshot "$log.counts" "$pid" 2)
        [ -n "$s1" ] && [ -n "$s2" ] || return 1
        msgs=$(messages_between "$log.$role" "${from_of[$role]}" "${to_of[$role]}")
        awk -v s1="$s1" -v s2="$s2" -v m="$msgs" 'BEGIN {
            split(s1, a, " "); split(s2, b, " ")
            calls = 0; for (i = 1; i <= 5; i++) calls += b[i] - a[i]
            printf "%s %s %s\n", s2, m, (m > 0 ? sprintf("%.3f", calls / m) : "-")
        }' >"$log.$role.heap"
    done
}

# Reads rows of numbers ("-": none); prints each column's median, whole numbers as such.
column_medians() {
    awk '{ for (i = 1; i <= NF; i++) if ($i != "-") v[i, ++n[i]] = $i + 0; if (NF > nf) nf = NF }
        END {
            for (i = 1; i <= nf; i++) {
                k = n[i]
                for (x = 2; x <= k; x++)
                    for (y = x; y > 1 && v[i, y - 1] > v[i, y]; y--) {
                        t = v[i, y]; v[i, y] = v[i, y - 1]; v[i, y - 1] = t
                    }
                if (k == 0) m = "-"
                else {
                    m = k % 2 ? v[i, (k + 1) / 2] : (v[i, k / 2] + v[i, k / 2 + 1]) / 2
                    m = m == int(m) ? sprintf("%d", m) : sprintf("%.3f", m)
                }
                printf "%s%s", m, (i < nf ? " " : "\n")
            }
        }'
}

heap() {
    local size round side log role row i
    local -a ra rb cells
    local fmt='%-7s %-9s %-4s %9s %8s %8s %8s %9s %10s %9s %9s\n'
    build_shim
    echo "# heap mode=$mode rounds=$rounds secs=$secs warm-up=$warm windows; calls and peak bytes over the" \
        "whole run (start-up included), calls/msg over the $secs s after the warm-up;" \
        "A=${dir_of[A]:-none} B=${dir_of[B]}"
    # shellcheck disable=SC2059  # the format is the table's
    printf "$fmt" size program side malloc calloc realloc aligned free peak_bytes messages calls/msg
    for size in $sizes; do
        for round in $(seq "$rounds"); do
            for side in "${sides[@]}"; do
                log=$out/$size-$round-$side
                heap_run "${dir_of[$side]}" "$size" "$log" ||
                    failed_run "side $side size $size round $round: no counts" "$log.counts"
            done
        done
        for role in pub sub; do
            local -A row_of=()
            for side in "${sides[@]}"; do
                row=$(cat "$out/$size"-*-"$side.$role.heap" 2>/dev/null | column_medians || true)
                row_of[$side]=${row:-- - - - - - - -}
                # shellcheck disable=SC2059,SC2086  # the table's format; eight columns
                printf "$fmt" "$size" "z_${role}_thr" "$side" ${row_of[$side]}
            done
            if [ "${#sides[@]}" = 2 ]; then
                read -r -a ra <<<"${row_of[A]}"
                read -r -a rb <<<"${row_of[B]}"
                cells=()
                for i in 0 1 2 3 4 5 6 7; do cells+=("$(ratio "${ra[$i]}" "${rb[$i]}")"); done
                # shellcheck disable=SC2059
                printf "$fmt" "$size" "z_${role}_thr" B/A "${cells[@]}"
            fi
        done
    done
}

# ---- plot ----

plot_py=${ZM_PLOT_PYTHON:-$root/.venv/bin/python}

# thr's and lat's files do not collide (.sub/.pub against .ping/.pong/.rtt): one folder holds both.
plot() {
    "$plot_py" -c 'import matplotlib' 2>/dev/null || {
        echo "bench: $plot_py cannot import matplotlib (scripts/setup.sh all installs it in .venv)" >&2
        exit 1
    }
    thr | tee "$out/thr.txt"
    echo
    lat | tee "$out/lat.txt"
    "$plot_py" "$root/bench/plot.py" "$out/thr.txt" "$out/lat.txt" "$out/bench.png" "${ZM_PLOT_A:-zenoh-pico}" \
        "${ZM_PLOT_B:-zmote}" >"$out/plot.log" 2>&1 ||
        { cat "$out/plot.log" >&2; echo "bench: the plot failed (log: $out/plot.log)" >&2; exit 1; }
    echo "# plot: $out/bench.png $out/bench.svg"
}

[ "$mode" = peer ] || start_router
"$cmd"
[ "$failures" = 0 ]
