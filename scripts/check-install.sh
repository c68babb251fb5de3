#!/usr/bin/env bash
# zmote as a user's project meets it: a Release build installed with `cmake --install` into a
# prefix under OUT, then tests/consumer's zmote-hello built three ways and run, each checked by
# its output: with find_package(zmote CONFIG) against the prefix, with cc and
# `pkg-config --cflags --libs zmote`, and with add_subdirectory of this source tree (which must
# build zmote's library and nothing else of it); last, the installed build's program as a client
# of a Rust Zenoh router (tests/interop/router.py, run by ZMOTE_PYTHON, by default .venv's python,
# which scripts/setup.sh all makes), whose sample a Rust subscriber there must get too. The library is built with a feature switched off, so that
# the checks see its definition reach the programs.
# Prints "install: N passed, N failed"; with --counts FILE also writes the two numbers there.
#
# usage: scripts/check-install.sh [--counts FILE] [OUT]    (OUT defaults to build/install)
set -uo pipefail
cd "$(dirname "$0")/.."

counts=
if [ "${1:-}" = --counts ]; then
    counts=$2
    shift 2
fi
out=${1:-build/install}
prefix=$PWD/$out/prefix
# Switched off for the installed library: every program built against it must see it so.
feature=Z_FEATURE_LIVELINESS=0
version=$(sed -nE 's/^project\(zmote VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)
want_line="received 'demo/zmote/hello': 'Hello from zmote!'"
passed=0
failed=0

ok() { echo "ok: $1"; passed=$((passed + 1)); }
bad() { echo "FAILED: $1" >&2; failed=$((failed + 1)); }
report() {
    echo "install: $passed passed, $failed failed"
    [ -z "$counts" ] || echo "$passed $failed" >"$counts"
    [ "$failed" = 0 ]
    exit $?
}

# Runs a command, its output to LOG; on failure shows the log's end.
logged() {
    local log=$1
    shift
    "$@" >"$log" 2>&1 || { tail -n 40 "$log" >&2; return 1; }
}

# Runs a built zmote-hello (bounded) and checks what it printed: the version, then the sample.
check_hello() {
    local name=$1 log=$out/$1.out
    shift
    if ! timeout 20 "$@" >"$log" 2>&1; then
        cat "$log" >&2
        bad "$name: the program failed"
        return
    fi
    if ! grep -qx "zmote $version, zenoh-pico API 1.9.0" "$log" || ! grep -qxF "$want_line" "$log"; then
        cat "$log" >&2
        bad "$name: not the expected output (zmote $version, then the sample)"
        return
    fi
    ok "$name"
}

rm -rf "$out"
mkdir -p "$out"

# The library, installed.
if ! logged "$out/zmote-build.log" cmake -S . -B "$out/zmote" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DZM_WERROR=ON -DZM_BUILD_TESTS=OFF -D"$feature" -DCMAKE_INSTALL_PREFIX=/nonexistent ||
   ! logged "$out/zmote-build.log" ninja -C "$out/zmote" -j2 zmote ||
   ! logged "$out/zmote-install.log" cmake --install "$out/zmote" --prefix "$prefix"; then
    bad "build and install the library"
    report
fi
missing=
for f in lib/libzmote.a include/zenoh-pico.h include/zmote.h include/zmote/version.h \
         include/zenoh-pico/config.h include/zmote_platform.h lib/cmake/zmote/zmoteConfig.cmake \
         lib/cmake/zmote/zmoteConfigVersion.cmake lib/pkgconfig/zmote.pc; do
    [ -f "$prefix/$f" ] || missing+=" $f"
done
if [ -n "$missing" ]; then
    bad "install: missing under the prefix:$missing"
else
    ok "install: library, headers, CMake package and zmote.pc under the prefix"
fi

# (a) find_package(zmote CONFIG), found through CMAKE_PREFIX_PATH.
dir=$out/find-package
if logged "$out/find-package.log" cmake -S tests/consumer -B "$dir" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON &&
   logged "$out/find-package.log" ninja -C "$dir"; then
    if grep -q -- "-D$feature" "$dir/compile_commands.json"; then
        check_hello "find_package" "$dir/zmote-hello"
    else
        bad "find_package: zmote::zmote did not pass on -D$feature"
    fi
else
    bad "find_package: configure or build"
fi

# (b) pkg-config, the way a Makefile would.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
if ! flags=$(pkg-config --cflags --libs zmote); then
    bad "pkg-config: zmote.pc not found or unreadable"
elif [[ " $flags " != *" -D$feature "* ]]; then
    bad "pkg-config: its Cflags lack -D$feature ($flags)"
elif [ "$(pkg-config --modversion zmote)" != "$version" ]; then
    bad "pkg-config: version $(pkg-config --modversion zmote), not $version"
else
    # shellcheck disable=SC2086  # the flags are words
    if logged "$out/pkg-config.log" "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -o "$out/zmote-hello-pc" \
            tests/consumer/hello.c $flags; then
        check_hello "pkg-config" "$out/zmote-hello-pc"
    else
        bad "pkg-config: cc $flags"
    fi
fi
unset PKG_CONFIG_PATH

# (c) add_subdirectory of the source tree: zmote's library and no program of its own.
dir=$out/subdirectory
if logged "$out/subdirectory.log" cmake -S tests/consumer -B "$dir" -G Ninja -DZMOTE_SOURCE_DIR="$PWD" &&
   logged "$out/subdirectory.log" ninja -C "$dir" -j2; then
    strays=$(find "$dir" -type f -perm -u+x \( -name 'test_*' -o -name 'z_*' -o -name 'zm_*' \
             -o -name 'zmote-dump' -o -name 'bench_*' -o -name 'fuzz_*' \) ! -name '*.o')
    defined=$(ninja -C "$dir" -t targets all | grep -E '^(zmote/)?(test_|z_pub|z_sub|zmote-dump|bench_)' || true)
    if [ -n "$strays$defined" ]; then
        bad "add_subdirectory: zmote built or defined more than its library: $strays $defined"
    else
        check_hello "add_subdirectory" "$dir/zmote-hello"
    fi
else
    bad "add_subdirectory: configure or build"
fi

# Waits (at most SECONDS) for a line of fd FD that matches the extended regex; the line in $line.
read_until() {
    local fd=$1 regex=$2 deadline=$((SECONDS + $3))
    while [ "$SECONDS" -lt "$deadline" ] && read -r -t $((deadline - SECONDS)) -u "$fd" line; do
        [[ $line =~ $regex ]] && return 0
    done
    return 1
}

# The installed build's program as a client of a Rust Zenoh router on a free loopback port, with
# a Rust client subscribed there: the sample must reach both.
router_check() {
    local py=${ZMOTE_PYTHON:-.venv/bin/python} ep line pid rfd wfd sfd spid fifo=$out/subscriber.fifo
    if [ ! -x "$py" ] || [ ! -x "$out/find-package/zmote-hello" ]; then
        bad "router: needs $py (scripts/setup.sh all makes .venv) and the find_package build"
        return
    fi
    ep=tcp/127.0.0.1:$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # The router runs until its stdin, our end of the coprocess, closes.
    coproc ROUTER { exec "$py" tests/interop/router.py "$ep" 2>&1; }
    pid=$ROUTER_PID rfd=${ROUTER[0]} wfd=${ROUTER[1]}
    if read_until "$rfd" '^ready' 20; then
        # Read and write ends held here, so neither side's open waits for the other.
        mkfifo "$fifo"
        exec {sfd}<>"$fifo"
        timeout 40 "$py" tests/consumer/subscriber.py "$ep" >"$fifo" 2>&1 &
        spid=$!
        if ! read_until "$sfd" '^ready$' 20; then
            bad "router: the Rust subscriber did not get ready within 20 s"
        else
            check_hello "router" "$out/find-package/zmote-hello" "$ep"
            if read_until "$sfd" "^rust got 'demo/zmote/hello': 'Hello from zmote!'\$" 20; then
                ok "router: the Rust subscriber got the sample"
            else
                bad "router: the Rust subscriber got no sample within 20 s"
            fi
        fi
        kill "$spid" 2>/dev/null
        wait "$spid" 2>/dev/null
        exec {sfd}>&-
        rm -f "$fifo"
    else
        bad "router: not ready within 20 s"
    fi
    eval "exec $wfd>&-"
    # Its output ends when it exits; if not within 10 s, it is killed.
    while read -r -t 10 -u "$rfd" line; do :; done
    kill "$pid" 2>/dev/null && echo "warning: the router did not stop by itself; killed" >&2
    wait "$pid" 2>/dev/null || true
}
router_check

report
