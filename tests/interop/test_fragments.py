"""Reassembly of fragmented messages under attack: peers (tests/interop/zm_attack.c, frag) and
multicast members (forged here) that each start a 15 MiB message on both channels and never
finish it hold no more than zmote's reassembly budgets (ZM_FRAG_PEER_BYTES_MAX,
ZM_FRAG_BYTES_MAX), and a Rust 1.10.2 peer's 1 MiB samples keep arriving through it all.

The multicast members send to a group: the test runs only inside scripts/netns.sh (ZM_NETNS=1),
as test_multicast.py does."""
import os
import socket
import threading
import time

import pytest
import zenoh

import harness

GROUP = "224.0.0.124"
MIB = 1 << 20
UNFINISHED = 15 * MIB
MEMBERS = 16
ATTACK_PEERS = 7  # with the Rust peer, ZM_PEERS_MAX
# Against the 690 MiB the attack would make an unbounded node hold: the reassembly bound,
# ZM_FRAG_BYTES_MAX (24 MiB); up to half as much again while buffers that grow are copied (each
# reader's old buffer is freed only after); ASan's shadow of it all (an eighth); a Rust sample.
RSS_GROWTH_MAX_MIB = 48


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


def fragment(reliable: bool, sn: int, first: bool, payload: bytes) -> bytes:
    """A FRAGMENT with more to come (M), the First marker on the first one."""
    header = 0x06 | 0x40 | (0x20 if reliable else 0) | (0x80 if first else 0)
    return bytes([header]) + zint(sn) + (b"\x02" if first else b"") + payload


def forge_members(port: int, sent: threading.Event, stop: threading.Event):
    """MEMBERS members, a socket each, lease 60 s: a JOIN, then UNFINISHED bytes of a message on
    each channel in 8 KiB datagrams, paced so that loopback drops none; a JOIN every 2 s after."""
    socks = []
    for i in range(MEMBERS):
        f = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        f.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        f.bind(("127.0.0.1", 0))
        socks.append(f)
    part = bytes(8000)
    dest = (GROUP, port)
    try:
        for i, f in enumerate(socks):
            f.sendto(join(b"\xfb\x4e" + i.to_bytes(4, "little"), 60, 1), dest)
        time.sleep(0.2)
        for i, f in enumerate(socks):
            for reliable in (True, False):
                for k in range(UNFINISHED // len(part)):
                    f.sendto(fragment(reliable, 1 + k, k == 0, part), dest)
                    if k % 16 == 15:
                        time.sleep(0.001)
                    if stop.is_set():
                        return
        sent.set()
        while not stop.wait(2.0):
            for i, f in enumerate(socks):
                f.sendto(join(b"\xfb\x4e" + i.to_bytes(4, "little"), 60, 1), dest)
    finally:
        for f in socks:
            f.close()


@pytest.mark.serial
def test_unfinished_fragments_are_bounded(rust, children, monkeypatch):
    """7 peers and 16 multicast members each hold an unfinished 15 MiB message on both channels:
    zmote's RSS grows by at most RSS_GROWTH_MAX_MIB, and a Rust peer's 1 MiB samples keep arriving."""
    harness.small_asan_quarantine(monkeypatch)
    if os.environ.get("ZM_NETNS") != "1":
        pytest.fail("the multicast members send to a group: run through scripts/netns.sh (scripts/interop.sh)")
    port = harness.free_port()
    gport = harness.free_port()
    sub = children.probe("sub", "-m", "peer", "-l", harness.endpoint(port), "-e",
                         f"udp/{GROUP}:{gport}#iface=lo", "-k", "zm/frag/sync", "-k", "zm/frag/data",
                         "-n", "0", "-t", "240000")
    sub.wait_line("^ready$")
    harness.wait_listening(port, 20, sub)
    s = rust.peer(connect=[harness.endpoint(port)])
    sync = s.declare_publisher("zm/frag/sync")
    harness.wait_until(lambda: sync.put(b"") is None and sub.matches(r"^sample sub=0 "), 20,
                       "a greeting of the Rust peer heard by zmote", [sub])
    data = s.declare_publisher("zm/frag/data")
    payload = bytes(range(256)) * (MIB // 256)
    sent = 0

    def put_and_wait(count, timeout):
        nonlocal sent
        want = len(sub.matches(r"^sample sub=1 ")) + count
        deadline = time.monotonic() + timeout
        while len(sub.matches(r"^sample sub=1 ")) < want and time.monotonic() < deadline:
            data.put(payload)
            sent += 1
            time.sleep(0.2)
        return len(sub.matches(r"^sample sub=1 ")) >= want

    assert put_and_wait(3, 30), f"no 1 MiB sample before the attack\n{sub.describe()}"
    pid = sub.p.pid
    before = harness.rss_kb(pid)
    peak = before

    attack = children.zm("zm_attack", "-e", harness.endpoint(port), "-t", "200000", "-L", "60000",
                         "-K", str(UNFINISHED), "frag", str(ATTACK_PEERS))
    sent_all, stop = threading.Event(), threading.Event()
    members = threading.Thread(target=forge_members, args=(gport, sent_all, stop), daemon=True)
    members.start()
    try:
        attack.wait_line("^ready$", timeout=120, others=[sub])
        assert sent_all.wait(120), "the members' fragments not sent in 120 s"
        assert attack.matches(r"^unfinished 6 reliable=0 prio=5 rc=0 "), attack.describe()
        # the attack in place: the Rust peer's samples keep arriving, RSS watched meanwhile
        arrived = len(sub.matches(r"^sample sub=1 "))
        for _ in range(10):
            assert put_and_wait(1, 20), f"a 1 MiB sample lost under attack\n{sub.describe()}"
            peak = max(peak, harness.rss_kb(pid))
        arrived = len(sub.matches(r"^sample sub=1 ")) - arrived
        after = harness.rss_kb(pid)
    finally:
        stop.set()
        attack.send("stop")
        members.join(10)
    grown = (max(peak, after) - before) / 1024
    print(f"reassembly under attack: RSS {before} kB before, peak {peak} kB, {after} kB after: "
          f"grew {grown:.1f} MiB; {arrived} Rust 1 MiB samples arrived")
    assert arrived >= 10
    assert grown <= RSS_GROWTH_MAX_MIB, f"RSS grew by {grown:.1f} MiB ({before} kB to {peak} kB)"
    assert sub.matches(r"dropped"), sub.describe()  # the budget's log line
    assert attack.wait_exit(30) == 0


def test_priorities_interleaved(rust, children):
    """A Rust peer sends large samples at two priorities at once, from two threads: their fragments
    interleave on the reliable channel (Rust fragments per priority), and every sample arrives."""
    port = harness.free_port()
    sub = children.probe("sub", "-m", "peer", "-l", harness.endpoint(port), "-k", "zm/frag/sync",
                         "-k", "zm/frag/high", "-k", "zm/frag/low", "-n", "0", "-t", "120000")
    sub.wait_line("^ready$")
    harness.wait_listening(port, 20, sub)
    s = rust.peer(connect=[harness.endpoint(port)])
    sync = s.declare_publisher("zm/frag/sync")
    harness.wait_until(lambda: sync.put(b"") is None and sub.matches(r"^sample sub=0 "), 20,
                       "a greeting of the Rust peer heard by zmote", [sub])
    count, size = 20, 600 * 1024
    pubs = {"high": s.declare_publisher("zm/frag/high", priority=zenoh.Priority.DATA_HIGH,
                                        congestion_control=zenoh.CongestionControl.BLOCK),
            "low": s.declare_publisher("zm/frag/low", priority=zenoh.Priority.DATA_LOW,
                                       congestion_control=zenoh.CongestionControl.BLOCK)}

    def send(name):
        for seq in range(count):
            pubs[name].put(harness.pattern(seq, size))

    threads = [threading.Thread(target=send, args=(name,)) for name in pubs]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    high = harness.probe_samples(sub, count, sub=1, timeout=60, others=[sub])
    low = harness.probe_samples(sub, count, sub=2, timeout=60, others=[sub])
    for got in (high, low):
        assert [(x["n"], x["len"], x["check"]) for x in got] == [(str(i), str(size), "ok") for i in range(count)]
    assert {x["prio"] for x in high} == {"4"} and {x["prio"] for x in low} == {"6"}
