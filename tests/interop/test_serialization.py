"""zmote's serialization API against zenoh-ext's, as the Python binding of Rust Zenoh 1.10.2 has
it (zenoh.ext.z_serialize / z_deserialize): every type both ways, through zm_serial.

Python serializes a value and zm_serial deserializes the bytes, with the whole-payload functions
(ze_deserialize_*) and with a deserializer: it must print the value back. zm_serial serializes the
value, with ze_serialize_* and with a serializer: the bytes must equal Python's, byte for byte,
and Python must read the value back. Values are written as zm_serial's text (see zm_serial.c);
floats as their IEEE bits, so that -0.0, infinities and NaN compare exactly."""
import math
import struct

import pytest
import zenoh
import zenoh.ext as zx

import harness

INTS = {
    "u8": (zx.UInt8, 0, 2**8 - 1),
    "u16": (zx.UInt16, 0, 2**16 - 1),
    "u32": (zx.UInt32, 0, 2**32 - 1),
    "u64": (zx.UInt64, 0, 2**64 - 1),
    "i8": (zx.Int8, -(2**7), 2**7 - 1),
    "i16": (zx.Int16, -(2**15), 2**15 - 1),
    "i32": (zx.Int32, -(2**31), 2**31 - 1),
    "i64": (zx.Int64, -(2**63), 2**63 - 1),
}

# ---- types and values -------------------------------------------------------------------------------
# A type is a scalar name ("u8" .. "i64", "f32", "f64", "bool", "str", "bytes"), ("seq", T),
# ("tup", [T, ...]) or ("map", K, V); a value is the plain Python value of its type.


def f32_bits(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def f64_bits(v):
    return struct.unpack("<Q", struct.pack("<d", v))[0]


def text(t, v) -> str:
    """The value as zm_serial writes and reads it."""
    if isinstance(t, str) and t in INTS:
        return f"{t}:{int(v)}"
    if t == "f32":
        return f"f32:{f32_bits(v):08x}"
    if t == "f64":
        return f"f64:{f64_bits(v):016x}"
    if t == "bool":
        return f"bool:{int(bool(v))}"
    if t == "str":
        return "str:" + v.encode().hex()
    if t == "bytes":
        return "bytes:" + bytes(v).hex()
    kind = t[0]
    if kind == "seq":
        return " ".join([f"seq {len(v)}"] + [text(t[1], x) for x in v])
    if kind == "tup":
        return " ".join([f"tup {len(v)}"] + [text(et, x) for et, x in zip(t[1], v)])
    if kind == "map":
        return " ".join([f"map {len(v)}"] + [f"{text(t[1], k)} {text(t[2], x)}" for k, x in v.items()])
    raise ValueError(t)


def type_text(t) -> str:
    """The type as zm_serial reads it."""
    if isinstance(t, str):
        return t
    if t[0] == "seq":
        return f"seq {type_text(t[1])}"
    if t[0] == "tup":
        return " ".join([f"tup {len(t[1])}"] + [type_text(et) for et in t[1]])
    return f"map {type_text(t[1])} {type_text(t[2])}"


def py_value(t, v):
    """The value as zenoh.ext serializes it: integers and floats wrapped in their width."""
    if isinstance(t, str) and t in INTS:
        return INTS[t][0](v)
    if t == "f32":
        return zx.Float32(v)
    if t == "f64":
        return zx.Float64(v)
    if isinstance(t, str):
        return v
    if t[0] == "seq":
        return [py_value(t[1], x) for x in v]
    if t[0] == "tup":
        return tuple(py_value(et, x) for et, x in zip(t[1], v))
    return {py_value(t[1], k): py_value(t[2], x) for k, x in v.items()}


def py_type(t):
    """The type to give zenoh.ext.z_deserialize."""
    scalars = {"f32": zx.Float32, "f64": zx.Float64, "bool": bool, "str": str, "bytes": bytes}
    if isinstance(t, str) and t in INTS:
        return INTS[t][0]
    if isinstance(t, str):
        return scalars[t]
    if t[0] == "seq":
        return list[py_type(t[1])]
    if t[0] == "tup":
        return tuple[tuple(py_type(et) for et in t[1])]
    return dict[py_type(t[1]), py_type(t[2])]


# ---- the cases ----------------------------------------------------------------------------------------

UNICODE = "h\u00e9llo w\u00f6rld \u20ac \U0001d11e"

CASES = []
for name, (_, lo, hi) in INTS.items():
    for v in sorted({lo, hi, 0, 1, hi // 3, lo // 3 if lo else 200 % hi, -1 if lo else hi - 1}):
        CASES.append((name, v))
CASES += [("f32", v) for v in (0.0, -0.0, 1.5, -1234.0, 3.4028234663852886e38, 1.401298464324817e-45,
                               1.1754943508222875e-38, math.inf, -math.inf, math.nan)]
CASES += [("f64", v) for v in (0.0, -0.0, 0.15, -1e300, 5e-324, 1.7976931348623157e308, math.inf, -math.inf,
                               math.nan)]
CASES += [("bool", True), ("bool", False)]
CASES += [("str", v) for v in ("", "test", UNICODE, "x" * 127, "y" * 128, "z" * 20000)]
CASES += [("bytes", v) for v in (b"", bytes(range(256)), b"\x00" * 16384)]
CASES += [
    (("seq", "i32"), [1, 2, 3, 4]),
    (("seq", "i64"), [-100, 500, 100000, -20000000]),
    (("seq", "u8"), []),
    (("seq", "f64"), [42.0, 0.15, -math.inf]),
    (("seq", "str"), ["abc", "", UNICODE]),
    (("seq", "bytes"), [b"\x01\x02", b""]),
    (("seq", "bool"), [True, False, True]),
    (("seq", ("seq", "u16")), [[1, 2], [], [65535]]),
    (("seq", "u8"), list(range(200))),
    (("tup", ["u16", "f32", "str"]), (500, 1234.0, "test")),
    (("tup", ["i8", "bool", "bytes", "i64", "f64"]), (-128, True, b"\xff", -(2**63), 2.5)),
    (("tup", ["str", ("seq", "i16"), ("tup", ["u32", "bool"])]), ("nested", [-1, 1], (7, False))),
    (("seq", ("tup", ["str", "i16"])), [("s1", 10), ("s2", -10000)]),
    (("map", "str", "i32"), {"one": 1, "two": 2, "minus": -3}),
    (("map", "i64", ("seq", "str")), {5: ["a", "b"], -9: []}),
    (("map", "str", "str"), {}),
    (("seq", ("tup", ["str", ("map", "str", "f64")])), [("a", {"x": 1.0, "y": -2.0}), ("b", {})]),
]


def case_id(case):
    t, v = case
    name = type_text(t).replace(" ", "_")
    return f"{name}-{text(t, v)[:40]}" if isinstance(t, str) else name


# ---- zm_serial, one process for the module ------------------------------------------------------------


class Serial:
    def __init__(self):
        self.proc = harness.zm("zm_serial")
        self.asked = 0

    def ask(self, line: str) -> str:
        self.proc.send(line)
        self.asked += 1
        answers = self.proc.wait_lines(r"^(ok|err)\b", self.asked, timeout=20)
        return answers[-1].string


@pytest.fixture(scope="module")
def serial():
    s = Serial()
    yield s
    s.proc.close_stdin()
    rc = s.proc.wait_exit(10)
    s.proc.stop()
    assert rc == 0, s.proc.describe()


def same(t, got, want) -> bool:
    return text(t, got) == text(t, want)


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_python_serializes_zmote_deserializes(case, serial):
    t, v = case
    wire = zx.z_serialize(py_value(t, v)).to_bytes()
    for cmd in ("de", "des"):
        assert serial.ask(f"{cmd} x{wire.hex()} {type_text(t)}") == f"ok {text(t, v)}", cmd


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_zmote_serializes_python_deserializes(case, serial):
    t, v = case
    want = zx.z_serialize(py_value(t, v)).to_bytes()
    for cmd in ("ser", "sers"):
        answer = serial.ask(f"{cmd} {text(t, v)}")
        assert answer.startswith("ok x"), (cmd, answer)
        wire = bytes.fromhex(answer[4:])
        assert wire == want, cmd
        back = zx.z_deserialize(py_type(t), zenoh.ZBytes(wire))
        assert same(t, back, v), (cmd, back)


# ---- what zmote refuses ------------------------------------------------------------------------------

RECORD_TYPE = ("tup", ["u32", "str", ("seq", "f64"), ("map", "str", "bool"), "bytes"])
RECORD = (7, UNICODE, [1.0, -2.0], {"k": True}, b"\x00\x01")


def test_every_truncation_of_a_python_record_is_refused(serial):
    wire = zx.z_serialize(py_value(RECORD_TYPE, RECORD)).to_bytes()
    assert serial.ask(f"des x{wire.hex()} {type_text(RECORD_TYPE)}") == f"ok {text(RECORD_TYPE, RECORD)}"
    for n in range(len(wire)):
        assert serial.ask(f"des x{wire[:n].hex()} {type_text(RECORD_TYPE)}") == "err -72", n


def test_trailing_bytes_are_refused(serial):
    """Rust's z_deserialize refuses bytes left after the value; so does zmote."""
    for t, v in [("u32", 5), ("str", "abc"), ("bytes", b"ab"), (("seq", "u8"), [1])]:
        wire = zx.z_serialize(py_value(t, v)).to_bytes() + b"\x00"
        for cmd in ("de", "des"):
            assert serial.ask(f"{cmd} x{wire.hex()} {type_text(t)}") == "err -72", (cmd, t)


@pytest.mark.parametrize("hexbytes,t,python_refuses", [
    ("02", "bool", True),                               # a bool is 0 or 1
    ("02fffe", "str", True),                            # not UTF-8
    ("03eda080", "str", True),                          # a UTF-16 surrogate
    ("80808080808080808080", ("seq", "u8"), True),      # a varint without its end
    ("8080808080808080808000", ("seq", "u8"), True),    # eleven bytes
    ("80808080808080808002", ("seq", "u8"), True),      # a 65th bit
    ("0501", "bytes", True),                            # more bytes announced than remain
    ("0301", ("seq", "u8"), True),
    # 2^64-1 bytes announced: Rust sizes a buffer from the length before reading and panics
    # (capacity overflow); zmote compares the length with what remains first
    ("ffffffffffffffffff01", "bytes", False),
], ids=lambda x: x if isinstance(x, str) else type_text(x).replace(" ", "_") if isinstance(x, tuple)
    else "python-refuses" if x else "python-panics")
def test_malformed_input_is_refused(hexbytes, t, python_refuses, serial):
    if python_refuses:
        with pytest.raises(zx.ZDeserializeError):
            zx.z_deserialize(py_type(t), zenoh.ZBytes(bytes.fromhex(hexbytes)))
    for cmd in ("de", "des"):
        assert serial.ask(f"{cmd} x{hexbytes} {type_text(t)}") == "err -72", cmd
