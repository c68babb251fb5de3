#!/usr/bin/env bash
# The interop suite: zmote's examples and tests/interop/zm_probe against Rust Zenoh 1.10.2 (the
# eclipse-zenoh Python binding in .venv, made by scripts/setup.sh all), with pytest. It builds
# the programs first (build/debug, or build/asan with --asan), unless --no-build or
# ZMOTE_BIN_DIR names programs built elsewhere. Arguments after the options go to pytest
# (e.g. -x, -k payload). The last line is "interop: N passed, N failed"; with --counts FILE the
# two numbers are also written to FILE, for scripts/test.sh.
#
# usage: scripts/interop.sh [--asan] [--no-build] [--counts FILE] [PYTEST_ARGS...]
set -uo pipefail
cd "$(dirname "$0")/.."

tree=build/debug
cmake_args=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc)
do_build=1
counts=
while [ $# -gt 0 ]; do
    case $1 in
        --asan)
            tree=build/asan
            cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=gcc -DZM_SANITIZE=ON)
            shift ;;
        --no-build) do_build=0; shift ;;
        --counts) counts=$2; shift 2 ;;
        *) break ;;
    esac
done

report() { # passed failed
    echo "interop: $1 passed, $2 failed"
    [ -z "$counts" ] || echo "$1 $2" >"$counts"
    [ "$2" = 0 ]
    exit $?
}

if ! scripts/setup.sh all; then
    echo "error: setup failed (.venv with eclipse-zenoh 1.10.2 and pytest is needed)" >&2
    report 0 1
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

junit=$(mktemp /tmp/zmote-interop.XXXXXX.xml)
trap 'rm -f "$junit"' EXIT
# Inside a network namespace of its own (scripts/netns.sh): the tests that send multicast need
# one, and the others lose nothing by running there too.
scripts/netns.sh .venv/bin/python -m pytest tests/interop -q --junitxml="$junit" "$@"

# Counts from the JUnit report: the summary line's wording changes with the outcome mix.
read -r passed failed < <(.venv/bin/python scripts/junit-counts.py "$junit")
report "${passed:-0}" "${failed:-1}"
