#!/usr/bin/env python3
"""Turns the golden vectors into libFuzzer seed files, one per input, so a fuzz run starts from
valid messages and mutates outward instead of rediscovering the header layout byte by byte.

usage: fuzz-corpus.py OUTDIR [VECTORS_DIR]
writes OUTDIR/corpus-fuzz_batch/ (wire bytes) and OUTDIR/corpus-fuzz_keyexpr/ (pairs "a\\0b").
"""
import hashlib
import pathlib
import re
import sys

# `NAME: [LEN] hex bytes`, as written by the Rust vector dump (rust-wire.txt).
RUST_WIRE = re.compile(r":\s*\[(\d+)\]\s*((?:[0-9a-fA-F]{2}\s*)+)$")
HEX = re.compile(r"^(?:[0-9a-fA-F]{2}\s*)+$")


def wire_inputs(vectors):
    out = []
    path = vectors / "rust-wire.txt"
    if path.exists():
        for line in path.read_text().splitlines():
            m = RUST_WIRE.search(line)
            if m:
                data = bytes.fromhex(m.group(2))
                if len(data) != int(m.group(1)):
                    sys.exit(f"{path}: length mismatch in: {line}")
                out.append(data)
    # `ok|err<TAB>layer<TAB>name<TAB>hex` (wire-gen.txt); rejected inputs make good seeds too.
    path = vectors / "wire-gen.txt"
    if path.exists():
        for line in path.read_text().splitlines():
            f = line.split("\t")
            if len(f) >= 4 and f[0] in ("ok", "err") and HEX.match(f[-1].strip()):
                out.append(bytes.fromhex(f[-1]))
    return out


def keyexpr_inputs(vectors):
    pairs = []
    singles = []
    for name in ("rust-keyexpr.txt", "keyexpr-gen.txt"):
        path = vectors / name
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            if line.startswith("|"):
                ticked = re.findall(r"`([^`]*)`", line)
                if len(ticked) >= 2:
                    pairs.append((ticked[0], ticked[1]))
            elif "\t" in line:
                # tab-separated generator lines: the first two fields that look like key
                # expressions form a pair, a lone one stands with itself.
                f = [x for x in line.split("\t") if x and " " not in x
                     and x not in ("ok", "err", "true", "false")]
                if len(f) >= 2:
                    pairs.append((f[0], f[1]))
                elif f:
                    singles.append(f[0])
            else:
                singles.extend(re.findall(r'"([^"]*)"', line))
    for s in singles:
        pairs.append((s, s))
        pairs.append((s, "a/**"))
    return [a.encode() + b"\0" + b.encode() for a, b in pairs]


def serial_inputs(vectors):
    # the `frame` and handshake lines of rust-serial.txt: the last field is the bytes on the line
    path = vectors / "rust-serial.txt"
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        f = line.split("\t")
        if line.startswith("#") or len(f) < 2:
            continue
        wire = f[4] if f[0] == "frame" else f[1]
        out.append(bytes.fromhex(wire))
    return out


def write(dirpath, inputs):
    dirpath.mkdir(parents=True, exist_ok=True)
    for data in inputs:
        # content-named, like libFuzzer's own corpus files, so reruns add nothing twice
        (dirpath / hashlib.sha1(data).hexdigest()).write_bytes(data)
    return len(set(inputs))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    vectors = pathlib.Path(sys.argv[2]) if len(sys.argv) == 3 else \
        pathlib.Path(__file__).resolve().parent.parent / "tests" / "vectors"
    wire = wire_inputs(vectors)
    keys = keyexpr_inputs(vectors)
    if not wire or not keys:
        sys.exit(f"no seeds found in {vectors}: wire {len(wire)}, keyexpr {len(keys)}")
    n_wire = write(out / "corpus-fuzz_batch", wire)
    n_keys = write(out / "corpus-fuzz_keyexpr", keys)
    n_serial = write(out / "corpus-fuzz_serial", serial_inputs(vectors))
    print(f"corpus: {n_wire} batch seeds, {n_keys} keyexpr seeds, {n_serial} serial seeds in {out}")


if __name__ == "__main__":
    main()
