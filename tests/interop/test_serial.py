"""zmote over a serial line to Rust Zenoh 1.10.2: a zmote client on one end of a pseudo-terminal
pair (socat), a Rust router with the serial link on the other (tools/serial-router, built by
scripts/build-serial-router.sh), and Rust sessions of the eclipse-zenoh binding on the router's
TCP side. Samples cross both ways, every payload byte checked, from one byte to payloads that
need many 1500-byte serial batches; a second client takes the line after the first left."""
import os
import re
import shutil

import pytest

import harness
from harness import Proc, endpoint, free_port, pattern

KEY = "zm/serial/data"
SYNC = "zm/serial/sync"
SIZES = [1, 1000, 1493, 5000, 65536]
BAUD = 115200


def router_binary() -> str:
    path = os.environ.get("ZMOTE_SERIAL_ROUTER") or os.path.join(
        os.environ.get("ZMOTE_CACHE") or os.path.expanduser("~/.cache/zmote"),
        "serial-router", "bin", "zmote-serial-router")
    if not os.access(path, os.X_OK):
        raise AssertionError(f"{path} is missing: run scripts/build-serial-router.sh (or set ZMOTE_SERIAL_ROUTER)")
    return path


class Line:
    """A pseudo-terminal pair joined by socat, and the Rust router listening on one end of it."""

    def __init__(self, children):
        if shutil.which("socat") is None:
            raise AssertionError("socat is missing: run scripts/setup.sh")
        self.socat = Proc(["socat", "-d", "-d", "pty,raw,echo=0", "pty,raw,echo=0"], name="socat")
        children.all.append(self.socat)
        ptys = self.socat.wait_lines(r"PTY is (\S+)", 2, timeout=10)
        self.socat.wait_line(r"starting data transfer loop", timeout=10)
        self.router_pty, self.zmote_pty = ptys[0].group(1), ptys[1].group(1)
        self.tcp = endpoint(free_port())
        self.router = Proc([router_binary(), f"serial/{self.router_pty}#baudrate={BAUD}", self.tcp],
                           name="serial-router")
        children.all.append(self.router)
        self.router.wait_line(r"^ready \w+", timeout=20, others=[self.socat])
        self.serial = f"serial/{self.zmote_pty}#baudrate={BAUD}"

    def others(self):
        return [self.router, self.socat]


@pytest.fixture
def line(children):
    return Line(children)


def size_id(size):
    return f"{size}B"


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_zmote_over_serial_to_rust(size, line, children, rust):
    n = 3
    s = rust.client(line.tcp)
    got = harness.Received()
    s.declare_subscriber(KEY, got)
    synced = harness.Received()
    s.declare_subscriber(SYNC, synced)
    p = children.probe("pub", "-m", "client", "-e", line.serial, "-k", KEY, "-n", str(n), "-s", str(size), "-b",
                       "-S", SYNC, "-t", "60000")
    synced.wait(1, timeout=30, others=[p, *line.others()])
    p.send("go")
    samples = got.wait(n, timeout=30, others=[p, *line.others()])
    for q, x in enumerate(samples):
        assert x["key"] == KEY
        want = pattern(q, size)
        assert x["payload"] == want, f"sample {q}: {harness.first_difference(x['payload'], want)}"
    puts = p.wait_lines(r"^put (\d+) rc=(-?\d+)", n, timeout=10)
    assert [(int(m.group(1)), int(m.group(2))) for m in puts] == [(q, 0) for q in range(n)], p.describe()
    p.send("stop")
    assert p.wait_exit(20) == 0
    assert len(got.snapshot()) == n


@pytest.mark.parametrize("size", SIZES, ids=size_id)
def test_rust_to_zmote_over_serial(size, line, children, rust):
    n = 3
    p = children.probe("sub", "-m", "client", "-e", line.serial, "-k", KEY, "-n", str(n), "-t", "60000")
    p.wait_line(r"^ready", timeout=30, others=line.others())
    s = rust.client(line.tcp)
    pub = s.declare_publisher(KEY, congestion_control=harness.zenoh.CongestionControl.BLOCK)
    harness.wait_matching(pub, others=[p, *line.others()])
    for q in range(n):
        pub.put(pattern(q, size))
    lines = harness.probe_samples(p, n, timeout=30, others=line.others())
    for q, x in enumerate(lines):
        assert (x["n"], x["key"], x["kind"], x["len"], x["check"]) == (str(q), KEY, "put", str(size), "ok"), \
            p.describe()
    assert p.wait_exit(20) == 0


def test_examples_take_turns_on_the_line(line, children, rust):
    """z_pub and z_sub take serial endpoints; the router hands the line to each client in turn."""
    got = harness.Received()
    s = rust.client(line.tcp)
    s.declare_subscriber("demo/serial/pub", got)  # not demo/serial/rust: matching below must mean z_sub
    for turn in range(2):
        pub = children.zm("z_pub", "-m", "client", "-e", line.serial, "-k", "demo/serial/pub",
                          "-v", f"turn {turn}", "-n", "2")
        assert pub.wait_exit(30, others=line.others()) == 0, pub.describe()
        samples = got.wait(2 * (turn + 1), timeout=30, others=[pub, *line.others()])
        assert [x["payload"] for x in samples[2 * turn:]] == [f"[{i:4d}] turn {turn}".encode() for i in range(2)]

    sub = children.zm("z_sub", "-m", "client", "-e", line.serial, "-k", "demo/serial/**", "-n", "2")
    sub.wait_line(r"^Press CTRL-C to quit\.\.\.$", others=line.others())
    # BLOCK: Rust's default (DROP) may drop a sample while its pipeline is busy on a loaded machine
    p = s.declare_publisher("demo/serial/rust", congestion_control=harness.zenoh.CongestionControl.BLOCK)
    harness.wait_matching(p, others=[sub, *line.others()])
    for i in range(2):
        p.put(f"rust {i}")
    sub.wait_lines(re.escape(">> [Subscriber] Received ('demo/serial/rust': 'rust ") + r"\d'\)", 2,
                   others=line.others())
    assert sub.wait_exit(20) == 0
