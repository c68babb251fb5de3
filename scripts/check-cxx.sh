#!/usr/bin/env bash
# zmote's public headers as C++, as programs written for zenoh-pico in C++ use them:
#   1. every public header compiles on its own with g++ -std=c++11 and -std=c++17 (-Wall -Wextra
#      -Wpedantic -Werror), and zenoh-pico.h under the option sets of the library trees below;
#   2. the overloads of the generic names cover the C selections with the same result types
#      (tests/cxx/gen_generic_checks.py) and behave as them (tests/cxx/overloads.cpp, run);
#   3. every example of examples/, renamed .cpp, compiles with g++ -std=c++17, links and runs
#      (tests/cxx/test_cxx_examples.py: peers on loopback, each run checked by its output; the
#      runs are inside scripts/netns.sh, where the scouting examples may send multicast);
#   4. zenoh-pico 1.9.0's own examples (examples/unix/c11 and c99 of the checkout $ZM_PICO_DIR,
#      default /tmp/pico; none is fetched) the same way, those that are not valid C++ skipped
#      with the reason; without a checkout this part is skipped and counts nothing.
# It builds two small library trees of its own: multi-thread with the unstable API and the admin
# space (as build/debug), and single-thread for the _st examples. The last line is
# "c++: N passed, N failed"; with --counts FILE the two numbers also go to FILE (scripts/test.sh).
#
# usage: scripts/check-cxx.sh [--counts FILE] [DIR]     (DIR defaults to build/cxx)
set -uo pipefail
cd "$(dirname "$0")/.."

counts=
if [ "${1:-}" = --counts ]; then
    counts=$2
    shift 2
fi
out=${1:-build/cxx}
pico=${ZM_PICO_DIR:-/tmp/pico}
cxx=${CXX:-g++}
python=.venv/bin/python

passed=0
failed=0
pass() { passed=$((passed + ${1:-1})); }
fail() {
    failed=$((failed + ${2:-1}))
    echo "FAILED: $1" >&2
}
report() {
    echo "c++: $passed passed, $failed failed"
    [ -z "$counts" ] || echo "$passed $failed" >"$counts"
    [ "$failed" = 0 ]
    exit $?
}

command -v "$cxx" >/dev/null || {
    fail "$cxx not found (scripts/setup.sh all installs it)"
    report
}

warnings=(-Wall -Wextra -Wpedantic -Werror)
includes=(-Iinclude -Iport/posix)
# The library trees' options, which programs must be compiled with too (they shape structs).
mt_defs=(-DZ_FEATURE_UNSTABLE_API -DZ_FEATURE_ADMIN_SPACE=1 -DZ_FEATURE_ADVANCED_PUBLICATION=1 -DZ_FEATURE_ADVANCED_SUBSCRIPTION=1
         -DZ_FEATURE_CONNECTIVITY=1)
st_defs=(-DZ_FEATURE_MULTI_THREAD=0)

rm -rf "$out"
mkdir -p "$out/logs" "$out/src" "$out/bin"

# ---- 1. the headers ------------------------------------------------------------------------------

echo "-- headers as C++"
headers=()
while IFS= read -r h; do
    headers+=("${h#include/}")
done < <(find include -name '*.h' | sort)
headers+=(zmote_platform.h) # port/posix's, which zmote/port.h includes
for std in c++11 c++17; do
    bad=()
    for h in "${headers[@]}"; do
        printf '#include "%s"\n' "$h" >"$out/src/header.cpp"
        "$cxx" -std=$std "${warnings[@]}" "${includes[@]}" -fsyntax-only "$out/src/header.cpp" \
            >"$out/logs/header.log" 2>&1 || { bad+=("$h"); cat "$out/logs/header.log" >&2; }
    done
    # zenoh-pico.h under each option set a tree below is built with
    printf '#include "zenoh-pico.h"\n' >"$out/src/header.cpp"
    for defs in "${mt_defs[*]}" "${st_defs[*]}"; do
        # shellcheck disable=SC2086 # defs is a list of flags
        "$cxx" -std=$std "${warnings[@]}" "${includes[@]}" $defs -fsyntax-only "$out/src/header.cpp" \
            >"$out/logs/header.log" 2>&1 || { bad+=("zenoh-pico.h with $defs"); cat "$out/logs/header.log" >&2; }
    done
    if [ "${#bad[@]}" = 0 ]; then
        echo "ok: ${#headers[@]} headers alone, and zenoh-pico.h with each tree's options (-std=$std)"
        pass
    else
        fail "headers as C++ (-std=$std): ${bad[*]}"
    fi
done

# ---- 2. the overloads ----------------------------------------------------------------------------

echo "-- overloads of the generic names"
if python3 tests/cxx/gen_generic_checks.py include/zmote/api/macros.h "$out/src/generic_checks.cpp"; then
    for std in c++11 c++17; do
        ok=1
        for defs in "" "${mt_defs[*]}"; do
            # shellcheck disable=SC2086
            "$cxx" -std=$std "${warnings[@]}" "${includes[@]}" $defs -fsyntax-only \
                "$out/src/generic_checks.cpp" >"$out/logs/generic.log" 2>&1 ||
                { ok=0; head -n 40 "$out/logs/generic.log" >&2; }
        done
        if [ $ok = 1 ]; then
            echo "ok: every type of the C selections has its overload, with the same result (-std=$std)"
            pass
        else
            fail "overloads against the C selections (-std=$std)"
        fi
    done
else
    fail "tests/cxx/gen_generic_checks.py"
fi

# ---- the library trees ---------------------------------------------------------------------------

lib_tree() { # dir cmake-args...
    local dir=$1
    shift
    cmake -S . -B "$dir" -G Ninja -DZM_WERROR=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=gcc \
        -DZM_BUILD_TESTS=OFF "$@" >"$dir.configure.log" 2>&1 &&
        ninja -C "$dir" -j2 zmote >"$dir.build.log" 2>&1 ||
        { tail -n 40 "$dir.configure.log" "$dir.build.log" >&2; return 1; }
}
echo "-- library trees"
mt_lib=
st_lib=
if lib_tree "$out/lib-mt" -DZ_FEATURE_UNSTABLE_API=ON -DZ_FEATURE_ADMIN_SPACE=1 -DZ_FEATURE_ADVANCED_PUBLICATION=1 \
    -DZ_FEATURE_ADVANCED_SUBSCRIPTION=1 -DZ_FEATURE_CONNECTIVITY=1; then
    mt_lib=$out/lib-mt/libzmote.a
else
    fail "library tree (multi-thread)"
fi
if lib_tree "$out/lib-st" -DZ_FEATURE_MULTI_THREAD=0; then
    st_lib=$out/lib-st/libzmote.a
else
    fail "library tree (single-thread)"
fi

# Compiles and links one C++ program in the background, two at a time; its result is read back
# by collect. usage: program TAG BIN LIB -std=... FLAGS... SOURCES...
declare -a tags=()
program() {
    local tag=$1 bin=$2 lib=$3
    shift 3
    tags+=("$tag")
    if [ -z "$lib" ]; then
        echo "no library to link with" >"$out/logs/$tag.log"
        echo 1 >"$out/logs/$tag.rc"
        return
    fi
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
    mkdir -p "$(dirname "$bin")"
    { "$cxx" "$@" "$lib" -lpthread -o "$bin" >"$out/logs/$tag.log" 2>&1; echo $? >"$out/logs/$tag.rc"; } &
}
# Waits for the programs started since the last call and counts them. usage: collect WHAT
collect() {
    wait
    local tag n=0 bad=()
    for tag in "${tags[@]}"; do
        if [ "$(cat "$out/logs/$tag.rc")" = 0 ]; then
            n=$((n + 1))
        else
            bad+=("$tag")
            echo "--- $tag:" >&2
            head -n 30 "$out/logs/$tag.log" >&2
        fi
    done
    echo "$1: $n of ${#tags[@]} compiled and linked"
    pass "$n"
    for tag in "${bad[@]}"; do fail "$tag: compile or link (log: $out/logs/$tag.log)"; done
    tags=()
}

run_program() { # what bin
    if "$2" >"$out/logs/run.log" 2>&1; then
        echo "ok: $1: $(tail -n 1 "$out/logs/run.log")"
        pass
    else
        cat "$out/logs/run.log" >&2
        fail "$1"
    fi
}

overloads=(tests/cxx/overloads.cpp tests/cxx/wrapped.cpp)
program overloads-c++11 "$out/bin/overloads-c++11" "$mt_lib" -std=c++11 "${warnings[@]}" "${includes[@]}" \
    "${mt_defs[@]}" "${overloads[@]}"
program overloads-c++17 "$out/bin/overloads-c++17" "$mt_lib" -std=c++17 "${warnings[@]}" "${includes[@]}" \
    "${mt_defs[@]}" "${overloads[@]}"
program overloads-st "$out/bin/overloads-st" "$st_lib" -std=c++17 "${warnings[@]}" "${includes[@]}" \
    "${st_defs[@]}" "${overloads[@]}"
collect "overload tests"
for v in c++11 c++17 st; do
    [ -x "$out/bin/overloads-$v" ] && run_program "overloads ($v)" "$out/bin/overloads-$v"
done

# ---- 3. zmote's examples -------------------------------------------------------------------------

echo "-- zmote's examples as C++ (-std=c++17)"
mkdir -p "$out/src/zmote"
for src in examples/z_*.c; do
    name=$(basename "$src" .c)
    cp "$src" "$out/src/zmote/$name.cpp"
    # the _st examples need a single-thread library; the others a multi-thread one
    case $name in
        *_st) bin=$out/bin/zmote-st/$name lib=$st_lib defs=("${st_defs[@]}") ;;
        *) bin=$out/bin/zmote/$name lib=$mt_lib defs=("${mt_defs[@]}") ;;
    esac
    program "zmote-$name" "$bin" "$lib" -std=c++17 "${warnings[@]}" "${includes[@]}" -Iexamples "${defs[@]}" \
        "$out/src/zmote/$name.cpp"
done
collect "zmote's examples"

# Runs a pytest file of tests/cxx and adds its cases to the counts. usage: run_tests WHAT FILE
run_tests() {
    local junit=$out/$(basename "$2" .py).xml p f
    if [ ! -x "$python" ]; then
        fail "$1: no $python (scripts/setup.sh all makes it)"
        return
    fi
    # inside a network namespace of its own (scripts/netns.sh): the scouting examples send multicast
    ZM_CXX_BIN_DIR=$PWD/$out/bin scripts/netns.sh "$python" -m pytest "$2" -q -rfE --junitxml="$junit" </dev/null
    read -r p f < <("$python" scripts/junit-counts.py "$junit")
    echo "$1: $p passed, $f failed"
    pass "$p"
    [ "$f" = 0 ] || fail "$1: $f tests" "$f"
}
run_tests "zmote's examples as C++, run" tests/cxx/test_cxx_examples.py

# ---- 4. zenoh-pico's examples --------------------------------------------------------------------

# Examples of zenoh-pico 1.9.0 that are not valid C++ whatever the headers, with the reason.
declare -A invalid=(
    [c11/z_ping]="C11's _Atomic qualifier, which C++ lacks before C++23"
    [c11/z_get_lat]="C11's _Atomic qualifier, which C++ lacks before C++23"
    [c11/z_pub_thr]="C11's _Atomic qualifier, and a void * given to a struct pointer without a cast"
    [c11/z_sub_thr]="C11's _Atomic qualifier, which C++ lacks before C++23"
    [c11/z_queryable_lat]="C11's _Atomic qualifier, and a void * given to a struct pointer without a cast"
    [c99/z_ping]="C99 designated initializers out of their members' order"
)
if [ ! -d "$pico/examples/unix/c11" ]; then
    echo "zenoh-pico examples as C++: skipped, no checkout at $pico (set ZM_PICO_DIR)"
    report
fi
version=$(git -C "$pico" describe --tags 2>/dev/null || cat "$pico/version.txt" 2>/dev/null || echo unknown)
echo "-- zenoh-pico's examples as C++ (-std=c++17), from $pico ($version)"
# They give string literals to char * throughout, ill-formed since C++11, and some use compound
# literals and designated initializers, which C++17 lacks: g++ accepts all three with a warning
# (-Wwrite-strings, -Wpedantic), which are let through; every other warning is an error.
pico_warnings=(-Wall -Wextra -Werror -Wno-write-strings)
skipped=0
for set in c11 c99; do
    mkdir -p "$out/src/pico-$set"
    for src in "$pico/examples/unix/$set"/z_*.c; do
        name=$(basename "$src" .c)
        if [ -n "${invalid[$set/$name]:-}" ]; then
            echo "skip: $set/$name: not valid C++: ${invalid[$set/$name]}"
            skipped=$((skipped + 1))
            continue
        fi
        cp "$src" "$out/src/pico-$set/$name.cpp"
        case $name in
            *_st) bin=$out/bin/pico-st/$set/$name lib=$st_lib defs=("${st_defs[@]}") ;;
            *) bin=$out/bin/pico/$set/$name lib=$mt_lib defs=("${mt_defs[@]}") ;;
        esac
        program "pico-$set-$name" "$bin" "$lib" -std=c++17 "${pico_warnings[@]}" "${includes[@]}" "${defs[@]}" \
            "$out/src/pico-$set/$name.cpp"
    done
done
collect "zenoh-pico's examples ($skipped skipped as not valid C++)"
run_tests "zenoh-pico's examples as C++, run" tests/cxx/test_cxx_pico_examples.py

report
