"""zmote's advanced publisher (zmote/api/advanced.h) against Rust Zenoh 1.10.2's advanced subscriber
(zenoh.ext), through a Rust router: a subscriber that joins late gets the cached samples, in
order, then the live ones; one that was there first and detects the publisher through its
liveliness token gets each sample once; a deletion is cached as one; heartbeats carry the last
sequence number. zmote's side is tests/interop/zm_adv (stdin commands); every wait is for an
event, bounded."""
import re
import threading

import pytest
import zenoh
import zenoh.ext

import harness

PUT = zenoh.SampleKind.PUT
DELETE = zenoh.SampleKind.DELETE


class Seen:
    """A Rust advanced subscriber's callback: (kind, payload) of each sample, in order."""

    def __init__(self):
        self.items = []
        self.cond = threading.Condition()

    def __call__(self, sample):
        payload = sample.payload.to_bytes().decode() if sample.kind == PUT else ""
        with self.cond:
            self.items.append((sample.kind, payload))
            self.cond.notify_all()

    def snapshot(self):
        with self.cond:
            return list(self.items)

    def wait_count(self, n, others=(), timeout=20.0):
        harness.wait_until(lambda: len(self.snapshot()) >= n, timeout,
                           f"{n} samples at the advanced subscriber (got {self.snapshot()})", others)


def publisher(children, router, key, *args):
    p = children.zm("zm_adv", "-m", "client", "-e", router.endpoint, "-k", key, *args)
    line = p.wait_line(r"^(ready|no advanced publishers in this build)$")
    if line.group(1) != "ready":
        pytest.skip("this build has no advanced publishers")
    return p


def put(p, n):
    p.send(f"put {n}")
    p.wait_line(rf"^put {n}$")


def subscriber(session, key, seen, late=True, heartbeat=False):
    history = zenoh.ext.HistoryConfig(detect_late_publishers=late, max_samples=100)
    recovery = zenoh.ext.RecoveryConfig(heartbeat=True) if heartbeat else None
    return zenoh.ext.declare_advanced_subscriber(session, key, seen, history=history, recovery=recovery)


def expected(key, first, last):
    return [(PUT, f"{key} #{i}") for i in range(first, last)]


def test_late_subscriber_gets_the_cache_then_live_samples(router, rust, children):
    key = "zm/adv/late"
    p = publisher(children, router, key, "-c", "10", "-s", "-d")
    put(p, 15)  # the cache keeps #5..#14
    s = rust.client(router.endpoint)
    seen = Seen()
    sub = subscriber(s, key, seen)
    seen.wait_count(10, others=[p])
    put(p, 3)
    seen.wait_count(13, others=[p])
    assert seen.snapshot() == expected(key, 5, 18)
    sub.undeclare()
    p.close_stdin()
    assert p.wait_exit() == 0


def test_subscriber_there_first_gets_each_sample_once(router, rust, children):
    key = "zm/adv/first"
    s = rust.client(router.endpoint)
    seen = Seen()
    sub = subscriber(s, key, seen)
    p = publisher(children, router, key, "-c", "10", "-s", "-d")
    # the subscriber finds the publisher through its token and asks its cache: wait for that
    # query's answer (empty) to be possible, then publish; what arrives live and from the cache
    # (the history query may meet samples already received) counts once
    harness.wait_until(lambda: any(str(r.ok.key_expr).startswith(key + "/@adv/pub/")
                                   for r in s.liveliness().get(key + "/@adv/pub/**", timeout=5) if r.ok is not None),
                       20, "the publisher's token at the router", others=[p])
    put(p, 5)
    seen.wait_count(5, others=[p])
    put(p, 1)
    seen.wait_count(6, others=[p])
    assert seen.snapshot() == expected(key, 0, 6)
    sub.undeclare()


def test_a_deletion_is_cached_and_replayed(router, rust, children):
    key = "zm/adv/del"
    p = publisher(children, router, key, "-c", "4", "-s", "-d")
    put(p, 2)
    p.send("del")
    p.wait_line("^deleted$")
    s = rust.client(router.endpoint)
    seen = Seen()
    sub = subscriber(s, key, seen)
    seen.wait_count(3, others=[p])
    assert seen.snapshot() == expected(key, 0, 2) + [(DELETE, "")]
    sub.undeclare()


def test_heartbeats_carry_the_last_sequence_number(router, rust, children):
    key = "zm/adv/beat"
    p = publisher(children, router, key, "-c", "4", "-b", "200", "-d")
    s = rust.client(router.endpoint)
    beats = []
    cond = threading.Condition()

    def on_beat(sample):
        with cond:
            beats.append((str(sample.key_expr), zenoh.ext.z_deserialize(zenoh.ext.UInt32, sample.payload)))
            cond.notify_all()

    s.declare_subscriber(key + "/@adv/pub/**", on_beat)
    put(p, 3)
    harness.wait_until(lambda: any(sn == 2 for _, sn in list(beats)), 20, f"a heartbeat of sn 2 (got {beats})",
                       others=[p])
    zid, eid, last = beats[-1][0][len(key + "/@adv/pub/"):].split("/")
    # the zid as Rust writes it in a key: lowercase hex without leading zeros
    assert beats[-1][0].startswith(key + "/@adv/pub/") and re.fullmatch(r"[1-9a-f][0-9a-f]{0,31}", zid) \
        and eid.isdigit() and last == "_", beats
