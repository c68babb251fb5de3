#!/usr/bin/env bash
# Side-by-side figures, zenoh-pico (A) against zmote (B), through bench/run.sh: throughput,
# latency and heap in each mode, runs interleaved A B A B, B/A ratios of medians. A is a folder
# of zenoh-pico's example programs built outside this tree (bench/README.md says how); without
# it, zmote's figures are printed alone. B defaults to build/release/examples, built when missing.
# Every measurement runs even after one failed; the exit status is 1 if any did.
#
# usage: bench/compare.sh [PICO_EXAMPLES_DIR] [ZMOTE_EXAMPLES_DIR]      ("" or - : no side A)
#   env: MODES="peer client" SIZES="8 64 1024 65536" ROUNDS=3 SECS=5 PINGS=2000 HEAP_SIZES=8
set -uo pipefail
run=$(dirname "$0")/run.sh
sides=()
if [ -n "${1:-}" ] && [ "$1" != - ]; then sides+=(-a "$1"); fi
if [ -n "${2:-}" ]; then sides+=(-b "$2"); fi
sizes=${SIZES:-8 64 1024 65536}
rounds=${ROUNDS:-3}
status=0
for mode in ${MODES:-peer client}; do
    "$run" thr -m "$mode" -r "$rounds" -d "${SECS:-5}" -s "$sizes" "${sides[@]}" || status=1
    echo
    "$run" lat -m "$mode" -r "$rounds" -n "${PINGS:-2000}" -s "$sizes" "${sides[@]}" || status=1
    echo
    "$run" heap -m "$mode" -d "${SECS:-5}" -s "${HEAP_SIZES:-8}" "${sides[@]}" || status=1
    echo
done
exit "$status"
