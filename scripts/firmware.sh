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
python3 - "$fw/zmote-mcu.map" <<'PY'
import re
import sys

# Input sections of the map: " .text.name  0xADDR  0xSIZE  path/lib.a(obj.o)", the name alone
# on its line when it is long. Kinds by name; only what landed in memory (address non-zero).
kinds = (("text", (".text",)), ("rodata", (".rodata",)), ("data", (".data",)), ("bss", (".bss", "COMMON")))
rows = {"zmote": dict.fromkeys([k for k, _ in kinds], 0), "total": dict.fromkeys([k for k, _ in kinds], 0)}
pending = None
in_map = False
for line in open(sys.argv[1]):
    if line.startswith("Linker script and memory map"):
        in_map = True
        continue
    if not in_map or line.startswith("/DISCARD/"):
        continue
    m = re.match(r"^ (\.\S+|COMMON)\s*$", line)
    if m:
        pending = m.group(1)
        continue
    m = re.match(r"^ (\.\S+|COMMON)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)", line)
    if not m:
        pending = None
        continue
    name = m.group(1) or pending
    pending = None
    addr, size, src = int(m.group(2), 16), int(m.group(3), 16), m.group(4)
    if name is None or addr == 0 or size == 0:
        continue
    kind = next((k for k, prefixes in kinds if any(name.startswith(p) for p in prefixes)), None)
    if kind is None:
        continue
    rows["total"][kind] += size
    if "libzmote.a(" in src:
        rows["zmote"][kind] += size
print("zmote-mcu by section kind (bytes):")
print("  %-8s %8s %8s %8s %8s" % ("", "text", "rodata", "data", "bss"))
for who in ("zmote", "total"):
    r = rows[who]
    print("  %-8s %8d %8d %8d %8d" % (who, r["text"], r["rodata"], r["data"], r["bss"]))
flash = sum(rows["zmote"][k] for k in ("text", "rodata", "data"))
total = sum(rows["total"][k] for k in ("text", "rodata", "data"))
print("  zmote's share of flash: %d of %d bytes (%d%%)" % (flash, total, 100 * flash // max(total, 1)))
PY
# zmote-mcu is built without a heap (ZM_NO_HEAP in its zmote_config.h): the C library's
# allocator must not be in its image at all.
if arm-none-eabi-nm "$fw/zmote-mcu.elf" | grep -qwE 'malloc|free|_malloc_r|_free_r|calloc|realloc'; then
    echo "error: zmote-mcu links the C library's malloc/free although it is built without a heap" >&2
    exit 1
fi
echo "zmote-mcu links no malloc or free: every block comes from the library's static pools"
echo "firmware: $fw/zmote-mcu.elf $fw/board-check.elf"
