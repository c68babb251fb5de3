#!/usr/bin/env bash
# Compiles every library source (src/**/*.c) for Cortex-M4 in a microcontroller configuration
# (one thread, no asserts, a port without POSIX) with gcc's stack usage and call graph output,
# then has scripts/check-stack.py bound the worst-case stack of the publish and receive paths by
# their goals (1,024 B for a publish, 1,536 B for a receive: check-stack.py's BOUNDS), which are
# what the library is designed to, not the last figures measured.
# Before that, a probe file proves the check fails when it must: a frame over its bound, one
# reached through a table of function pointers, a recursion and a variable-length array; and that
# it ends on a recursion that also calls an application function.
# The port is port/baremetal.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-build/stack}
cc=arm-none-eabi-gcc
for tool in $cc python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (run scripts/setup.sh)" >&2; exit 1; }
done

# The bare-metal port has serial links only: its builds have no TCP.
port=port/baremetal
flags=(-mcpu=cortex-m4 -mthumb -Os -std=c11 -ffunction-sections -fdata-sections
       -fstack-usage -fcallgraph-info=su -Iinclude -Isrc "-I$port"
       -DZM_ASSERT_ENABLED=0 -DZ_FEATURE_MULTI_THREAD=0 -DZ_FEATURE_LINK_TCP=0 -DZ_FEATURE_SCOUTING=0)

mapfile -t sources < <(find src "$port" -name '*.c' | sort)
if [ "${#sources[@]}" -eq 0 ]; then
    echo "error: no sources under src/" >&2
    exit 1
fi
rm -rf "$out"
mkdir -p "$out/obj" "$out/probe"

# ---- the self-test: the check must be able to fail --------------------------------------------
cat >"$out/probe/probe.c" <<'EOF'
#include <stddef.h>

int probe_sink(volatile char *p, size_t n);

typedef struct {
    int (*write)(const char *buf, size_t len);
} probe_ops_t;

static int big_write(const char *buf, size_t len)
{
    volatile char frame[2048];
    frame[0] = buf[0];
    return probe_sink(frame, len);
}

const probe_ops_t probe_ops = {.write = big_write};

int probe_indirect(const probe_ops_t *ops);
int probe_indirect(const probe_ops_t *ops) { return ops->write("x", 1) + 1; }

/* The recursion also calls an allocator hook (named as util/alloc.c's, so an application
 * function): where such a function is entered must be found on a graph with a cycle too. */
struct probe_hooks {
    void *(*alloc)(size_t size);
};
extern struct probe_hooks current;
struct probe_hooks current;

int probe_recursive(unsigned n);
int probe_recursive(unsigned n)
{
    volatile char b[16];
    b[0] = (char)n;
    if (current.alloc != NULL && current.alloc(n) == NULL) {
        return -1;
    }
    return n == 0 ? 0 : probe_recursive(n - 1) + b[0];
}

int probe_dynamic(size_t n);
int probe_dynamic(size_t n)
{
    volatile char vla[n];
    vla[0] = 1;
    return probe_sink(vla, n);
}

int probe_small(void);
int probe_small(void)
{
    volatile char b[8];
    return probe_sink(b, sizeof(b));
}

int probe_sink(volatile char *p, size_t n) { return p[0] + (int)n; }
EOF
$cc "${flags[@]}" -c "$out/probe/probe.c" -o "$out/probe/probe.o"
# Runs the check on the probe with one root; expects exit status $2 and a line matching $3.
# The check walks each function once, so it takes well under a second; a minute means a walk
# that never ends.
probe() {
    local root=$1 want=$2 pattern=$3 log="$out/probe/$1.log" rc=0
    timeout 60 python3 scripts/check-stack.py "$out/probe" --src "$out/probe" --dirs . --root "$root" >"$log" 2>&1 || rc=$?
    if [ "$rc" != "$want" ] || ! grep -q -- "$pattern" "$log"; then
        cat "$log" >&2
        echo "error: the stack check's self-test failed on ${root%%=*} (exit $rc, wanted $want and /$pattern/)" >&2
        exit 1
    fi
}
probe probe_small=64 0 'probe_small: .* bytes worst case, bound 64: ok'
probe probe_indirect=1024 1 'big_write .* via ops->write'
probe probe_recursive=100000 1 'error: recursion (depth unbounded): probe_recursive -> probe_recursive'
probe probe_dynamic=100000 1 'error: probe_dynamic .* unbounded (dynamic) size'
echo "check-stack: self-test ok (a frame over its bound, one behind a function pointer, recursion and a dynamic frame fail)"

# ---- the library --------------------------------------------------------------------------------
# One compile per file, as many at once as there are cores; xargs passes the flags through.
export cc out
export flags_str="${flags[*]}"
fail=0
printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} bash -c \
    'read -r -a flags <<<"$flags_str"; obj="$out/obj/$(echo "${1%.c}" | tr / _).o"; $cc "${flags[@]}" -c "$1" -o "$obj"' _ {} ||
    fail=1
if [ "$fail" != 0 ]; then
    echo "check-stack: FAILED to compile the library for cortex-m4 ($port)" >&2
    exit 1
fi
echo "check-stack: ${#sources[@]} files compiled for cortex-m4 -Os, single thread, port $port"
python3 scripts/check-stack.py "$out/obj" --src . --dirs "src,$port"
