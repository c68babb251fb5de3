"""Peers on a UDP multicast group (docs/multicast.md): zmote's examples and probes on a group with
Rust Zenoh 1.10.2 peers (eclipse-zenoh, listening on the group as Rust takes it) and with each
other: samples both ways, queries and liveliness between zmote peers, zmote's tokens seen by Rust,
a member killed and dropped at its lease's end, and a flood of JOINs from fake members that the
member table absorbs. Each test has a group port of its own.

Every test here sends multicast: it runs only inside scripts/netns.sh (ZM_NETNS=1, a network
namespace whose only interface is lo), and fails at once anywhere else."""
import os
import signal
import socket
import threading
import time

import pytest
import zenoh

import harness

PUT = zenoh.SampleKind.PUT
DELETE = zenoh.SampleKind.DELETE
GROUP = "224.0.0.123"


@pytest.fixture(autouse=True)
def inside_netns():
    if os.environ.get("ZM_NETNS") != "1":
        pytest.fail("test_multicast.py sends multicast: it runs only through scripts/netns.sh "
                    "(scripts/interop.sh does that), never on the host's interfaces")


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def group():
    """A group endpoint of this test's own: udp/224.0.0.123:PORT#iface=lo."""
    port = free_udp_port()
    return {"port": port, "ep": f"udp/{GROUP}:{port}#iface=lo"}


class Events:
    """A Rust liveliness subscriber's callback: (kind, key) of each event, in order."""

    def __init__(self):
        self.items = []
        self.cond = threading.Condition()

    def __call__(self, sample):
        with self.cond:
            self.items.append((sample.kind, str(sample.key_expr)))
            self.cond.notify_all()

    def snapshot(self):
        with self.cond:
            return list(self.items)

    def wait(self, kind, key, timeout=20.0, others=()):
        harness.wait_until(lambda: (kind, key) in self.snapshot(), timeout,
                           f"{kind} {key} at the Rust liveliness subscriber (got {self.snapshot()})", others)


# ---- the wire, for fake members --------------------------------------------------------------------


def zint(v: int) -> bytes:
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def join(zid: bytes, lease_s: int, sn: int) -> bytes:
    """A peer's JOIN as Rust writes it: lease in seconds (T), batch 8192 (no S), patch 1."""
    return (bytes([0xA7, 0x09, ((len(zid) - 1) << 4) | 0x01]) + zid + zint(lease_s) + zint(sn) + zint(sn)
            + b"\x27\x01")


# ---- samples -----------------------------------------------------------------------------------------


def test_samples_rust_to_zmote(group, rust, children):
    sub = children.probe("sub", "-m", "peer", "-l", group["ep"], "-k", "zm/mc/sync", "-k", "zm/mc/data",
                         "-n", "0", "-t", "60000")
    sub.wait_line("^ready$")
    s = rust.peer(listen=[group["ep"]])
    # zmote takes nothing from Rust before its JOIN (sent every 2.5 s): greet until heard
    sync = s.declare_publisher("zm/mc/sync")
    harness.wait_until(lambda: sync.put(b"") is None and sub.matches(r"^sample sub=0 "), 20,
                       "a greeting of the Rust peer heard by zmote", [sub])
    data = s.declare_publisher("zm/mc/data")
    for seq in range(20):
        data.put(harness.pattern(seq, 100 + 10 * seq))
    samples = harness.probe_samples(sub, 20, sub=1, others=[sub])
    assert [(x["n"], x["len"], x["check"], x["key"]) for x in samples] == [
        (str(i), str(100 + 10 * i), "ok", "zm/mc/data") for i in range(20)]


def test_samples_zmote_to_rust(group, rust, children):
    s = rust.peer(listen=[group["ep"]])
    got = harness.Received()
    s.declare_subscriber("zm/mc/data", got)
    synced = harness.Received()
    s.declare_subscriber("zm/mc/sync", synced)
    p = children.probe("pub", "-m", "peer", "-e", group["ep"], "-k", "zm/mc/data", "-n", "20", "-s", "3000",
                       "-a", "att", "-S", "zm/mc/sync", "-W")
    synced.wait(1, timeout=20, others=[p])
    p.send("go")
    samples = got.wait(20, timeout=20, others=[p])
    assert [x["payload"] for x in samples] == [harness.pattern(i, 3000) for i in range(20)]
    assert {x["attachment"] for x in samples} == {b"att"}
    p.wait_line("^sent$")
    p.send("stop")
    assert p.wait_exit(15) == 0


def test_large_samples_in_fragments(group, children):
    """Samples larger than a batch of 8192 cross the group in fragments, between zmote peers."""
    sub = children.probe("sub", "-m", "peer", "-l", group["ep"], "-k", "zm/mc/big", "-n", "5", "-t", "60000")
    sub.wait_line("^ready$")
    p = children.probe("pub", "-m", "peer", "-e", group["ep"], "-k", "zm/mc/big", "-n", "5", "-s", "50000",
                       "-i", "50")
    samples = harness.probe_samples(sub, 5, others=[p])
    assert [(x["len"], x["check"]) for x in samples] == [("50000", "ok")] * 5
    assert p.wait_exit(20) == 0


def test_examples_pub_and_sub(group, rust, children):
    """z_pub to z_sub and to a Rust subscriber on the group, once each (not once per member)."""
    ep = group["ep"]
    got = harness.Received()
    s = rust.peer(listen=[ep])
    s.declare_subscriber("demo/example/**", got)
    sub = children.zm("z_sub", "-m", "peer", "-l", ep, "-n", "3")
    sub.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    pub = children.zm("z_pub", "-m", "peer", "-e", ep, "-n", "3")
    assert sub.wait_exit(30, others=[pub]) == 0
    assert pub.wait_exit(15) == 0
    assert sub.output().splitlines() == [
        "Opening session...",
        "Declaring Subscriber on 'demo/example/**'...",
        "Press CTRL-C to quit...",
        *[f">> [Subscriber] Received ('demo/example/zenoh-pico-pub': '[{i:4d}] Pub from Pico!')" for i in range(3)],
    ]
    samples = got.wait(3, timeout=10, others=[pub])
    assert [x["payload"] for x in samples] == [f"[{i:4d}] Pub from Pico!".encode() for i in range(3)]
    assert len(got.snapshot()) == 3  # one copy on the group, whatever the number of members


# ---- queries -----------------------------------------------------------------------------------------


def test_examples_get_and_queryable(group, rust, children):
    """z_get reaches z_queryable over the group and ends with its final response; a Rust peer on the
    group (whose queryable the request reaches, but which never answers on a group) is not waited for."""
    ep = group["ep"]
    s = rust.peer(listen=[ep])
    asked = threading.Event()
    s.declare_queryable("demo/example/**", lambda q: asked.set())
    qbl = children.zm("z_queryable", "-m", "peer", "-l", ep)
    qbl.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    get = children.zm("z_get", "-m", "peer", "-e", ep)
    assert get.wait_exit(8, others=[qbl]) == 0  # far less than its timeout (10 s): Rust is not awaited
    assert get.output().splitlines() == [
        "Opening session...",
        "Sending Query 'demo/example/**'...",
        ">> Received PUT ('demo/example/**': 'Queryable from Pico!')",  # it answers on the query's key
        ">> Received query final notification",
    ]
    qbl.wait_line(r"^ >> \[Queryable handler\] Received Query 'demo/example/\*\*'$")
    assert asked.wait(10)  # the request went to the whole group


# ---- liveliness --------------------------------------------------------------------------------------


def test_liveliness_and_a_member_killed(group, rust, children):
    """A zmote token reaches zmote's and Rust's liveliness subscribers and gets; its holder killed
    (SIGKILL), both drop it when its lease ends, and the group goes on."""
    ep = group["ep"]
    s = rust.peer(listen=[ep])
    ev = Events()
    s.liveliness().declare_subscriber("group1/**", ev)
    watcher = children.zm("z_sub_liveliness", "-m", "peer", "-l", ep)
    watcher.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    holder = children.zm("z_liveliness", "-m", "peer", "-e", ep)
    holder.wait_line(r"^Press CTRL-C to undeclare")
    watcher.wait_line(r"^>> \[LivelinessSubscriber\] New alive token \('group1/zenoh-pico'\)$", others=[holder])
    ev.wait(PUT, "group1/zenoh-pico", others=[holder])

    get = children.zm("z_get_liveliness", "-m", "peer", "-e", ep)
    assert get.wait_exit(15) == 0
    assert get.output().splitlines() == [
        "Opening session...", "Sending liveliness query 'group1/**'...", ">> Alive token ('group1/zenoh-pico')"]
    late = children.zm("z_sub_liveliness", "-m", "peer", "-e", ep, "-h")  # history: told by the members
    late.wait_line(r"^>> \[LivelinessSubscriber\] New alive token \('group1/zenoh-pico'\)$", others=[holder])

    holder.signal(signal.SIGKILL)
    lease = 10  # zmote's lease (ZM_LEASE_MS): zmote drops it after that, Rust within two
    watcher.wait_line(r"^>> \[LivelinessSubscriber\] Dropped token \('group1/zenoh-pico'\)$", timeout=lease + 10)
    late.wait_line(r"^>> \[LivelinessSubscriber\] Dropped token \('group1/zenoh-pico'\)$", timeout=10)
    ev.wait(DELETE, "group1/zenoh-pico", timeout=2 * lease + 10)

    again = children.zm("z_liveliness", "-m", "peer", "-e", ep, "-k", "group1/again")
    watcher.wait_line(r"^>> \[LivelinessSubscriber\] New alive token \('group1/again'\)$", others=[again])
    ev.wait(PUT, "group1/again", others=[again])


# ---- a flood of JOINs ----------------------------------------------------------------------------------


def test_join_flood_is_bounded(group, children, monkeypatch):
    """Thousands of JOINs from fake members (fake zids, a source port each) fill zmote's member table
    and no more: its memory stays where it was, and the real members lose no sample meanwhile."""
    harness.small_asan_quarantine(monkeypatch)
    ep = group["ep"]
    sub = children.probe("sub", "-m", "peer", "-l", ep, "-k", "zm/mc/flood", "-n", "0", "-t", "120000")
    sub.wait_line("^ready$")
    pub = children.probe("pub", "-m", "peer", "-e", ep, "-k", "zm/mc/flood", "-n", "300", "-s", "200", "-i", "10",
                         "-S", "zm/mc/flood/go", "-W", "-t", "120000")
    pub.wait_line("^ready$")

    fakes = []

    def flood(count, start):
        """count JOINs, each from a socket of its own (a source port of its own), lease 1 s."""
        for i in range(start, start + count):
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as f:
                f.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
                f.bind(("127.0.0.1", 0))
                f.sendto(join(b"\xfa\x4e" + i.to_bytes(4, "little"), 1, i), (GROUP, group["port"]))
            fakes.append(i)
            if i % 50 == 49:
                time.sleep(0.005)  # a flood, not a burst the kernel's socket buffers would cut

    flood(200, 0)  # the table full once: its pages are in
    pid = sub.p.pid
    before = harness.rss_kb(pid)
    sender = threading.Thread(target=flood, args=(6000, 1000), daemon=True)
    sender.start()
    pub.send("go")  # the real publisher, all through the flood
    harness.probe_samples(sub, 300, timeout=60, others=[pub])
    sender.join(120)
    assert not sender.is_alive()
    after = harness.rss_kb(pid)
    samples = harness.probe_samples(sub, 300, others=[pub])
    assert [(x["n"], x["check"]) for x in samples] == [(str(i), "ok") for i in range(300)]
    assert after - before < 512, f"RSS grew from {before} kB to {after} kB with {len(fakes)} fake members"
    pub.wait_line("^sent$")
    pub.send("stop")
    assert pub.wait_exit(15) == 0


# ---- members that squat, or speak for another ----------------------------------------------------------


def frame(sn: int, key: str, payload: bytes) -> bytes:
    """A reliable FRAME at sn with one PUSH (full key, M=0) of a PUT."""
    k = key.encode()
    return b"\x25" + zint(sn) + b"\x3d\x00" + zint(len(k)) + k + b"\x01" + zint(len(payload)) + payload


def fake_member() -> socket.socket:
    f = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    f.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
    f.bind(("127.0.0.1", 0))
    return f


@pytest.mark.serial
def test_squatting_members_make_room(group, rust, children):
    """16 members that only JOIN (lease 60 s, one JOIN every 2 s, no data) fill the member table: a
    Rust peer that comes next takes the place of the idlest, and its samples arrive within 10 s."""
    ep = group["ep"]
    sub = children.probe("sub", "-m", "peer", "-l", ep, "-k", "zm/mc/squat", "-n", "0", "-t", "60000")
    sub.wait_line("^ready$")
    squatters = [fake_member() for _ in range(16)]
    stop = threading.Event()

    def squat():
        while not stop.is_set():
            for i, f in enumerate(squatters):
                f.sendto(join(b"\x5a\x17" + i.to_bytes(4, "little"), 60, 0), (GROUP, group["port"]))
            stop.wait(2.0)

    squatter = threading.Thread(target=squat, daemon=True)
    squatter.start()
    try:
        time.sleep(0.5)  # the squatters' first JOINs in: the table is full before the Rust peer comes
        start = time.monotonic()
        s = rust.peer(listen=[ep])
        pub = s.declare_publisher("zm/mc/squat")
        harness.wait_until(lambda: pub.put(b"x") is None and sub.matches(r"^sample sub=0 "), 10,
                           "a Rust member's sample at zmote, with 16 squatters", [sub])
        took = time.monotonic() - start
        # in, it stays: its samples keep coming while the squatters go on
        n = len(sub.matches(r"^sample sub=0 "))
        harness.wait_until(lambda: pub.put(b"y") is None and len(sub.matches(r"^sample sub=0 ")) >= n + 20, 10,
                           "the Rust member's samples still arriving", [sub])
        print(f"first sample of the Rust member after {took:.1f} s")
    finally:
        stop.set()
        squatter.join(10)
        for f in squatters:
            f.close()


def test_contradicting_join_and_forged_frame(group, children):
    """A JOIN with another zid from a member's address is ignored (the member's samples keep coming);
    a FRAME at an SN beyond the resolution is dropped; one forged from its address at an SN far
    ahead, inside the window, mutes it only until its next JOIN, which tells where its SNs are."""
    ep = group["ep"]
    sub = children.probe("sub", "-m", "peer", "-l", ep, "-k", "zm/mc/who", "-n", "0", "-t", "60000")
    sub.wait_line("^ready$")
    to = (GROUP, group["port"])
    zid = b"\x11\x22\x33\x44"
    with fake_member() as m:
        m.sendto(join(zid, 10, 100), to)
        sn = 100
        for _ in range(3):
            m.sendto(frame(sn, "zm/mc/who", b"a"), to)
            sn += 1
        sub.wait_lines(r"^sample sub=0 .*len=1 ", 3, timeout=10)

        m.sendto(join(b"\x99\x88\x77\x66", 10, 0), to)  # another zid, same address
        for _ in range(3):
            m.sendto(frame(sn, "zm/mc/who", b"bb"), to)
            sn += 1
        sub.wait_lines(r"^sample sub=0 .*len=2 ", 3, timeout=10)

        # SNs have 28 bits (resolution 0x0a): beyond them the batch is dropped, the member stays
        m.sendto(frame(sn + 2**31, "zm/mc/who", b"dddd"), to)
        m.sendto(frame(sn + 2**27 - 2, "zm/mc/who", b""), to)  # forged: far ahead, in the window
        m.sendto(join(zid, 10, sn), to)  # the member's own JOIN: its next SN is sn
        for _ in range(3):
            m.sendto(frame(sn, "zm/mc/who", b"ccc"), to)
            sn += 1
        sub.wait_lines(r"^sample sub=0 .*len=3 ", 3, timeout=10)
    assert not sub.matches(r"^sample sub=0 .*len=4 ")
