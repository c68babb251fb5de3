#!/usr/bin/env bash
# The size table's configurations, run: each app of scripts/sizes.sh (tools/sizes/app_*.c) built
# for the host with the library in that app's configuration (tools/sizes/NAME.flags, the file
# sizes.sh reads too, so what is sized is what runs), only the port changed (port/posix instead of
# the board's) and the build made a test one (asserts, ASan+UBSan). Then tests/configs runs each
# app, unchanged, on a pseudo-terminal serial line to the Rust serial router
# (scripts/build-serial-router.sh, or $ZMOTE_SERIAL_ROUTER), with Rust sessions of the
# eclipse-zenoh binding (.venv) on the router's TCP side checking what crosses, both ways.
# Prints "configs: N passed, N failed"; with --counts FILE also writes the two numbers there.
#
# usage: scripts/check-configs.sh [--counts FILE] [OUT [PYTEST_ARGS...]]   (OUT: build/configs)
set -uo pipefail
cd "$(dirname "$0")/.."

counts=
if [ "${1:-}" = --counts ]; then
    counts=$2
    shift 2
fi
out=${1:-build/configs}
shift || true
apps=(pub pubsub full)
passed=0
failed=0

report() {
    echo "configs: $passed passed, $failed failed"
    [ -z "$counts" ] || echo "$passed $failed" >"$counts"
    [ "$failed" = 0 ]
    exit $?
}

if ! scripts/setup.sh all; then
    echo "error: setup failed (.venv with eclipse-zenoh 1.10.2 and pytest is needed)" >&2
    failed=1
    report
fi
if [ -z "${ZMOTE_SERIAL_ROUTER:-}" ]; then
    if router=$(scripts/build-serial-router.sh | tail -n 1); then
        export ZMOTE_SERIAL_ROUTER=$router
    else
        echo "warning: no serial router; the configuration tests will fail" >&2
    fi
fi

# The library in one app's configuration (its flags file, comments dropped), and the app linked
# with it. An app that does not build counts as one failed test; its test then fails too.
sanitize=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
build_app() {
    local name=$1 dir=$out/$1 flags
    mapfile -t flags < <(grep -v '^#' "tools/sizes/$name.flags" | grep -v '^ *$')
    mkdir -p "$dir"
    if ! cmake -S . -B "$dir" -G Ninja -DZM_WERROR=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc \
            -DZM_SANITIZE=ON -DZM_BUILD_TESTS=OFF -DZM_BUILD_EXAMPLES=OFF -DZM_BUILD_TOOLS=OFF \
            -DZM_BUILD_BENCH=OFF -DZM_INSTALL=OFF -DCMAKE_C_FLAGS="${flags[*]}" \
            >"$dir/configure.log" 2>&1; then
        cat "$dir/configure.log" >&2
        return 1
    fi
    ninja -C "$dir" -j2 zmote >"$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; return 1; }
    gcc -std=c11 -g -Wall -Wextra -Werror "${sanitize[@]}" "${flags[@]}" -Iinclude -Iport/posix \
        "tools/sizes/app_$name.c" "$dir/libzmote.a" -lpthread -o "$dir/app_$name"
}

for name in "${apps[@]}"; do
    echo "configs: building app_$name for the host ($(grep -vc '^#' "tools/sizes/$name.flags") flags)"
    if build_app "$name"; then
        passed=$((passed + 1))
    else
        echo "FAILED: app_$name: build" >&2
        failed=$((failed + 1))
    fi
done

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
junit=$out/pytest.xml
rm -f "$junit"
ZMOTE_CONFIGS_DIR=$(realpath -m "$out") .venv/bin/python -m pytest tests/configs -q -rP --junitxml="$junit" "$@" </dev/null
read -r tp tf < <(.venv/bin/python scripts/junit-counts.py "$junit")
passed=$((passed + tp))
failed=$((failed + tf))
report
