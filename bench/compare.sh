#!/usr/bin/env bash
# Side-by-side figures, zenoh-pico (A) against zmote (B), through the shared harness (thr.sh,
# lat.sh, alloc.sh beside this project, in ../shared/bench): same example programs, same CLI,
# interleaved runs, B/A ratios of medians. A is a folder of zenoh-pico example binaries built
# outside this tree (the harness's pico-build.sh does that under /tmp); B defaults to ours.
#
# usage: bench/compare.sh PICO_EXAMPLES_DIR [ZMOTE_EXAMPLES_DIR]
#   env: MODES="peer client" SIZES="8 64 1024 65536" ROUNDS=3 SECS=5 PINGS=2000
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
harness=${ZM_BENCH_HARNESS:-$root/../shared/bench}
a=${1:?usage: bench/compare.sh PICO_EXAMPLES_DIR [ZMOTE_EXAMPLES_DIR]}
b=${2:-$root/build/release/examples}
[[ -x $harness/thr.sh ]] || { echo "no harness at $harness (set ZM_BENCH_HARNESS)" >&2; exit 2; }
if [[ ! -x $b/z_pub_thr ]]; then
  cmake -S "$root" -B "$root/build/release" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZM_BUILD_TESTS=OFF >/dev/null
  ninja -C "$root/build/release" >/dev/null
fi
for mode in ${MODES:-peer client}; do
  "$harness/thr.sh" -m "$mode" -r "${ROUNDS:-3}" -d "${SECS:-5}" -s "${SIZES:-8 64 1024 65536}" "$a" "$b" || true
  for size in ${SIZES:-8 64 1024 65536}; do
    "$harness/lat.sh" -m "$mode" -r "${ROUNDS:-3}" -n "${PINGS:-2000}" -s "$size" "$a" "$b" || true
  done
  "$harness/alloc.sh" -m "$mode" -s 8 "$a" "$b" || true
done
