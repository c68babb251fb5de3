#!/usr/bin/env bash
# Cross-compiles the portable core (src/util, src/proto, src/keyexpr) for Cortex-M4 and checks
# that it asks the C library for nothing beyond the freestanding headers and string.h, then
# prints the code size next to an x86-64 -Os build of the same files. The header check reads
# gcc's -H include tree, so only what a core file or project header includes directly counts;
# what string.h pulls in behind it is the C library's business.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-build/m4}
cc=arm-none-eabi-gcc
warnings=(-Wall -Wextra -Wpedantic -Wconversion -Wshadow -Wstrict-prototypes
          -Wmissing-prototypes -Wundef -Werror)
common=(-Os -std=c11 -ffunction-sections -fdata-sections "${warnings[@]}"
        -Iinclude -Isrc -DZM_ASSERT_ENABLED=0)
arm_flags=(-mcpu=cortex-m4 -mthumb -ffreestanding "${common[@]}")
# C11's freestanding headers, plus string.h for memcpy/memcmp/memset/strlen.
allowed=" float.h iso646.h limits.h stdalign.h stdarg.h stdbool.h stddef.h stdint.h stdnoreturn.h string.h "

for tool in $cc arm-none-eabi-ar arm-none-eabi-size gcc size; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (run scripts/setup.sh)" >&2; exit 1; }
done

shopt -s nullglob
sources=(src/util/*.c src/proto/*.c src/keyexpr/*.c)
if [ "${#sources[@]}" -eq 0 ]; then
    echo "error: no sources under src/util src/proto src/keyexpr" >&2
    exit 1
fi
rm -rf "$out"
mkdir -p "$out/arm" "$out/x86"
repo=$(pwd)

# Prints the system headers that a file or a project header includes directly, and that are not
# in the allowed list. Reads `gcc -H` lines: one dot per include depth, then the path.
hosted_includes() {
    awk -v repo="$repo/" -v allowed="$allowed" '
        /^\.+ / {
            depth = index($0, " ") - 1
            path = substr($0, depth + 2)
            sub(/^\.\//, repo, path)
            own = (substr(path, 1, 1) != "/" || index(path, repo) == 1)
            parent_own = (depth == 1) ? 1 : own_at[depth - 1]
            own_at[depth] = own
            if (!own && parent_own) {
                n = split(path, parts, "/")
                name = parts[n]
                if (parts[n - 1] == "sys" || parts[n - 1] == "machine") name = parts[n - 1] "/" name
                if (index(allowed, " " name " ") == 0) print name
            }
        }'
}

# Compiles one file for the M4; fails on a compiler error or a hosted header.
compile_arm() {
    local src=$1 obj=$2 log
    log=$(mktemp)
    if ! $cc "${arm_flags[@]}" -H -c "$src" -o "$obj" 2>"$log"; then
        rm -f "$log"
        $cc "${arm_flags[@]}" -c "$src" -o "$obj" # again without -H, for a readable error
        return 1
    fi
    local bad
    bad=$(grep '^\.\+ ' "$log" | hosted_includes | sort -u | tr '\n' ' ')
    rm -f "$log"
    if [ -n "$bad" ]; then
        echo "error: $src includes hosted headers: $bad(allowed:$allowed)" >&2
        return 1
    fi
}

# The check must be able to fail: a probe that includes stdio.h has to be refused.
probe=$out/probe.c
printf '#include <stdint.h>\n#include <stdio.h>\nint zm_probe(void);\nint zm_probe(void) { return (int)sizeof(FILE); }\n' >"$probe"
if compile_arm "$probe" "$out/probe.o" 2>/dev/null; then
    echo "error: the header check let a stdio.h include through" >&2
    exit 1
fi
rm -f "$probe" "$out/probe.o"

fail=0
arm_objs=()
x86_objs=()
for src in "${sources[@]}"; do
    obj=$(echo "${src%.c}.o" | tr / _)
    if compile_arm "$src" "$out/arm/$obj"; then
        arm_objs+=("$out/arm/$obj")
    else
        echo "FAIL cortex-m4: $src" >&2
        fail=1
    fi
    if gcc "${common[@]}" -c "$src" -o "$out/x86/$obj"; then
        x86_objs+=("$out/x86/$obj")
    else
        echo "FAIL x86-64: $src" >&2
        fail=1
    fi
done
if [ "$fail" != 0 ]; then
    echo "check-m4: FAILED (${#sources[@]} files)" >&2
    exit 1
fi

arm-none-eabi-ar rcs "$out/libzmote-core-m4.a" "${arm_objs[@]}"
ar rcs "$out/libzmote-core-x86_64.a" "${x86_objs[@]}"
text_of() { "$1" -t "$2" | awk 'END { print $1 }'; }
arm_text=$(text_of arm-none-eabi-size "$out/libzmote-core-m4.a")
x86_text=$(text_of size "$out/libzmote-core-x86_64.a")
echo "check-m4: ${#sources[@]} files compile freestanding for cortex-m4 (only freestanding headers + string.h)"
echo "check-m4: core text size -Os: cortex-m4 thumb $arm_text bytes, x86-64 $x86_text bytes"
