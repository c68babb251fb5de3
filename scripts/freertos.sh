#!/usr/bin/env bash
# port/freertos: compiles it against the stand-in FreeRTOS headers of tests/freertos/standin
# (always, with the host's compiler, warnings as errors), then, where FreeRTOS-Kernel and
# FreeRTOS-Plus-TCP checkouts are found, builds the mps2-an385 firmware (Cortex-M3, ARM_CM3 port,
# heap_4, FreeRTOS+TCP's LAN9118 driver), prints its size and zmote's share of its flash, and runs
# tests/freertos in QEMU against Rust Zenoh. Without the checkouts it says so and skips the firmware.
#
# The checkouts: $ZM_FREERTOS_KERNEL and $ZM_FREERTOS_TCP, else /tmp/freertos/FreeRTOS-Kernel and
# /tmp/freertos/FreeRTOS-Plus-TCP (README.md says how to get them).
#
# usage: scripts/freertos.sh [--build-only] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

run_tests=1
if [ "${1:-}" = --build-only ]; then
    run_tests=0
    shift
fi
out=${1:-build/freertos}
kernel=${ZM_FREERTOS_KERNEL:-/tmp/freertos/FreeRTOS-Kernel}
tcp=${ZM_FREERTOS_TCP:-/tmp/freertos/FreeRTOS-Plus-TCP}
fw=$PWD/tests/freertos/mps2-an385
mkdir -p "$out"

# 1. The port's sources against the stand-in headers, with the firmware's options.
if ! cmake -S . -B "$out/standin" -G Ninja -DZM_PORT=freertos -DZM_FREERTOS_INCLUDE_DIRS="$PWD/tests/freertos/standin" \
        -DZM_CONFIG_DIR="$fw" -DZM_INSTALL=OFF -DZM_WERROR=ON -DCMAKE_BUILD_TYPE=MinSizeRel \
        >"$out/standin-configure.log" 2>&1; then
    cat "$out/standin-configure.log" >&2
    exit 1
fi
ninja -C "$out/standin" -j2 zmote >"$out/standin-build.log" 2>&1 || { cat "$out/standin-build.log" >&2; exit 1; }
echo "freertos: port/freertos compiles against the stand-in headers (tests/freertos/standin)"

# 2. The firmware, with the real kernel and FreeRTOS+TCP.
if [ ! -f "$kernel/tasks.c" ] || [ ! -f "$tcp/source/FreeRTOS_IP.c" ]; then
    rm -rf "$out/firmware" # no stale firmware for the tests to find
    echo "freertos: SKIPPED the FreeRTOS firmware and its QEMU tests: no FreeRTOS-Kernel at $kernel or no"
    echo "freertos: FreeRTOS-Plus-TCP at $tcp (set ZM_FREERTOS_KERNEL and ZM_FREERTOS_TCP, see README.md)"
    exit 0
fi
for tool in arm-none-eabi-gcc arm-none-eabi-size qemu-system-arm socat; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (run scripts/setup.sh)" >&2; exit 1; }
done
src=$tcp/source
cflags="-mcpu=cortex-m3 -mthumb -mfloat-abi=soft -ffunction-sections -fdata-sections"
if ! cmake -S . -B "$out/firmware" -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake \
        -DZM_CPU_FLAGS="-mcpu=cortex-m3 -mthumb -mfloat-abi=soft" -DCMAKE_C_FLAGS="$cflags" \
        -DZM_PORT=freertos -DZM_CONFIG_DIR="$fw" -DZM_FREERTOS_FIRMWARE="$fw" \
        -DZM_FREERTOS_KERNEL="$kernel" -DZM_FREERTOS_TCP="$tcp" \
        -DZM_FREERTOS_INCLUDE_DIRS="$fw;$kernel/include;$kernel/portable/GCC/ARM_CM3;$src/include;$src/portable/Compiler/GCC" \
        -DZM_INSTALL=OFF -DZM_WERROR=ON -DCMAKE_BUILD_TYPE=MinSizeRel >"$out/firmware-configure.log" 2>&1; then
    cat "$out/firmware-configure.log" >&2
    exit 1
fi
ninja -C "$out/firmware" -j2 >"$out/firmware-build.log" 2>&1 || { cat "$out/firmware-build.log" >&2; exit 1; }
elfs=$out/firmware/freertos-firmware
arm-none-eabi-size "$elfs"/zmote-freertos-serial.elf "$elfs"/zmote-freertos-tcp.elf
# Flash (text + rodata + data) of zmote and of FreeRTOS (kernel and FreeRTOS+TCP), from the maps.
for name in serial tcp; do
    map=$elfs/zmote-freertos-$name.map
    zm=$(scripts/map-share.py "$map" libzmote.a | awk 'NR == 1 { print $2 + $3 + $4 } NR == 2 { t = $2 + $3 + $4 } END { print t }')
    rt=$(scripts/map-share.py "$map" libfreertos.a | awk 'NR == 1 { print $2 + $3 + $4 }')
    read -r zm_flash all_flash <<<"$(echo $zm)"
    echo "zmote-freertos-$name flash: $all_flash bytes, zmote $zm_flash, FreeRTOS kernel + FreeRTOS+TCP $rt"
done
[ "$run_tests" = 1 ] || exit 0
ZMOTE_FREERTOS_DIR="$elfs" .venv/bin/python -m pytest tests/freertos -q -rP </dev/null
