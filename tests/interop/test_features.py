"""What a sample carries besides its payload, and how subscribers select and stop, between zmote
(zm_probe) and Rust Zenoh 1.10.2 through the Rust router: attachments, encodings, timestamps,
priorities, express and congestion control, deletes, wildcard subscribers, two subscribers in
one session, and undeclaring."""
import pytest

import harness
from harness import PRIORITIES

zenoh = harness.zenoh


@pytest.fixture
def routed(router, rust):
    """A Rust client session on the router, and the probe arguments that reach the same router."""
    return rust.client(router.endpoint), ["-m", "client", "-e", router.endpoint]


def zmote_publishes(children, session, at, key, extra, count=1, kind_key=None):
    """Runs zm_probe pub with extra arguments once the Rust subscriber on key (or kind_key) is in
    place; returns the samples the Rust side received and the probe."""
    got = harness.Received()
    session.declare_subscriber(kind_key or key, got)
    synced = harness.Received()
    session.declare_subscriber("zm/feat/sync", synced)
    p = children.probe("pub", "-k", key, "-n", str(count), "-S", "zm/feat/sync", "-W", *extra, *at)
    synced.wait(1, timeout=30, others=[p])
    p.send("go")
    samples = got.wait(count, timeout=20, others=[p])
    p.wait_lines(r"^sent$", 1, timeout=10)
    p.send("stop")
    assert p.wait_exit(15) == 0
    return samples, p


def zmote_subscribes(children, session, at, keys, count, extra=()):
    """Starts zm_probe sub on keys, waits until it is ready, returns it."""
    args = ["sub", "-n", str(count)]
    for k in keys:
        args += ["-k", k]
    p = children.probe(*args, *extra, *at)
    p.wait_line(r"^ready")
    return p


# ---- attachments --------------------------------------------------------------------------------


def test_attachment_zmote_to_rust(routed, children):
    s, at = routed
    samples, _ = zmote_publishes(children, s, at, "zm/feat/att", ["-a", "hello-attachment"], count=2)
    assert [x["attachment"] for x in samples] == [b"hello-attachment"] * 2
    assert [x["payload"] for x in samples] == [harness.pattern(0, 8), harness.pattern(1, 8)]


def test_attachment_session_put_zmote_to_rust(routed, children):
    s, at = routed
    samples, _ = zmote_publishes(children, s, at, "zm/feat/att", ["-P", "-a", "via-z_put"])
    assert samples[0]["attachment"] == b"via-z_put"


def test_no_attachment_zmote_to_rust(routed, children):
    s, at = routed
    samples, _ = zmote_publishes(children, s, at, "zm/feat/att", [])
    assert samples[0]["attachment"] is None


def test_attachment_rust_to_zmote(routed, children):
    s, at = routed
    p = zmote_subscribes(children, s, at, ["zm/feat/att"], 2)
    pub = s.declare_publisher("zm/feat/att")
    harness.wait_matching(pub, others=[p])
    pub.put(b"x", attachment=bytes([0, 1, 0xFE, 0xFF]))
    pub.put(b"y")
    got = harness.probe_samples(p, 2)
    assert got[0]["att"] == "0001feff"
    assert got[1]["att"] == "-"
    assert p.wait_exit(15) == 0


# ---- encodings ----------------------------------------------------------------------------------

ENCODINGS = ["text/plain", "text/plain;charset=utf-8", "application/json", "application/cbor", "image/png",
             "zenoh/bytes;custom"]


@pytest.mark.parametrize("enc", ENCODINGS)
def test_encoding_zmote_to_rust(enc, routed, children):
    s, at = routed
    samples, _ = zmote_publishes(children, s, at, "zm/feat/enc", ["-c", enc])
    assert samples[0]["encoding"] == str(zenoh.Encoding(enc))


def test_unknown_encoding_zmote_to_rust(routed, children):
    """A name no table knows is zenoh/bytes with the name as schema, as zenoh-pico makes it: Rust
    receives it as zmote's z_encoding_to_string prints it."""
    s, at = routed
    samples, _ = zmote_publishes(children, s, at, "zm/feat/enc", ["-c", "my_encoding"])
    assert samples[0]["encoding"] == "zenoh/bytes;my_encoding"


def test_default_encoding_zmote_to_rust(routed, children):
    s, at = routed
    samples, _ = zmote_publishes(children, s, at, "zm/feat/enc", [])
    assert samples[0]["encoding"] == str(zenoh.Encoding.ZENOH_BYTES)


@pytest.mark.parametrize("enc", ["text/plain", "text/plain;charset=utf-8", "application/json", "video/h264;x",
                                 "my/own-type"])
def test_encoding_rust_to_zmote(enc, routed, children):
    s, at = routed
    p = zmote_subscribes(children, s, at, ["zm/feat/enc"], 1)
    pub = s.declare_publisher("zm/feat/enc")
    harness.wait_matching(pub, others=[p])
    pub.put(b"x", encoding=enc)
    got = harness.probe_samples(p, 1)
    assert got[0]["enc"] == enc
    assert p.wait_exit(15) == 0


# ---- timestamps ---------------------------------------------------------------------------------


def test_timestamp_zmote_to_rust(routed, children):
    s, at = routed
    samples, p = zmote_publishes(children, s, at, "zm/feat/ts", ["-T"], count=2)
    zid = p.wait_line(r"^zid (\w+)").group(1)
    stamps = p.wait_lines(r"^ts (\d+) (\d+) (\w+)$", 2)
    for x, m in zip(samples, stamps):
        assert m.group(3) == zid
        time_part, id_part = x["timestamp"].split("/")
        assert int(time_part) == int(m.group(2))
        assert id_part.lstrip("0") == zid.lstrip("0")
    assert int(stamps[1].group(2)) >= int(stamps[0].group(2))


def test_timestamp_rust_to_zmote(router, routed, children):
    s, at = routed
    p = zmote_subscribes(children, s, at, ["zm/feat/ts"], 2)
    pub = s.declare_publisher("zm/feat/ts")
    harness.wait_matching(pub, others=[p])
    ts = s.new_timestamp()
    pub.put(b"stamped", timestamp=ts)
    pub.put(b"unstamped")
    got = harness.probe_samples(p, 2)
    time_part, id_part = str(ts).split("/")
    z_time, z_id = got[0]["ts"].split("/")
    assert int(z_time) == int(time_part)
    assert z_id.lstrip("0") == id_part.lstrip("0")
    # The Rust router stamps, with its own id, what reaches it unstamped.
    assert got[1]["ts"].split("/")[1].lstrip("0") == router.zid.lstrip("0")
    assert p.wait_exit(15) == 0


# ---- priority, express, congestion control ------------------------------------------------------


@pytest.mark.parametrize("prio", [1, 2, 4, 5, 7])
@pytest.mark.parametrize("how", ["publisher", "session"])
def test_qos_zmote_to_rust(prio, how, routed, children):
    s, at = routed
    extra = ["-p", str(prio), "-x", "-b"] + (["-P"] if how == "session" else [])
    samples, _ = zmote_publishes(children, s, at, "zm/feat/qos", extra)
    assert samples[0]["priority"] == PRIORITIES[prio]
    assert samples[0]["express"] is True
    assert samples[0]["congestion_control"] == zenoh.CongestionControl.BLOCK


def test_default_qos_zmote_to_rust(routed, children):
    s, at = routed
    samples, _ = zmote_publishes(children, s, at, "zm/feat/qos", [])
    assert samples[0]["priority"] == zenoh.Priority.DATA
    assert samples[0]["express"] is False
    assert samples[0]["congestion_control"] == zenoh.CongestionControl.DROP


@pytest.mark.parametrize("prio", [1, 3, 5, 6, 7])
def test_qos_rust_to_zmote(prio, routed, children):
    s, at = routed
    p = zmote_subscribes(children, s, at, ["zm/feat/qos"], 2)
    pub = s.declare_publisher("zm/feat/qos", priority=PRIORITIES[prio], express=True,
                              congestion_control=zenoh.CongestionControl.BLOCK)
    harness.wait_matching(pub, others=[p])
    pub.put(b"q")
    s.put("zm/feat/qos", b"plain")
    # Priorities may reorder the two on the way: tell them apart by payload.
    got = {bytes.fromhex(x["head"]): x for x in harness.probe_samples(p, 2)}
    assert (got[b"q"]["prio"], got[b"q"]["express"], got[b"q"]["cc"]) == (str(prio), "1", "block")
    assert (got[b"plain"]["prio"], got[b"plain"]["express"], got[b"plain"]["cc"]) == ("5", "0", "drop")
    assert p.wait_exit(15) == 0


# ---- deletes ------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["publisher", "session"])
def test_delete_zmote_to_rust(how, routed, children):
    s, at = routed
    extra = ["-d"] + (["-P"] if how == "session" else [])
    samples, _ = zmote_publishes(children, s, at, "zm/feat/del", extra, count=2)
    assert [x["kind"] for x in samples] == [zenoh.SampleKind.DELETE] * 2
    assert [x["payload"] for x in samples] == [b"", b""]
    assert [x["key"] for x in samples] == ["zm/feat/del"] * 2


def test_delete_with_timestamp_zmote_to_rust(routed, children):
    s, at = routed
    samples, p = zmote_publishes(children, s, at, "zm/feat/del", ["-d", "-T"])
    stamp = p.wait_line(r"^ts 0 (\d+) (\w+)$")
    assert samples[0]["kind"] == zenoh.SampleKind.DELETE
    assert int(samples[0]["timestamp"].split("/")[0]) == int(stamp.group(1))


def test_delete_rust_to_zmote(routed, children):
    s, at = routed
    p = zmote_subscribes(children, s, at, ["zm/feat/**"], 3)
    pub = s.declare_publisher("zm/feat/del")
    harness.wait_matching(pub, others=[p])
    pub.put(b"value")
    pub.delete()
    s.delete("zm/feat/other")
    got = harness.probe_samples(p, 3)
    assert [(x["key"], x["kind"], x["len"]) for x in got] == [
        ("zm/feat/del", "put", "5"), ("zm/feat/del", "delete", "0"), ("zm/feat/other", "delete", "0")]
    assert p.wait_exit(15) == 0


# ---- wildcards, several subscribers, undeclare --------------------------------------------------


def test_wildcard_subscribers_in_zmote(routed, children):
    s, at = routed
    p = zmote_subscribes(children, s, at, ["zm/wild/*/x", "zm/wild/**", "zm/wild/$*b/x"], 0)
    first = s.declare_publisher("zm/wild/a/x")
    harness.wait_matching(first, others=[p])
    first.put(b"1")
    for key in ["zm/wild/b/y", "zm/wild/c/d/x", "zm/other/a/x", "zm/wild", "zm/wild/ab/x", "zm/wild/a/x/y"]:
        s.put(key, b"2")
    # The last key matches every subscriber; once all have it, nothing before it is in flight.
    s.put("zm/wild/endb/x", b"3")
    for sub, n in ((0, 3), (1, 7), (2, 2)):
        harness.probe_samples(p, n, sub=sub)
    keys = {sub: [x["key"] for x in harness.probe_samples(p, 0, sub=sub)] for sub in range(3)}
    assert keys[0] == ["zm/wild/a/x", "zm/wild/ab/x", "zm/wild/endb/x"]
    assert keys[1] == ["zm/wild/a/x", "zm/wild/b/y", "zm/wild/c/d/x", "zm/wild", "zm/wild/ab/x",
                       "zm/wild/a/x/y", "zm/wild/endb/x"]
    assert keys[2] == ["zm/wild/ab/x", "zm/wild/endb/x"]
    p.send("stop")
    assert p.wait_exit(15) == 0


def test_wildcard_rust_subscriber_zmote_publisher(routed, children):
    s, at = routed
    got = harness.Received()
    s.declare_subscriber("zm/wildpub/**", got)
    samples, _ = zmote_publishes(children, s, at, "zm/wildpub/a/b/c", [], count=2, kind_key="zm/wildpub/*/b/*")
    assert [x["key"] for x in samples] == ["zm/wildpub/a/b/c"] * 2
    assert [x["key"] for x in got.wait(2)] == ["zm/wildpub/a/b/c"] * 2


def test_two_subscribers_in_one_zmote_session(routed, children):
    s, at = routed
    p = zmote_subscribes(children, s, at, ["zm/two/x", "zm/two/*"], 6)
    pub = s.declare_publisher("zm/two/x")
    harness.wait_matching(pub, others=[p])
    for i in range(3):
        pub.put(f"v{i}")
    for sub in (0, 1):
        got = harness.probe_samples(p, 3, sub=sub)
        assert [(x["n"], x["head"]) for x in got] == [(str(i), f"v{i}".encode().hex()) for i in range(3)]
    assert p.wait_exit(15) == 0
    assert len(harness.probe_samples(p, 6)) == 6


def test_undeclare_stops_delivery(routed, children):
    s, at = routed
    p = zmote_subscribes(children, s, at, ["zm/und/x", "zm/und/x"], 0, ["-u", "2"])
    pub = s.declare_publisher("zm/und/x")
    harness.wait_matching(pub, others=[p])
    pub.put(b"a")
    pub.put(b"b")
    p.wait_line(r"^undeclared 0$")
    for v in (b"c", b"d", b"e"):
        pub.put(v)
    # Subscriber 1 stays: its fifth sample shows the three later ones have all arrived.
    harness.probe_samples(p, 5, sub=1)
    assert [x["head"] for x in harness.probe_samples(p, 0, sub=0)] == [b"a".hex(), b"b".hex()]
    p.send("stop")
    assert p.wait_exit(15) == 0


def test_undeclare_reaches_the_rust_side(routed, children):
    s, at = routed
    p = zmote_subscribes(children, s, at, ["zm/und/y"], 0, ["-u", "1"])
    pub = s.declare_publisher("zm/und/y")
    harness.wait_matching(pub, others=[p])
    pub.put(b"only")
    p.wait_line(r"^undeclared 0$")
    harness.wait_until(lambda: not harness.matching(pub), 20, "unmatched", others=[p])
    p.send("stop")
    assert p.wait_exit(15) == 0


def test_zmote_publisher_matches_only_its_key(routed, children):
    """Samples go where subscribers are: a Rust subscriber on another key receives nothing, one on
    the key receives everything (the sync sample proves the path before data is sent)."""
    s, at = routed
    other = harness.Received()
    s.declare_subscriber("zm/feat/elsewhere/**", other)
    samples, _ = zmote_publishes(children, s, at, "zm/feat/here", [], count=3)
    assert len(samples) == 3
    assert other.snapshot() == []
