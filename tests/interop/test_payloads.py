"""Payloads of 0 B to 16 MiB, every byte checked, between zmote (zm_probe) and Rust Zenoh 1.10.2,
both ways, over each way the two can meet: a zmote client and a Rust client through the Rust
router, a zmote peer listening for a Rust peer, a Rust peer listening for a zmote peer; and
between two zmote programs, through the router and peer to peer.

zm_probe's payload for sample q is harness.pattern(q, size), so any byte out of place, lost or
doubled in reassembly shows at its offset. Large samples cross as fragments on every hop."""
import pytest

import harness
from harness import endpoint, free_port, pattern

SIZES = [0, 8, 64 * 1024, 1024 * 1024, 16 * 1024 * 1024]
LINKS = ["router", "zmote-listens", "rust-listens"]
KEY = "zm/pay/data"
SYNC = "zm/pay/sync"


def size_id(size):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= div and size % div == 0:
            return f"{size // div}{unit}"
    return f"{size}B"


def count_for(size):
    return 2 if size > (1 << 20) else 3


def timeout_for(size):
    return 120 if size > (1 << 20) else 30


def meet(link, children, rust, probe_args):
    """Starts zm_probe and opens the Rust session in the order the link needs."""
    if link == "router":
        r = children.router()
        s = rust.client(r.endpoint)
        p = children.probe(*probe_args, "-m", "client", "-e", r.endpoint)
    elif link == "zmote-listens":
        ep = endpoint(free_port())
        p = children.probe(*probe_args, "-m", "peer", "-l", ep)
        p.wait_line(r"^ready")
        s = rust.peer(connect=[ep])
    elif link == "rust-listens":
        ep = endpoint(free_port())
        s = rust.peer(listen=[ep])
        p = children.probe(*probe_args, "-m", "peer", "-e", ep)
    else:
        raise ValueError(link)
    return p, s


def check_probe_puts(p, n):
    puts = p.wait_lines(r"^put (\d+) rc=(-?\d+)", n, timeout=10)
    assert [(int(m.group(1)), int(m.group(2))) for m in puts] == [(q, 0) for q in range(n)], p.describe()


@pytest.mark.parametrize("size", SIZES, ids=size_id)
@pytest.mark.parametrize("link", LINKS)
def test_zmote_to_rust(link, size, children, rust):
    n = count_for(size)
    p, s = meet(link, children, rust, ["pub", "-k", KEY, "-n", str(n), "-s", str(size), "-b", "-S", SYNC, "-W",
                                       "-t", "180000"])
    got = harness.Received()
    s.declare_subscriber(KEY, got)
    synced = harness.Received()
    s.declare_subscriber(SYNC, synced)
    synced.wait(1, timeout=30, others=[p])
    p.send("go")

    samples = got.wait(n, timeout=timeout_for(size), others=[p])
    check_probe_puts(p, n)
    for q, x in enumerate(samples):
        assert x["key"] == KEY
        assert x["kind"] == harness.zenoh.SampleKind.PUT
        want = pattern(q, size)
        assert x["payload"] == want, f"sample {q}: {harness.first_difference(x['payload'], want)}"
    p.send("stop")
    assert p.wait_exit(20) == 0
    assert len(got.snapshot()) == n


@pytest.mark.parametrize("size", SIZES, ids=size_id)
@pytest.mark.parametrize("link", LINKS)
def test_rust_to_zmote(link, size, children, rust):
    n = count_for(size)
    p, s = meet(link, children, rust, ["sub", "-k", KEY, "-n", str(n), "-t", "180000"])
    p.wait_line(r"^ready")
    pub = s.declare_publisher(KEY, congestion_control=harness.zenoh.CongestionControl.BLOCK)
    harness.wait_matching(pub, others=[p])
    for q in range(n):
        pub.put(pattern(q, size))

    lines = harness.probe_samples(p, n, timeout=timeout_for(size))
    for q, x in enumerate(lines):
        assert (x["n"], x["key"], x["kind"], x["len"], x["check"]) == (str(q), KEY, "put", str(size), "ok"), \
            p.describe()
    assert p.wait_exit(20) == 0


ZM_LINKS = ["router", "sub-listens", "pub-listens"]


@pytest.mark.parametrize("size", SIZES, ids=size_id)
@pytest.mark.parametrize("link", ZM_LINKS)
def test_zmote_to_zmote(link, size, children):
    n = count_for(size)
    if link == "router":
        r = children.router()
        sub_at = pub_at = ["-m", "client", "-e", r.endpoint]
    else:
        ep = endpoint(free_port())
        listen, connect = ["-m", "peer", "-l", ep], ["-m", "peer", "-e", ep]
        sub_at, pub_at = (listen, connect) if link == "sub-listens" else (connect, listen)

    # The listening side starts first, so the other finds it there.
    start_sub = lambda: children.probe("sub", "-k", KEY, "-n", str(n), "-S", SYNC, "-t", "180000", *sub_at)
    start_pub = lambda: children.probe("pub", "-k", KEY, "-n", str(n), "-s", str(size), "-b", "-S", SYNC, "-W",
                                       "-t", "180000", *pub_at)
    if link == "pub-listens":
        pub = start_pub()
        pub.wait_line(r"^ready")
        sub = start_sub()
    else:
        sub = start_sub()
        sub.wait_line(r"^ready")
        pub = start_pub()
    sub.wait_line(r"^sync$", timeout=30, others=[pub])
    pub.send("go")

    lines = harness.probe_samples(sub, n, timeout=timeout_for(size), others=[pub])
    for q, x in enumerate(lines):
        assert (x["n"], x["key"], x["kind"], x["len"], x["check"]) == (str(q), KEY, "put", str(size), "ok"), \
            sub.describe()
    check_probe_puts(pub, n)
    assert sub.wait_exit(20) == 0
    pub.send("stop")
    assert pub.wait_exit(20) == 0
