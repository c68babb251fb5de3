#!/usr/bin/env bash
# The interop suite: zmote's examples and tests/interop/zm_probe against Rust Zenoh 1.10.2 (the
# eclipse-zenoh Python binding in .venv, made by scripts/setup.sh all), with pytest. It builds
# the programs first (build/debug, or build/asan with --asan), unless --no-build or
# ZMOTE_BIN_DIR names programs built elsewhere. Arguments after the options go to pytest
# (e.g. -x, -k payload, --smoke: the first tests of each file only, see tests/interop/conftest.py).
# The last line is "interop: N passed, N failed"; with --counts FILE the two numbers are also
# written to FILE, and the ids of the tests run to FILE.ids, for scripts/test.sh.
#
# The tests run on -j N pytest-xdist workers (default $ZM_INTEROP_JOBS, else 6: they mostly wait
# on their programs, so more workers than cores pay), each worker in a network namespace of its
# own (scripts/netns.sh), where its multicast and scouting meet no other worker's. The tests
# marked serial (bounds of time under load: leases, floods, the soak) run afterwards, alone; then
# the serial ones marked waits (long because they wait on a timeout, light on the machine), side
# by side on 4 workers.
# -j 1 runs everything in one pytest, one test at a time; so does a -m among PYTEST_ARGS.
#
# usage: scripts/interop.sh [--asan] [--no-build] [--counts FILE] [-j N] [PYTEST_ARGS...]
set -uo pipefail
cd "$(dirname "$0")/.."

tree=build/debug
cmake_args=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DZ_FEATURE_LINK_TLS=1)
do_build=1
counts=
jobs=${ZM_INTEROP_JOBS:-6}
while [ $# -gt 0 ]; do
    case $1 in
        --asan)
            tree=build/asan
            cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=gcc -DZM_SANITIZE=ON -DZ_FEATURE_LINK_TLS=1)
            shift ;;
        --no-build) do_build=0; shift ;;
        --counts) counts=$2; shift 2 ;;
        -j) jobs=$2; shift 2 ;;
        -j[0-9]*) jobs=${1#-j}; shift ;;
        *) break ;;
    esac
done

report() { # passed failed
    echo "interop: $1 passed, $2 failed"
    [ -z "$counts" ] || echo "$1 $2" >"$counts"
    [ "$2" = 0 ]
    exit $?
}
[ -z "$counts" ] || rm -f "$counts" "$counts.ids"

if ! scripts/setup.sh all; then
    echo "error: setup failed (.venv with eclipse-zenoh 1.10.2 and pytest is needed)" >&2
    report 0 1
fi
# The ASan tree links Mbed TLS 3.6 (TLS 1.3), as scripts/test.sh builds it, which setup made.
if [ "$tree" = build/asan ] && [ "$do_build" = 1 ]; then
    cmake_args+=(-DZM_MBEDTLS_PREFIX="$(scripts/build-mbedtls3.sh </dev/null | tail -n 1)")
fi

# The serial tests need a Rust router with the serial link, which the wheel lacks: built once into
# a cache (scripts/build-serial-router.sh); if that fails, those tests say so and the rest run.
if [ -z "${ZMOTE_SERIAL_ROUTER:-}" ]; then
    if router=$(scripts/build-serial-router.sh | tail -n 1); then
        export ZMOTE_SERIAL_ROUTER=$router
    else
        echo "warning: no serial router; the serial interop tests will fail" >&2
    fi
fi

if [ -n "${ZMOTE_BIN_DIR:-}" ]; then
    do_build=0
else
    export ZMOTE_BIN_DIR=$PWD/$tree/examples
fi
if [ "$do_build" = 1 ]; then
    mkdir -p "$tree"
    if ! cmake -S . -B "$tree" -G Ninja -DZM_WERROR=ON "${cmake_args[@]}" >"$tree/configure.log" 2>&1; then
        cat "$tree/configure.log" >&2
        report 0 1
    fi
    # A failure here still lets the tests of what did build report.
    ninja -C "$tree" -j2 -k 0 || echo "warning: some targets did not build" >&2
fi

if [ "$tree" = build/asan ]; then
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi

# test_scout.py compiles zenoh-pico's own z_scout.c when a checkout is at hand (none is fetched).
pico=${ZM_PICO_DIR:-/tmp/pico}
[ -f "$pico/examples/unix/c11/z_scout.c" ] ||
    echo "interop: zenoh-pico's z_scout.c not compiled against zmote: no zenoh-pico 1.9.0 checkout at $pico (set ZM_PICO_DIR)"

for arg in "$@"; do
    case $arg in -m | -m*) jobs=1 ;; esac # the passes below select with -m themselves
done
workdir=$(mktemp -d /tmp/zmote-interop.XXXXXX)
trap 'rm -rf "$workdir"' EXIT
# Inside a network namespace of its own (scripts/netns.sh): the tests that send multicast need
# one, and the others lose nothing by running there too.
pytest_run() { # JUNIT PYTEST_ARGS...
    local junit=$1
    shift
    scripts/netns.sh .venv/bin/python -m pytest tests/interop -q --junitxml="$junit" "$@"
}
if [ "$jobs" -gt 1 ] 2>/dev/null; then
    # Each worker is a python started through netns.sh (ZM_NETNS_INSIDE unset, so that it makes
    # a namespace of its own rather than join ours); worksteal evens out the long tests.
    worker="env -u ZM_NETNS_INSIDE $(printf '%q %q' "$PWD/scripts/netns.sh" "$PWD/.venv/bin/python")"
    reports=("$workdir/parallel.xml" "$workdir/serial.xml" "$workdir/waits.xml")
    pytest_run "${reports[0]}" --tx "$jobs*popen//python=$worker" --dist worksteal \
        -m "not serial" "$@"
    if [[ " $* " == *" --smoke "* ]]; then
        reports=("${reports[0]}") # a smoke run keeps no serial test
    else
        echo "interop: the tests marked serial, alone"
        pytest_run "${reports[1]}" -m "serial and not waits" --durations=8 "$@"
        echo "interop: the serial tests that only wait, side by side"
        pytest_run "${reports[2]}" --tx "4*popen//python=$worker" --dist load -m "serial and waits" \
            --durations=4 "$@"
    fi
else
    reports=("$workdir/all.xml")
    pytest_run "${reports[0]}" "$@"
fi

# Counts from the JUnit reports (a missing one counts as a failure): the summary line's wording
# changes with the outcome mix.
passed=0
failed=0
for junit in "${reports[@]}"; do
    read -r p f < <(.venv/bin/python scripts/junit-counts.py "$junit")
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-1}))
done
if [ -n "$counts" ]; then
    .venv/bin/python - "${reports[@]}" >"$counts.ids" <<'EOF'
import sys
import xml.etree.ElementTree as ET

for report in sys.argv[1:]:
    try:
        for case in ET.parse(report).getroot().iter("testcase"):
            print(f"{case.get('classname')}::{case.get('name')}")
    except Exception:
        pass
EOF
fi
report "$passed" "$failed"
