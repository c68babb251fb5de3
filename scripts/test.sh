#!/usr/bin/env bash
# Runs every check the project has, as CI runs them: the unit tests in a Debug build and again
# under ASan+UBSan; the interop suite against Rust Zenoh in full on the ASan+UBSan build and a
# smoke run of it on the Debug build (the first tests of each file: tests/interop/conftest.py),
# both on parallel pytest workers with the tests that bound a time under load (the 60 s soak
# among them) run alone afterwards (scripts/interop.sh); the threaded tests under TSan, a
# single-thread build, the public headers and the examples (zmote's and zenoh-pico's) as
# C++, every option combination a firmware uses, the no-heap build with its tests, a short
# libFuzzer run per fuzz target, the mps2-an386 firmware (bare-metal port) run in QEMU, port/freertos
# compiled against stand-in headers and, with FreeRTOS checkouts, its mps2-an385 firmware in QEMU, the
# freestanding Cortex-M4 build of the portable core, and the worst-case stack of the publish and
# receive paths on Cortex-M4; zmote installed, then used by projects of their own (find_package,
# pkg-config, add_subdirectory); the API reference (doxygen, warnings as errors) with the
# getting-started page's program; and a short run of the benchmark harness. Every stage runs
# even after one fails, so one run shows everything; each prints "<stage>: Ns". The last line
# counts test runs (ctest cases, interop tests, checks of the other stages; a test run on two
# builds counts twice): "N passed, N failed"; the line before it, how many distinct interop
# tests ran. The build trees compile through ccache when it is there (scripts/setup.sh installs
# it), so a file compiled alike in several trees, or in an earlier run, is compiled once.
# FUZZ_SECONDS (default 25) sets each fuzz target's run time; ZM_INTEROP_JOBS the number of
# pytest workers (scripts/interop.sh, default 6).
set -uo pipefail
cd "$(dirname "$0")/.."

fuzz_seconds=${FUZZ_SECONDS:-25}
fuzz_expected=(fuzz_batch fuzz_keyexpr fuzz_usrpwd)
passed=0
failed=0
failures=()
launcher=()
t_start=$SECONDS

stage() { printf '\n== %s\n' "$*"; }
ok() { passed=$((passed + ${1:-1})); }
bad() { failed=$((failed + ${2:-1})); failures+=("$1"); echo "FAILED: $1" >&2; }
finish() {
    printf '\n'
    for f in "${failures[@]}"; do echo "failed: $f"; done
    printf 'total time %ds\n' $((SECONDS - t_start))
    [ "${#launcher[@]}" = 0 ] || ccache -s | sed -nE 's/^ *Hits: *(.*)/ccache: \1 compilations from the cache/p' | head -n 1
    # Ids written by scripts/interop.sh --counts: each interop test once, whatever the builds.
    if ls build/interop-*.counts.ids >/dev/null 2>&1; then
        echo "interop: $(sort -u build/interop-*.counts.ids | wc -l) distinct tests ran" \
            "($(cat build/interop-*.counts.ids | wc -l) runs over the builds)"
    fi
    echo "$passed passed, $failed failed"
    exit $((failed > 0))
}

# The serial router takes minutes to build on a fresh machine (its crates fetched, then compiled):
# it builds in the background, at a lower priority, from the start when cargo and a C compiler
# are there already (it needs nothing that the setup installs), else once the setup is done; the
# stage "serial router" waits for it.
mkdir -p build
router_pid=
start_router() {
    nice -n 10 scripts/build-serial-router.sh </dev/null >build/serial-router.out 2>build/serial-router.log &
    router_pid=$!
}
if command -v cargo >/dev/null && command -v cc >/dev/null; then
    start_router
fi

stage "setup"
if ! scripts/setup.sh all; then
    bad "setup (packages or .venv missing; see above)"
    finish
fi

# ccache: the trees below (and those of the check scripts, through cmake's environment variables)
# compile many files alike, in the same source tree; without hashing the build folder, the
# object of one tree serves the others (their debug info then names that tree's folder).
if command -v ccache >/dev/null; then
    export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache CCACHE_NOHASHDIR=1
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    ccache -z >/dev/null
fi

# Configures a build tree; the arguments after the directory go to cmake.
configure() {
    local dir=$1
    shift
    mkdir -p "$dir"
    cmake -S . -B "$dir" -G Ninja -DZM_WERROR=ON "${launcher[@]}" "$@" >"$dir/configure.log" 2>&1 || {
        cat "$dir/configure.log" >&2
        return 1
    }
}

# Builds a tree (all targets, or those named); -k 0 so one broken file does not hide the rest.
build() {
    local dir=$1
    shift
    ninja -C "$dir" -j2 -k 0 "$@"
}

# Configures, builds and runs the unit tests of one tree. A failed build still runs ctest, so
# the tests that did build report, and the ones that did not count as failed.
unit_stage() {
    local dir=$1 name=$2
    shift 2
    if ! configure "$dir" "$@"; then
        bad "$name: cmake configure"
        return
    fi
    build "$dir" || bad "$name: build"
    run_ctest "$dir" "$name"
}

# Runs ctest in a build tree and adds its cases to the counts.
run_ctest() {
    local dir=$1 name=$2 log="$1/ctest.log"
    shift 2
    ctest --test-dir "$dir" --output-on-failure -j2 "$@" </dev/null 2>&1 | tee "$log"
    local line total nfail
    line=$(grep -E '[0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        bad "$name: ctest found no tests"
        return
    fi
    nfail=$(sed -E 's/.* ([0-9]+) tests? failed out of.*/\1/' <<<"$line")
    total=$(sed -E 's/.*failed out of ([0-9]+).*/\1/' <<<"$line")
    ok $((total - nfail))
    if [ "$nfail" -gt 0 ]; then
        bad "$name: $nfail of $total tests" "$nfail"
    fi
}

rm -f build/interop-*.counts build/interop-*.counts.ids
[ -n "$router_pid" ] || start_router

stage "debug build (gcc, -Werror, the system's Mbed TLS 2.28) + ctest"
t=$SECONDS
# The Debug and ASan builds have the admin space, the advanced publisher and subscriber, the
# connectivity API (unstable API) and TLS links too, so that their tests run.
unit_stage build/debug debug -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DZ_FEATURE_UNSTABLE_API=ON \
    -DZ_FEATURE_ADMIN_SPACE=1 -DZ_FEATURE_ADVANCED_PUBLICATION=1 -DZ_FEATURE_ADVANCED_SUBSCRIPTION=1 \
    -DZ_FEATURE_CONNECTIVITY=1 -DZ_FEATURE_LINK_TLS=1
echo "debug: $((SECONDS - t))s"

stage "API reference (doxygen, warnings as errors) and the getting-started program"
t=$SECONDS
if scripts/check-docs.sh build/getting-started </dev/null; then
    ok
else
    bad "docs: an undocumented public name, the error table, or the getting-started program (see above)"
fi
echo "docs: $((SECONDS - t))s"

# Before the interop stages, so that the serial router has the time to build on a fresh machine.
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
stage "ASan+UBSan build (gcc, Mbed TLS 3.6 with TLS 1.3 from scripts/build-mbedtls3.sh) + ctest"
t=$SECONDS
# Its interop suite runs in full, mutual TLS with Rust (TLS 1.3 only) included: it links the
# Mbed TLS 3.6 that scripts/setup.sh builds (a cache hit here; built now if the cache is gone).
if mbedtls3=$(scripts/build-mbedtls3.sh </dev/null) && [ -n "$mbedtls3" ]; then
    unit_stage build/asan asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=gcc -DZM_SANITIZE=ON \
        -DZ_FEATURE_UNSTABLE_API=ON -DZ_FEATURE_ADMIN_SPACE=1 -DZ_FEATURE_ADVANCED_PUBLICATION=1 \
        -DZ_FEATURE_ADVANCED_SUBSCRIPTION=1 -DZ_FEATURE_CONNECTIVITY=1 -DZ_FEATURE_LINK_TLS=1 \
        -DZM_MBEDTLS_PREFIX="$mbedtls3"
else
    bad "asan: Mbed TLS 3.6 did not build (scripts/build-mbedtls3.sh, see above); TLS 1.3 goes untested"
fi
echo "asan: $((SECONDS - t))s"

# Runs the interop suite (pytest against Rust Zenoh) on the programs of one build tree.
interop_stage() {
    local name=$1
    shift
    local counts="build/interop-$name.counts" ip ifl
    scripts/interop.sh --no-build --counts "$counts" "$@" </dev/null
    read -r ip ifl <"$counts" || { ip=0; ifl=1; }
    ok "$ip"
    [ "$ifl" = 0 ] || bad "interop ($name): $ifl tests" "$ifl"
}

stage "serial router (Rust zenoh 1.10.2 with the serial link, for the serial interop tests)"
t=$SECONDS
if wait "$router_pid" && router=$(tail -n 1 build/serial-router.out) && [ -n "$router" ]; then
    cat build/serial-router.log
    export ZMOTE_SERIAL_ROUTER=$router
    ok
else
    cat build/serial-router.log >&2
    bad "serial router: cargo build (see above)"
fi
echo "serial router: $((SECONDS - t))s"

# The whole suite runs on the ASan build below; here the first tests of each file.
stage "interop (pytest vs Rust zenoh 1.10.2), debug build (Mbed TLS 2.28): smoke run, TLS 1.2 exchanges included"
t=$SECONDS
interop_stage debug --smoke
echo "interop debug: $((SECONDS - t))s"

stage "interop (pytest vs Rust zenoh 1.10.2), ASan+UBSan build (Mbed TLS 3.6: mutual TLS with Rust included)"
t=$SECONDS
interop_stage asan --asan
echo "interop asan: $((SECONDS - t))s"
unset ASAN_OPTIONS UBSAN_OPTIONS

stage "TSan build (clang) + the threaded tests"
t=$SECONDS
if configure build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
    -DCMAKE_C_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DZ_FEATURE_UNSTABLE_API=ON; then
    build build/tsan test_link test_unicast test_session test_api_session test_api_query test_query_channels \
        test_query_misuse test_query_wire test_accept test_peers test_liveliness test_api_liveliness test_multicast \
        test_scout test_udp || bad "tsan: build"
    tsan_tests='test_(link|unicast|session|api_session|api_query|query_channels|query_misuse|query_wire|accept|peers|multicast|scout|udp)$'
    TSAN_OPTIONS=halt_on_error=1 run_ctest build/tsan tsan -R "$tsan_tests|liveliness\$"
else
    bad "tsan: cmake configure"
fi
echo "tsan: $((SECONDS - t))s"

stage "single-thread build (Z_FEATURE_MULTI_THREAD=0): library and the _st examples"
t=$SECONDS
if configure build/st -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DZM_BUILD_TESTS=OFF \
    -DCMAKE_C_FLAGS=-DZ_FEATURE_MULTI_THREAD=0; then
    if build build/st zmote z_pub_st z_sub_st; then ok; else bad "single-thread: build"; fi
else
    bad "single-thread: cmake configure"
fi
echo "single-thread: $((SECONDS - t))s"

# A client with neither peers, a multicast group nor reconnection (src/switches.h): it pushes
# no declarations (ZM_PUSH_DECLS 0), copies no endpoint strings (ZM_KEEPS_ENDPOINTS 0), opens
# clients only, and takes liveliness news through the late-bound path (ZM_LIVELINESS_LATE 1):
# its liveliness, example and query-example tests as a client of a Rust router.
stage "client-only build (no peers, no multicast, no reconnection) + interop as a client"
t=$SECONDS
if configure build/client -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DZ_FEATURE_UNICAST_PEER=0 \
    -DZ_FEATURE_LINK_UDP_MULTICAST=0 -DZ_FEATURE_MULTICAST_TRANSPORT=0 -DZ_FEATURE_AUTO_RECONNECT=0; then
    build build/client zm_live zm_live_small zm_probe zm_query examples/all || bad "client-only: build"
    ZMOTE_BIN_DIR=$PWD/build/client/examples interop_stage client \
        -k "(test_liveliness or test_examples or test_query_examples) and (router or client) and not restart"
else
    bad "client-only: cmake configure"
fi
echo "client-only: $((SECONDS - t))s"

# A client that only publishes keeps no peer declarations and its own keys in a list, not the id
# map (src/switches.h): its keys must still be declared, and declared again after a restart.
stage "publisher-only client build + interop as a publisher through a router"
t=$SECONDS
if configure build/pubonly -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DZ_FEATURE_UNICAST_PEER=0 \
    -DZ_FEATURE_SUBSCRIPTION=0 -DZ_FEATURE_QUERY=0 -DZ_FEATURE_QUERYABLE=0 -DZ_FEATURE_LIVELINESS=0 \
    -DZ_FEATURE_MATCHING=0; then
    build build/pubonly zm_probe examples/all || bad "publisher-only: build"
    ZMOTE_BIN_DIR=$PWD/build/pubonly/examples interop_stage pubonly \
        -k "(test_examples or test_reconnect) and (z_pub or z_put or z_delete or publisher) and router and not z_sub and not rust_publisher"
else
    bad "publisher-only: cmake configure"
fi
echo "publisher-only: $((SECONDS - t))s"

stage "install and consumer projects (find_package, pkg-config, add_subdirectory, a router)"
t=$SECONDS
rm -f build/install.counts
scripts/check-install.sh --counts build/install.counts build/install </dev/null
read -r ip ifl <build/install.counts || { ip=0; ifl=1; }
ok "$ip"
[ "$ifl" = 0 ] || bad "install and consumer projects: $ifl checks" "$ifl"
echo "install: $((SECONDS - t))s"

# The harness's figures decide nothing; that it runs and prints them does.
stage "bench harness smoke run (zmote alone, Debug examples: throughput, latency, heap; 1 s, 8 B)"
t=$SECONDS
if scripts/check-bench.sh build/debug/examples </dev/null; then ok; else bad "bench harness (see above)"; fi
echo "bench: $((SECONDS - t))s"

stage "C++ (g++ -std=c++11/17): headers, overloads, examples and zenoh-pico's examples"
t=$SECONDS
# scripts/check-cxx.sh: zenoh-pico's examples come from $ZM_PICO_DIR (default /tmp/pico) if present.
rm -f build/cxx.counts
scripts/check-cxx.sh --counts build/cxx.counts build/cxx </dev/null
read -r cp cf <build/cxx.counts || { cp=0; cf=1; }
ok "$cp"
[ "$cf" = 0 ] || bad "c++: $cf checks" "$cf"
echo "c++: $((SECONDS - t))s"

stage "option combinations (every Z_FEATURE_* off, firmware configurations, no heap)"
t=$SECONDS
if scripts/check-features.sh build/features; then ok; else bad "option combinations"; fi
echo "options: $((SECONDS - t))s"

# Its pools hold messages up to 4 MiB (tests/noheap/zmote_config.h): the 16 MiB payloads do not apply.
stage "no-heap build (ZM_NO_HEAP: static pools) + ctest + interop of payloads and features"
t=$SECONDS
unit_stage build/noheap noheap -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc -DZM_NO_HEAP=ON
ZMOTE_BIN_DIR=$PWD/build/noheap/examples interop_stage noheap -k "(test_payloads or test_features) and not 16MiB"
echo "no-heap: $((SECONDS - t))s"

stage "libFuzzer smoke runs (clang, ${fuzz_seconds}s each)"
t=$SECONDS
shopt -s nullglob
fuzz_names=("${fuzz_expected[@]}")
for src in tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    [[ " ${fuzz_names[*]} " == *" $name "* ]] || fuzz_names+=("$name")
done
targets=()
for name in "${fuzz_names[@]}"; do
    if [ -f "tests/fuzz/$name.c" ]; then
        targets+=("$name")
    else
        echo "skip: $name (tests/fuzz/$name.c not written yet)"
    fi
done
fuzz_run() {
    local built=() pids=() name i runs
    configure build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DZM_FUZZ=ON ||
        { bad "fuzz: cmake configure"; return; }
    build build/fuzz "${targets[@]}" || bad "fuzz: build"
    for name in "${targets[@]}"; do
        if [ -x "build/fuzz/tests/fuzz/$name" ]; then
            built+=("$name")
        else
            bad "fuzz $name: build"
        fi
    done
    [ "${#built[@]}" -gt 0 ] || return
    python3 scripts/fuzz-corpus.py build/fuzz tests/vectors || { bad "fuzz: seed corpus"; return; }
    mkdir -p build/fuzz/artifacts
    # The targets run side by side, one per core.
    for name in "${built[@]}"; do
        mkdir -p "build/fuzz/corpus-$name" # a target with no seeds starts from nothing
        ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
            "build/fuzz/tests/fuzz/$name" -max_total_time="$fuzz_seconds" -timeout=10 \
            -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="build/fuzz/artifacts/$name-" "build/fuzz/corpus-$name" \
            </dev/null >"build/fuzz/$name.log" 2>&1 &
        pids+=($!)
    done
    for i in "${!built[@]}"; do
        name=${built[$i]}
        if wait "${pids[$i]}"; then
            runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "build/fuzz/$name.log")
            echo "$name: ok, ${runs:-?} inputs in ${fuzz_seconds}s"
            ok
        else
            tail -n 60 "build/fuzz/$name.log" >&2
            echo "$name: failed; log build/fuzz/$name.log, input in build/fuzz/artifacts/" >&2
            bad "fuzz $name"
        fi
    done
}
if [ "${#targets[@]}" -gt 0 ]; then
    fuzz_run
else
    echo "skip: no fuzz targets written yet"
fi
echo "fuzz: $((SECONDS - t))s"

stage "firmware: mps2-an386 with the bare-metal port, run in QEMU"
t=$SECONDS
# A skipped test (a far end of the serial link missing) counts as failed.
firmware_stage() {
    local junit=build/firmware/pytest.xml fp ffl
    .venv/bin/python -m pytest tests/firmware -q -rP --junitxml="$junit" </dev/null
    read -r fp ffl < <(.venv/bin/python scripts/junit-counts.py "$junit")
    ok "$fp"
    [ "$ffl" = 0 ] || bad "firmware in QEMU: $ffl tests" "$ffl"
}
if scripts/firmware.sh build/firmware; then
    ok
    firmware_stage
else
    bad "firmware: build"
fi
echo "firmware: $((SECONDS - t))s"

stage "freertos: port/freertos on stand-in headers; with FreeRTOS checkouts, its firmware in QEMU"
t=$SECONDS
# scripts/freertos.sh says when it skipped the firmware (no checkouts); a skipped test counts as failed.
if scripts/freertos.sh --build-only build/freertos; then
    ok
    if [ -d build/freertos/firmware/freertos-firmware ]; then
        ZMOTE_FREERTOS_DIR=build/freertos/firmware/freertos-firmware .venv/bin/python -m pytest tests/freertos \
            -q -rP --junitxml=build/freertos/pytest.xml </dev/null
        read -r fp ffl < <(.venv/bin/python scripts/junit-counts.py build/freertos/pytest.xml)
        ok "$fp"
        [ "$ffl" = 0 ] || bad "freertos firmware in QEMU: $ffl tests" "$ffl"
    fi
else
    bad "freertos: build"
fi
echo "freertos: $((SECONDS - t))s"

stage "Cortex-M4 freestanding build of the portable core"
t=$SECONDS
if scripts/check-m4.sh build/m4; then
    ok
else
    bad "m4: cross-compile or header check"
fi
echo "m4: $((SECONDS - t))s"

# The size table's three apps (tools/sizes/app_*.c), each built for the host with the library in
# its own configuration (tools/sizes/NAME.flags, which sizes.sh below sizes; port/posix, ASan),
# run over a pseudo-terminal serial line to the Rust serial router: the publisher-only client on
# one thread, the pub+sub client and the full client (get, queryable, token), Rust checking what
# crosses both ways. Counts the three builds and the three runs.
stage "size-table configurations built for the host and run against Rust zenoh 1.10.2 over serial"
t=$SECONDS
rm -f build/configs.counts
scripts/check-configs.sh --counts build/configs.counts build/configs </dev/null
read -r cp cf <build/configs.counts || { cp=0; cf=1; }
ok "$cp"
[ "$cf" = 0 ] || bad "size-table configurations: $cf builds or tests" "$cf"
echo "configs: $((SECONDS - t))s"

stage "Cortex-M4 size table: the library's share of a publisher-only, a pub+sub and a full client, within their goals"
t=$SECONDS
if scripts/sizes.sh build/sizes; then
    ok
else
    bad "sizes: an app's share of flash over its limit"
fi
echo "sizes: $((SECONDS - t))s"

stage "Cortex-M4 worst-case stack of the publish and receive paths"
t=$SECONDS
if scripts/check-stack.sh build/stack; then
    ok
else
    bad "stack: a path over its bound, or its depth unknowable (see above)"
fi
echo "stack: $((SECONDS - t))s"

finish
