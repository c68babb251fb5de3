#!/usr/bin/env bash
# Builds the example firmware for QEMU's mps2-an386 (Cortex-M4) with the bare-metal port, in
# build/firmware (or the folder given), then prints its size: arm-none-eabi-size of each ELF and
# zmote's share of zmote-mcu by section kind (text, rodata, data, bss), summed from the linker
# map over the objects of libzmote.a. Extra arguments after the folder go to cmake, e.g.
# -DZM_FW_PUT_COUNT=20. Needs gcc-arm-none-eabi and libnewlib-arm-none-eabi (scripts/setup.sh).
#
# usage: scripts/firmware.sh [BUILD_DIR [CMAKE_ARGS...]]
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-build/firmware}
shift || true
board=mps2-an386
for tool in arm-none-eabi-gcc arm-none-eabi-size cmake ninja python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (run scripts/setup.sh)" >&2; exit 1; }
done

mkdir -p "$out"
if ! cmake -S . -B "$out" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake \
        -DZM_PORT=baremetal -DZM_BOARD=$board -DZM_CONFIG_DIR="$PWD/examples/baremetal/$board" \
        -DCMAKE_BUILD_TYPE=MinSizeRel -DZM_WERROR=ON "$@" >"$out/configure.log" 2>&1; then
    cat "$out/configure.log" >&2
    exit 1
fi
ninja -C "$out" >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }

fw=$out/examples/baremetal/$board
arm-none-eabi-size "$fw/zmote-mcu.elf" "$fw/board-check.elf"
scripts/map-share.py "$fw/zmote-mcu.map" | awk '
    { t[NR] = $2; r[NR] = $3; d[NR] = $4; b[NR] = $5 }
    END {
        print "zmote-mcu by section kind (bytes):"
        printf "  %-8s %8s %8s %8s %8s\n", "", "text", "rodata", "data", "bss"
        printf "  %-8s %8d %8d %8d %8d\n", "zmote", t[1], r[1], d[1], b[1]
        printf "  %-8s %8d %8d %8d %8d\n", "total", t[2], r[2], d[2], b[2]
        f = t[1] + r[1] + d[1]; all = t[2] + r[2] + d[2]
        printf "  zmote'"'"'s share of flash: %d of %d bytes (%d%%)\n", f, all, int(100 * f / (all ? all : 1))
    }'
# zmote-mcu is built without a heap (ZM_NO_HEAP in its zmote_config.h): the C library's
# allocator must not be in its image at all.
if arm-none-eabi-nm "$fw/zmote-mcu.elf" | grep -qwE 'malloc|free|_malloc_r|_free_r|calloc|realloc'; then
    echo "error: zmote-mcu links the C library's malloc/free although it is built without a heap" >&2
    exit 1
fi
echo "zmote-mcu links no malloc or free: every block comes from the library's static pools"
echo "firmware: $fw/zmote-mcu.elf $fw/board-check.elf"
