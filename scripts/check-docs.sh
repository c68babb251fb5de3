#!/usr/bin/env bash
# Checks that the documentation says what the code does. The API reference: doxygen over
# include/ and docs/*.md (docs/Doxyfile), where any warning fails, an undocumented public name
# included; since doxygen checks the names of documented files only, every header must open with
# a @file comment (but include/zenoh-pico.h, which only includes zmote.h and a compatibility header). The getting-started page: its table of error codes against include/zmote/result.h,
# and its first C program, built against the library of a small tree of its own and run, its
# output compared with what the page says it prints. Every command is bounded in time.
# usage: scripts/check-docs.sh [build-dir]   (default build/getting-started)
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-build/getting-started}
page=docs/getting-started.md
cc=${CC:-gcc}
for tool in doxygen cmake ninja "$cc" timeout; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (run scripts/setup.sh all)" >&2; exit 1; }
done
mkdir -p build "$out"
failed=0

# ---- the API reference ------------------------------------------------------------------------
while IFS= read -r header; do
    if [ "$header" != include/zenoh-pico.h ] && ! grep -q '@file' "$header"; then
        echo "FAILED: $header has no @file comment: doxygen would not check what it declares" >&2
        failed=1
    fi
done < <(find include -name '*.h' | sort)
# WARN_AS_ERROR=FAIL_ON_WARNINGS makes doxygen exit non-zero after listing every warning; any
# line on its standard error counts too, should a warning ever escape that setting.
if timeout 300 doxygen docs/Doxyfile 2>"$out/doxygen.log" >/dev/null && [ ! -s "$out/doxygen.log" ]; then
    echo "doxygen: no warning; reference in build/docs/html/index.html"
else
    cat "$out/doxygen.log" >&2
    echo "FAILED: doxygen warned (above): document what it names" >&2
    failed=1
fi

# ---- the table of error codes -----------------------------------------------------------------
# Printed from ZM_RESULT_LIST itself, so names, values and messages are the header's.
cat >"$out/codes.c" <<'EOF'
#include <stdio.h>

#include "zmote/result.h"

#define ROW(name, value, msg) printf("| `%s` | %d | %s |\n", #name, (int)(value), msg);

int main(void)
{
    ZM_RESULT_LIST(ROW)
    return 0;
}
EOF
if timeout 60 "$cc" -std=c11 -Wall -Wextra -Werror -Iinclude "$out/codes.c" -o "$out/codes" &&
    timeout 10 "$out/codes" >"$out/codes.expected"; then
    grep -E '^\| `' "$page" >"$out/codes.page" || true
    if diff -u "$out/codes.expected" "$out/codes.page" >"$out/codes.diff"; then
        echo "error codes: the page's table matches include/zmote/result.h ($(wc -l <"$out/codes.expected") codes)"
    else
        cat "$out/codes.diff" >&2
        echo "FAILED: $page's table of error codes differs from include/zmote/result.h (+ page, - header)" >&2
        failed=1
    fi
else
    echo "FAILED: could not build or run the printer of result codes" >&2
    failed=1
fi

# ---- the first program of the page --------------------------------------------------------------
# The first ```c block is the program; the first ``` block after the line "It prints:" is what it
# prints. The library is built in a tree of its own, with the defaults (no test, no option).
awk '/^```c$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' "$page" >"$out/hello.c"
awk '/^It prints:$/ { after = 1; next }
     after && !inside && /^```/ { inside = 1; next }
     inside && /^```$/ { exit }
     inside { print }' "$page" >"$out/hello.expected"
if [ ! -s "$out/hello.c" ] || [ ! -s "$out/hello.expected" ]; then
    echo "FAILED: $page has no \`\`\`c program, or no \"It prints:\" block after it" >&2
    exit 1
fi
if ! timeout 120 cmake -S . -B "$out" -G Ninja -DZM_WERROR=ON -DCMAKE_BUILD_TYPE=Debug -DZM_BUILD_TESTS=OFF \
        >"$out/configure.log" 2>&1; then
    cat "$out/configure.log" >&2
    echo "FAILED: cmake configure of $out" >&2
    exit 1
fi
if ! timeout 300 ninja -C "$out" -j2 zmote >"$out/build.log" 2>&1; then
    cat "$out/build.log" >&2
    echo "FAILED: building the library in $out" >&2
    exit 1
fi
if ! timeout 60 "$cc" -std=c11 -Wall -Wextra -Wpedantic -Wconversion -Wshadow -Werror -Iinclude \
        "$out/hello.c" "$out/libzmote.a" -pthread -o "$out/hello"; then
    echo "FAILED: the program of $page does not compile (extracted to $out/hello.c)" >&2
    exit 1
fi
status=0
timeout 20 "$out/hello" >"$out/hello.out" 2>"$out/hello.err" || status=$?
if [ "$status" -ne 0 ]; then
    cat "$out/hello.out" "$out/hello.err" >&2
    echo "FAILED: the program of $page exited with status $status (124: timed out after 20 s)" >&2
    failed=1
elif ! diff -u "$out/hello.expected" "$out/hello.out" >&2; then
    echo "FAILED: the program of $page printed something else than the page says (+ printed, - page)" >&2
    failed=1
else
    echo "getting-started program: built, ran, printed what the page says"
fi
exit "$failed"
