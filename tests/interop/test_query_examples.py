"""zmote's examples of queries against Rust Zenoh 1.10.2 and each other: z_get_channel,
z_queryable_channel, z_querier, z_get_attachment and z_queryable_attachment, through the Rust
router (client mode) and directly between peers. Their command lines and printed lines are
zenoh-pico 1.9.0's; what they send (payloads, parameters, attachments, encodings) must reach the
other side intact."""
import threading

from zenoh.ext import z_deserialize, z_serialize

import harness
from harness import endpoint, free_port

PAIRS = list[tuple[str, str]]
QBL_KEY = "demo/example/zenoh-pico-queryable"
QBL_VALUE = "Queryable from Pico!"


class Queries:
    """A Rust queryable's callback: records each query (key, parameters, payload, encoding and
    attachment pairs) and replies on reply_key with value, and with the given attachment and
    encoding when set; keep=True holds the query instead (no reply, no final response)."""

    def __init__(self, reply_key=None, value="from rust", attachment=None, encoding=None, keep=False):
        self.reply_key = reply_key
        self.value = value
        self.attachment = attachment
        self.encoding = encoding
        self.keep = keep
        self.kept = []
        self.seen = []
        self.lock = threading.Lock()

    def __call__(self, query):
        payload = None if query.payload is None else query.payload.to_bytes()
        att = None if query.attachment is None else z_deserialize(PAIRS, query.attachment)
        enc = None if query.encoding is None else str(query.encoding)
        with self.lock:
            self.seen.append((str(query.key_expr), str(query.parameters), payload, enc, att))
        if self.keep:
            self.kept.append(query)
            return
        kw = {}
        if self.attachment is not None:
            kw["attachment"] = z_serialize(self.attachment)
        if self.encoding is not None:
            kw["encoding"] = self.encoding
        query.reply(self.reply_key or str(query.key_expr), self.value, **kw)

    def count(self):
        with self.lock:
            return len(self.seen)


def queryable_known(session, key, others=()):
    """Waits until the Rust session knows of a queryable for key (its querier's matching status)."""
    querier = session.declare_querier(key)
    harness.wait_until(lambda: querier.matching_status.matching, 20, f"a queryable known for {key}", others)
    querier.undeclare()


def rust_get(session, selector, **kw):
    """A Rust get: its replies as (key, payload, encoding, attachment pairs)."""
    out = []
    for r in session.get(selector, **kw):
        assert r.ok is not None, f"an error reply: {r.err.payload.to_bytes()!r}"
        att = None if r.ok.attachment is None else z_deserialize(PAIRS, r.ok.attachment)
        out.append((str(r.ok.key_expr), r.ok.payload.to_bytes(), str(r.ok.encoding), att))
    return out


def received(key, value):
    return f">> Received ('{key}': '{value}')"


def query_lines(key, params="", value=None, indent="     "):
    lines = [f" >> [Queryable handler] Received Query '{key}{params}'"]
    if value is not None:
        lines.append(f"{indent}with value '{value}'")
    return lines


# ---- z_get_channel --------------------------------------------------------------------------------


def test_z_get_channel_to_rust_queryable_via_router(router, rust, children):
    s = rust.client(router.endpoint)
    q = Queries("demo/example/a")
    s.declare_queryable("demo/example/**", q)
    harness.router_took(s)
    get = children.zm("z_get_channel", "-m", "client", "-e", router.endpoint, "-v", "ask")
    assert get.wait_exit(20) == 0
    assert get.output().splitlines() == [
        "Opening session...",
        "Sending Query 'demo/example/**'...",
        received("demo/example/a", "from rust"),
    ]
    assert q.seen == [("demo/example/**", "", b"ask", "zenoh/bytes", None)]


def test_z_get_channel_with_parameters_peer_to_rust_peer(rust, children):
    port = free_port()
    s = rust.peer(listen=[endpoint(port)])
    q = Queries(value="peer answer")
    s.declare_queryable("zm/gc/**", q)
    get = children.zm("z_get_channel", "-m", "peer", "-e", endpoint(port), "-k", "zm/gc/a?x=1;y=2")
    assert get.wait_exit(20) == 0
    assert get.output().splitlines()[1:] == [
        "Sending Query 'zm/gc/a?x=1;y=2'...",
        received("zm/gc/a", "peer answer"),
    ]
    assert [(k, p) for k, p, *_ in q.seen] == [("zm/gc/a", "x=1;y=2")]


def test_z_get_channel_ends_with_no_reply(router, children):
    get = children.zm("z_get_channel", "-m", "client", "-e", router.endpoint, "-k", "zm/nobody/**")
    assert get.wait_exit(20) == 0
    assert get.output().splitlines() == ["Opening session...", "Sending Query 'zm/nobody/**'..."]


# ---- z_queryable_channel --------------------------------------------------------------------------


def test_rust_gets_to_z_queryable_channel_via_router(router, rust, children):
    qbl = children.zm("z_queryable_channel", "-m", "client", "-e", router.endpoint, "-k", "zm/qc/**", "-v", "chan")
    qbl.wait_line(r"^Creating Queryable on 'zm/qc/\*\*'\.\.\.$")
    s = rust.client(router.endpoint)
    queryable_known(s, "zm/qc/a", [qbl])
    assert rust_get(s, "zm/qc/a?x=1", payload=b"hello", timeout=10) == [("zm/qc/a", b"chan", "zenoh/bytes", None)]
    assert rust_get(s, "zm/qc/b", timeout=10) == [("zm/qc/b", b"chan", "zenoh/bytes", None)]
    qbl.wait_lines(r"^ >> \[Queryable handler\]", 2)
    assert qbl.output().splitlines() == [
        "Opening session...",
        "Creating Queryable on 'zm/qc/**'...",
        *query_lines("zm/qc/a", "x=1", "hello"),
        *query_lines("zm/qc/b"),
    ]


def test_rust_peer_get_to_listening_z_queryable_channel(rust, children):
    ep = endpoint(free_port())
    qbl = children.zm("z_queryable_channel", "-m", "peer", "-l", ep)
    qbl.wait_line(r"^Creating Queryable on ")
    s = rust.peer(connect=[ep])
    queryable_known(s, QBL_KEY, [qbl])
    assert rust_get(s, QBL_KEY, timeout=10) == [(QBL_KEY, QBL_VALUE.encode(), "zenoh/bytes", None)]
    qbl.wait_line(r"^ >> \[Queryable handler\] Received Query 'demo/example/zenoh-pico-queryable'$")


# ---- z_querier ------------------------------------------------------------------------------------


def querying(selector, value, n):
    return [f"Querying '{selector}' with payload '[{i:4d}] {value}'..." for i in range(n)]


def test_z_querier_to_rust_queryable_via_router(router, rust, children):
    s = rust.client(router.endpoint)
    q = Queries("zm/qr/a", "r")
    s.declare_queryable("zm/qr/**", q)
    harness.router_took(s)
    qr = children.zm("z_querier", "-m", "client", "-e", router.endpoint, "-s", "zm/qr/**?p=1", "-v", "hi", "-n", "2")
    assert qr.wait_exit(30) == 0
    ask = querying("zm/qr/**?p=1", "hi", 2)
    assert qr.output().splitlines() == [
        "Opening session...",
        "Declaring Querier on 'zm/qr/**?p=1'...",
        "Press CTRL-C to quit...",
        ask[0],
        received("zm/qr/a", "r"),
        ask[1],
        received("zm/qr/a", "r"),
    ]
    assert [(k, p, v) for k, p, v, *_ in q.seen] == [
        ("zm/qr/**", "p=1", b"[   0] hi"), ("zm/qr/**", "p=1", b"[   1] hi")]


def test_z_querier_timeout_ends_each_query(rust, children):
    port = free_port()
    s = rust.peer(listen=[endpoint(port)])
    q = Queries(keep=True)  # holds every query: no reply, no final response
    s.declare_queryable("zm/qt/**", q)
    qr = children.zm("z_querier", "-m", "peer", "-e", endpoint(port), "-s", "zm/qt/x", "-t", "500", "-n", "2")
    assert qr.wait_exit(30) == 0
    # The Rust peer times the query out too, and then sends an error reply on the empty key
    # expression: whichever side is first, each query ends, with or without that error.
    lines = qr.output().splitlines()[2:]
    assert [x for x in lines if x != ">> Received an error"] == ["Press CTRL-C to quit...", *querying("zm/qt/x", "", 2)]
    assert lines.count(">> Received an error") <= 2
    assert q.count() == 2


def test_z_querier_without_value_and_no_parameters(router, rust, children):
    s = rust.client(router.endpoint)
    q = Queries()
    s.declare_queryable("zm/qn/**", q)
    harness.router_took(s)
    qr = children.zm("z_querier", "-m", "client", "-e", router.endpoint, "-s", "zm/qn/a", "-n", "1")
    assert qr.wait_exit(30) == 0
    assert qr.output().splitlines()[-2:] == ["Querying 'zm/qn/a' with payload '[   0] '...", received("zm/qn/a", "from rust")]
    assert [(k, p, v) for k, p, v, *_ in q.seen] == [("zm/qn/a", "", None)]


def test_z_querier_matching_listener_via_router(router, rust, children):
    s = rust.client(router.endpoint)
    qbl = s.declare_queryable("zm/qm/**", Queries("zm/qm/a", "m"))
    qr = children.zm("z_querier", "-m", "client", "-e", router.endpoint, "-s", "zm/qm/**", "-a", "-n", "60")
    qr.wait_line(r"^Querier has matching queryable\.$")
    qr.wait_line(r"^>> Received \('zm/qm/a': 'm'\)$")
    qbl.undeclare()
    qr.wait_line(r"^Querier has NO MORE matching queryables\.$")
    lines = qr.output().splitlines()
    assert lines[:2] == ["Opening session...", "Declaring Querier on 'zm/qm/**'..."]
    assert "Press CTRL-C to quit..." in lines  # the status may be told before or after it


def test_z_querier_to_z_queryable_channel_peer_to_peer(children):
    ep = endpoint(free_port())
    qbl = children.zm("z_queryable_channel", "-m", "peer", "-l", ep, "-k", "zm/pp/**")
    qbl.wait_line(r"^Creating Queryable on ")
    qr = children.zm("z_querier", "-m", "peer", "-e", ep, "-s", "zm/pp/**", "-v", "v", "-n", "2")
    assert qr.wait_exit(30, others=[qbl]) == 0
    ask = querying("zm/pp/**", "v", 2)
    assert qr.output().splitlines()[3:] == [ask[0], received("zm/pp/**", QBL_VALUE), ask[1],
                                            received("zm/pp/**", QBL_VALUE)]
    qbl.wait_lines(r"^     with value", 2)
    assert qbl.output().splitlines()[2:] == [
        *query_lines("zm/pp/**", "", "[   0] v"), *query_lines("zm/pp/**", "", "[   1] v")]


# ---- attachments ------------------------------------------------------------------------------------


def test_z_get_attachment_to_rust_queryable_via_router(router, rust, children):
    s = rust.client(router.endpoint)
    q = Queries("zm/at/a", "with extras", attachment=[("rk", "rv"), ("k2", "v2")], encoding="text/plain;x")
    s.declare_queryable("zm/at/**", q)
    harness.router_took(s)
    get = children.zm("z_get_attachment", "-m", "client", "-e", router.endpoint, "-k", "zm/at/**", "-v", "val")
    assert get.wait_exit(20) == 0
    assert get.output().splitlines() == [
        "Opening session...",
        "Sending Query 'zm/at/**'...",
        received("zm/at/a", "with extras"),
        "    with encoding: text/plain;x",
        "    with attachment:",
        "     0: rk, rv",
        "     1: k2, v2",
        ">> Received query final notification",
    ]
    assert q.seen == [("zm/at/**", "", b"val", "zenoh/string;utf8", [("test_key", "test_value")])]


def test_rust_get_with_attachment_to_z_queryable_attachment_via_router(router, rust, children):
    qbl = children.zm("z_queryable_attachment", "-m", "client", "-e", router.endpoint, "-k", "zm/qa/**", "-n", "1")
    qbl.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    s = rust.client(router.endpoint)
    queryable_known(s, "zm/qa/a", [qbl])
    got = rust_get(s, "zm/qa/a?p=2", payload=b"hey", encoding="text/plain",
                   attachment=z_serialize([("a", "1"), ("bb", "22")]), timeout=10)
    assert got == [("zm/qa/a", QBL_VALUE.encode(), "zenoh/string;utf8", [("reply_key", "reply_value")])]
    assert qbl.wait_exit(15) == 0
    assert qbl.output().splitlines()[3:] == [
        " >> [Queryable handler] Received Query 'zm/qa/ap=2'",
        "    with encoding: text/plain",
        "    with value 'hey'",
        "    with attachment:",
        "     0: a, 1",
        "     1: bb, 22",
    ]


def test_rust_peer_get_without_attachment_to_z_queryable_attachment(rust, children):
    ep = endpoint(free_port())
    qbl = children.zm("z_queryable_attachment", "-m", "peer", "-l", ep, "-n", "1")
    qbl.wait_line(r"^Press CTRL-C to quit")
    s = rust.peer(connect=[ep])
    queryable_known(s, QBL_KEY, [qbl])
    got = rust_get(s, QBL_KEY, timeout=10)
    assert got == [(QBL_KEY, QBL_VALUE.encode(), "zenoh/string;utf8", [("reply_key", "reply_value")])]
    assert qbl.wait_exit(15) == 0
    assert qbl.output().splitlines()[3:] == [
        f" >> [Queryable handler] Received Query '{QBL_KEY}'",
        "    with encoding: zenoh/bytes",
    ]


def test_z_get_attachment_to_z_queryable_attachment_peer_to_peer(children):
    ep = endpoint(free_port())
    qbl = children.zm("z_queryable_attachment", "-m", "peer", "-l", ep, "-n", "1", "-v", "pp")
    qbl.wait_line(r"^Press CTRL-C to quit")
    get = children.zm("z_get_attachment", "-m", "peer", "-e", ep, "-k", QBL_KEY, "-v", "ask")
    assert get.wait_exit(20, others=[qbl]) == 0
    assert qbl.wait_exit(15) == 0
    assert get.output().splitlines()[2:] == [
        received(QBL_KEY, "pp"),
        "    with encoding: zenoh/string;utf8",
        "    with attachment:",
        "     0: reply_key, reply_value",
        ">> Received query final notification",
    ]
    assert qbl.output().splitlines()[3:] == [
        f" >> [Queryable handler] Received Query '{QBL_KEY}'",
        "    with encoding: zenoh/string;utf8",
        "    with value 'ask'",
        "    with attachment:",
        "     0: test_key, test_value",
    ]


def test_rust_gets_sequence_through_z_queryable_channel_peer(rust, children):
    """Queries taken out of the channel one at a time still get their replies and final responses
    in order, many in a row."""
    ep = endpoint(free_port())
    qbl = children.zm("z_queryable_channel", "-m", "peer", "-l", ep, "-k", "zm/seq/*", "-v", "ok")
    qbl.wait_line(r"^Creating Queryable on ")
    s = rust.peer(connect=[ep])
    queryable_known(s, "zm/seq/a", [qbl])
    for i in range(20):
        assert rust_get(s, f"zm/seq/k{i}", timeout=10) == [(f"zm/seq/k{i}", b"ok", "zenoh/bytes", None)]
    qbl.wait_lines(r"^ >> \[Queryable handler\]", 20)
