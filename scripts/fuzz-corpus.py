#!/usr/bin/env python3
"""Turns the golden vectors into libFuzzer seed files, one per input, so a fuzz run starts from
valid messages and mutates outward instead of rediscovering the header layout byte by byte.

usage: fuzz-corpus.py OUTDIR [VECTORS_DIR]
writes OUTDIR/corpus-fuzz_batch/ (wire bytes), OUTDIR/corpus-fuzz_keyexpr/ (pairs "a\\0b"),
OUTDIR/corpus-fuzz_serial/ (bytes on a serial line) and OUTDIR/corpus-fuzz_deserialize/ (reads, then
a payload in zenoh-ext's serialization format).
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


# The kinds of read fuzz_deserialize makes, in its numbering.
U8, U16, U32, U64, I8, I16, I32, I64, F32, F64, BOOL, STR, SLICE, SEQ = range(14)


def deserialize_inputs():
    """fuzz_deserialize's inputs: a count of reads, the reads, then a payload (zenoh-ext's format,
    as Rust's z_serialize writes these values)."""
    cases = [
        ([SEQ, STR, I16, STR, I16], "02 02 73 31 0a 00 02 73 32 f0 d8"),
        ([U16, F32, STR], "f4 01 00 40 9a 44 04 74 65 73 74"),
        ([SEQ, I64, I64, I64, I64], "04 9c ff ff ff ff ff ff ff f4 01 00 00 00 00 00 00 a0 86 01 00 00 00 00 00 00 "
                                    "d3 ce fe ff ff ff ff"),
        ([SEQ, STR, U8, STR, U8], "02 01 61 01 02 62 63 02"),
        ([I32, I32, BOOL, BOOL, U8], "86 d6 12 00 a3 3f ff ff 01 00 02"),
        ([U64, I8, U32, F64], "08 07 06 05 04 03 02 01 80 ef be ad de 33 33 33 33 33 33 c3 3f"),
        ([SLICE, STR], "03 00 01 02 05 c3 a9 e2 82 ac"),
        ([SEQ, SEQ, SEQ], "80 00 80 80 80 80 80 80 80 80 00 ff ff ff ff ff ff ff ff ff 01"),
        ([STR, SLICE], "02 ff fe 02 ff fe"),
    ]
    return [bytes([len(reads)] + reads) + bytes.fromhex(payload) for reads, payload in cases]


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
    n_de = write(out / "corpus-fuzz_deserialize", deserialize_inputs())
    print(f"corpus: {n_wire} batch seeds, {n_keys} keyexpr seeds, {n_serial} serial seeds, "
          f"{n_de} deserialize seeds in {out}")


if __name__ == "__main__":
    main()
