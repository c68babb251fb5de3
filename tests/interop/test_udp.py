"""UDP unicast links between zmote and Rust Zenoh 1.10.2, every byte checked: a zmote client of
a Rust router over udp (the Rust client beside it on tcp), a zmote peer dialling a Rust peer that
listens on udp, and a zmote peer listening on udp for a Rust peer, with samples both ways of 8 B
(one batch) and 1 MiB (fragments in datagrams of up to 65487 bytes, which zmote paces and takes
into a large socket buffer: nothing is lost on loopback). A Rust node reads its UDP link on the
thread that runs its callbacks, with the system's default socket buffer: zmote's large samples go
to it a quarter second apart, each whole before the next. Then two Rust peers on one zmote udp
listener, which tells them apart by source address, and the z_pub and z_sub examples over udp.

Nothing here sends multicast."""
import os
import sys

import pytest

import harness
from harness import free_port, pattern

# 1 MiB bounds a rate: the Rust node must drain its socket buffer as fast as zmote paces, which
# parallel workers on a small machine can keep it from; those run alone (scripts/interop.sh).
SIZES = [8, pytest.param(1024 * 1024, marks=pytest.mark.serial)]
LINKS = ["router", "zmote-listens", "rust-listens"]
KEY = "zm/udp/data"
SYNC = "zm/udp/sync"
COUNT = 3


def udp(port):
    return f"udp/127.0.0.1:{port}"


def size_id(size):
    return "1MiB" if size == 1024 * 1024 else f"{size}B"


class UdpRouter:
    """The Rust router listening on tcp (for the Rust client) and on udp (for zmote)."""

    def __init__(self):
        self.tcp = harness.endpoint(free_port())
        self.udp = udp(free_port())
        self.proc = harness.Proc([sys.executable, os.path.join(harness.HERE, "router.py"), self.tcp, self.udp],
                                 name="router (tcp+udp)")
        self.proc.wait_line(r"^ready \w+")

    def stop(self):
        self.proc.stop()


@pytest.fixture
def udp_router(children):
    r = UdpRouter()
    children.all.append(r)
    return r


def meet(link, children, rust, probe_args, router=None):
    """zm_probe and a Rust session, in the order the link needs; zmote's side is always udp."""
    if link == "router":
        s = rust.client(router.tcp)
        p = children.probe(*probe_args, "-m", "client", "-e", router.udp)
    elif link == "zmote-listens":
        ep = udp(free_port())
        p = children.probe(*probe_args, "-m", "peer", "-l", ep)
        p.wait_line(r"^ready")
        s = rust.peer(connect=[ep])
    elif link == "rust-listens":
        ep = udp(free_port())
        s = rust.peer(listen=[ep])
        p = children.probe(*probe_args, "-m", "peer", "-e", ep)
    else:
        raise ValueError(link)
    return p, s


@pytest.fixture
def maybe_router(request, children):
    """A tcp+udp router for the router link only."""
    link = request.node.callspec.params["link"]
    if link != "router":
        return None
    r = UdpRouter()
    children.all.append(r)
    return r


@pytest.mark.parametrize("size", SIZES, ids=size_id)
@pytest.mark.parametrize("link", LINKS)
def test_zmote_to_rust(link, size, maybe_router, children, rust):
    p, s = meet(link, children, rust, ["pub", "-k", KEY, "-n", str(COUNT), "-s", str(size), "-b", "-S", SYNC,
                                       "-W", "-i", "250", "-t", "60000"], maybe_router)
    got = harness.Received()
    s.declare_subscriber(KEY, got)
    synced = harness.Received()
    s.declare_subscriber(SYNC, synced)
    synced.wait(1, timeout=30, others=[p])
    p.send("go")

    samples = got.wait(COUNT, timeout=30, others=[p])
    puts = p.wait_lines(r"^put (\d+) rc=(-?\d+)", COUNT, timeout=10)
    assert [(int(m.group(1)), int(m.group(2))) for m in puts] == [(q, 0) for q in range(COUNT)], p.describe()
    for q, x in enumerate(samples):
        assert x["key"] == KEY
        want = pattern(q, size)
        assert x["payload"] == want, f"sample {q}: {harness.first_difference(x['payload'], want)}"
    p.send("stop")
    assert p.wait_exit(20) == 0
    assert len(got.snapshot()) == COUNT


@pytest.mark.parametrize("size", SIZES, ids=size_id)
@pytest.mark.parametrize("link", LINKS)
def test_rust_to_zmote(link, size, maybe_router, children, rust):
    p, s = meet(link, children, rust, ["sub", "-k", KEY, "-n", str(COUNT), "-t", "60000"], maybe_router)
    p.wait_line(r"^ready")
    pub = s.declare_publisher(KEY, congestion_control=harness.zenoh.CongestionControl.BLOCK)
    harness.wait_matching(pub, others=[p])
    for q in range(COUNT):
        pub.put(pattern(q, size))

    lines = harness.probe_samples(p, COUNT, timeout=30)
    for q, x in enumerate(lines):
        assert (x["n"], x["key"], x["kind"], x["len"], x["check"]) == (str(q), KEY, "put", str(size), "ok"), \
            p.describe()
    assert p.wait_exit(20) == 0


def test_two_rust_peers_on_one_zmote_listener(children, rust):
    """Two Rust peers dial the same zmote udp listener: each is a link of its own (its source
    address), samples flow both ways with each, and one leaving does not disturb the other."""
    ep = udp(free_port())
    p = children.probe("sub", "-k", KEY, "-n", "4", "-t", "60000", "-m", "peer", "-l", ep)
    p.wait_line(r"^ready")
    s1 = rust.peer(connect=[ep])
    s2 = rust.peer(connect=[ep])
    pub1 = s1.declare_publisher(KEY, congestion_control=harness.zenoh.CongestionControl.BLOCK)
    pub2 = s2.declare_publisher(KEY, congestion_control=harness.zenoh.CongestionControl.BLOCK)
    harness.wait_matching(pub1, others=[p])
    harness.wait_matching(pub2, others=[p])
    pub1.put(pattern(0, 1000))
    harness.probe_samples(p, 1, timeout=20)
    pub2.put(pattern(1, 64 * 1024))
    harness.probe_samples(p, 2, timeout=20)
    s1.close()
    pub2.put(pattern(2, 1024 * 1024))
    pub2.put(pattern(3, 8))
    lines = harness.probe_samples(p, 4, timeout=30)
    assert [(x["n"], x["len"], x["check"]) for x in lines] == [
        ("0", "1000", "ok"), ("1", str(64 * 1024), "ok"), ("2", str(1024 * 1024), "ok"), ("3", "8", "ok")], \
        p.describe()
    assert p.wait_exit(20) == 0


def test_two_rust_peers_hear_one_zmote_listener(children, rust):
    """zmote publishes from its udp listener; both Rust peers that dialled it get every sample."""
    ep = udp(free_port())
    p = children.probe("pub", "-k", KEY, "-n", str(COUNT), "-s", "70000", "-b", "-S", SYNC, "-W", "-t", "60000",
                       "-m", "peer", "-l", ep)
    p.wait_line(r"^ready")
    got = [harness.Received(), harness.Received()]
    for g in got:
        s = rust.peer(connect=[ep])
        s.declare_subscriber(KEY, g)
        synced = harness.Received()
        s.declare_subscriber(SYNC, synced)
        synced.wait(1, timeout=30, others=[p])
    p.send("go")
    for g in got:
        samples = g.wait(COUNT, timeout=30, others=[p])
        assert [x["payload"] == pattern(q, 70000) for q, x in enumerate(samples)] == [True] * COUNT
    p.send("stop")
    assert p.wait_exit(20) == 0


def test_examples_over_udp(udp_router, children, rust):
    """z_pub and z_sub as clients of the router over udp: their samples cross to and from Rust."""
    s = rust.client(udp_router.tcp)
    got = harness.Received()
    s.declare_subscriber("demo/example/**", got)
    pub = children.zm("z_pub", "-m", "client", "-e", udp_router.udp, "-n", "3")
    samples = got.wait(3, timeout=30, others=[pub])
    assert pub.wait_exit(15) == 0
    assert [(x["key"], x["payload"]) for x in samples] == [
        ("demo/example/zenoh-pico-pub", f"[{i:4d}] Pub from Pico!".encode()) for i in range(3)]

    sub = children.zm("z_sub", "-m", "client", "-e", udp_router.udp, "-n", "3")
    sub.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    # a session of its own: the first one's subscriber would match the publisher by itself
    rpub = rust.client(udp_router.tcp).declare_publisher("demo/example/rust")
    harness.wait_matching(rpub, others=[sub])
    for i in range(3):
        rpub.put(f"over udp {i}")
    sub.wait_lines(r"^>> \[Subscriber\] Received", 3, timeout=20)
    assert sub.wait_exit(15) == 0
    assert [line for line in sub.output().splitlines() if line.startswith(">>")] == [
        f">> [Subscriber] Received ('demo/example/rust': 'over udp {i}')" for i in range(3)]


# ---- hostile sources -------------------------------------------------------------------------------


def init_syn(zid: bytes) -> bytes:
    """A peer's InitSyn with the default sizes (no S flag), as one UDP batch."""
    return bytes([0x01, 0x09, ((len(zid) - 1) << 4) | 0x01]) + zid


@pytest.mark.serial
def test_initsyn_flood_does_not_keep_a_peer_out(children, rust):
    """InitSyns from 64 sources that never send an OpenSyn, as fast as they go, all through a Rust
    peer's arrival on the same zmote udp listener: each is answered (a stateless cookie) and holds
    nothing, and the Rust peer connects and publishes."""
    import socket
    import threading
    import time

    port = free_port()
    ep = udp(port)
    p = children.probe("sub", "-k", KEY, "-n", "0", "-t", "90000", "-m", "peer", "-l", ep)
    p.wait_line(r"^ready")
    socks = []
    for _ in range(64):
        f = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        f.bind(("127.0.0.1", 0))
        f.setblocking(False)
        socks.append(f)
    stop = threading.Event()
    counts = {"sent": 0, "acks": 0}

    def flood():
        i = 0
        while not stop.is_set():
            for f in socks:
                try:
                    f.sendto(init_syn(b"\xf1\x00" + i.to_bytes(4, "little")), ("127.0.0.1", port))
                    counts["sent"] += 1
                except OSError:
                    pass
                try:
                    while True:
                        f.recv(2048)
                        counts["acks"] += 1
                except OSError:
                    pass
                i += 1

    flooder = threading.Thread(target=flood, daemon=True)
    flooder.start()
    try:
        harness.wait_until(lambda: counts["acks"] >= 1000, 20, "the flood answered", [p])
        start = time.monotonic()
        s = rust.peer(connect=[ep])
        pub = s.declare_publisher(KEY)
        harness.wait_until(lambda: pub.put(pattern(0, 8)) is None and p.matches(r"^sample "), 20,
                           "a sample of the Rust peer through the flood", [p])
        took = time.monotonic() - start
    finally:
        stop.set()
        flooder.join(10)
        for f in socks:
            f.close()
    print(f"Rust peer in after {took:.1f} s; flood: {counts['sent']} InitSyns, {counts['acks']} InitAcks")


@pytest.mark.serial
def test_busy_peer_does_not_starve_another(children, rust):
    """Two Rust peers on one zmote udp listener: the first floods samples into a callback that
    blocks 300 ms on each (its link's reader is busy all along), the second only keeps its lease.
    After 25 s, longer than two leases, the second is still connected (never dropped) and its
    sample arrives; what the first loses is its own."""
    import time

    ep = udp(free_port())
    busy_key, calm_key = "zm/udp/busy", "zm/udp/calm"
    p = children.probe("sub", "-k", busy_key, "-k", calm_key, "-n", "0", "-z", "300", "-t", "90000",
                       "-m", "peer", "-l", ep)
    p.wait_line(r"^ready")
    calm = rust.peer(connect=[ep])
    calm_pub = calm.declare_publisher(calm_key)
    harness.wait_matching(calm_pub, others=[p])
    busy = rust.peer(connect=[ep])
    busy_pub = busy.declare_publisher(busy_key)
    harness.wait_matching(busy_pub, others=[p])
    end = time.monotonic() + 25
    n = 0
    while time.monotonic() < end:
        busy_pub.put(pattern(n, 4000))
        n += 1
        time.sleep(0.002)
    assert p.matches(r"^sample sub=0 "), p.describe()  # the busy peer was heard
    calm_pub.put(pattern(0, 8))
    p.wait_line(r"^sample sub=1 ", timeout=15)
    assert not p.matches(r"dropped \(close: expired\)"), p.describe()
    assert len(p.matches(r"^sample sub=0 ")) < n  # the busy one lost part of its flood, nobody else
