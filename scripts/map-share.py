#!/usr/bin/env python3
"""The share of one archive in a GNU ld map, by section kind: prints two lines,
"<archive> TEXT RODATA DATA BSS" for the archive's input sections and "total TEXT RODATA DATA BSS"
for all of them. Input sections read as " .text.name  0xADDR  0xSIZE  path/lib.a(obj.o)", the name
alone on its line when it is long; only what landed in memory (address non-zero) counts.

usage: scripts/map-share.py MAP [ARCHIVE]   (ARCHIVE defaults to libzmote.a)
"""
import re
import sys

KINDS = (("text", (".text",)), ("rodata", (".rodata",)), ("data", (".data",)), ("bss", (".bss", "COMMON")))


def share(path, archive):
    rows = {who: dict.fromkeys([k for k, _ in KINDS], 0) for who in ("archive", "total")}
    pending = None
    in_map = False
    for line in open(path):
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
        kind = next((k for k, prefixes in KINDS if any(name.startswith(p) for p in prefixes)), None)
        if kind is None:
            continue
        rows["total"][kind] += size
        if archive + "(" in src:
            rows["archive"][kind] += size
    return rows


def main():
    archive = sys.argv[2] if len(sys.argv) > 2 else "libzmote.a"
    rows = share(sys.argv[1], archive)
    for who, label in (("archive", archive), ("total", "total")):
        print(label, *(rows[who][k] for k, _ in KINDS))


if __name__ == "__main__":
    main()
