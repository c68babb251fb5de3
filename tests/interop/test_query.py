"""Queries between zmote and Rust Zenoh 1.10.2: zmote gets answered by Rust queryables and the
reverse, through the Rust router (client mode) and directly between peers; replies of every
kind, consolidation, targets, timeouts, large payloads, replies sent after the callback
returned, and queryables of the same session."""
import re
import threading

import pytest
import zenoh

import harness
from harness import endpoint, free_port

BIG = 1 << 20


def pattern(size):
    """zm_query's payload pattern: byte i = (i * 7 + 3) mod 251."""
    return bytes((i * 7 + 3) % 251 for i in range(size))


class Answers:
    """A Rust queryable's callback: replies with each given (key, payload, timestamp), counting
    the queries; keep=True holds every query (so no final response goes) instead of replying."""

    def __init__(self, session, replies=(), err=None, keep=False):
        self.session = session
        self.replies = list(replies)
        self.err = err
        self.keep = keep
        self.kept = []
        self.queries = []
        self.cond = threading.Condition()

    def __call__(self, query):
        payload = None if query.payload is None else query.payload.to_bytes()
        with self.cond:
            self.queries.append((str(query.key_expr), str(query.parameters), payload))
            self.cond.notify_all()
        if self.keep:
            self.kept.append(query)
            return
        if self.err is not None:
            query.reply_err(self.err)
        for key, value, ts in self.replies:
            if ts is None:
                query.reply(key, value)
            else:
                query.reply(key, value, timestamp=ts)

    def wait(self, n, timeout=20.0, others=()):
        harness.wait_until(lambda: len(self.queries) >= n, timeout, f"{n} queries at the Rust queryable", others)
        return self.queries


def replies_of(p):
    return [m.group(0) for m in p.matches(r"^reply .*")]


def end_of(p, timeout=30.0, others=()):
    m = p.wait_line(r"^end n=(\d+) ms=(\d+)$", timeout=timeout, others=others)
    return int(m.group(1)), int(m.group(2))


def queryable_known(session, key, others=()):
    """Waits until the Rust session knows of a queryable for key (its querier's matching status)."""
    querier = session.declare_querier(key)
    harness.wait_until(lambda: querier.matching_status.matching, 20, f"a queryable known for {key}", others)
    querier.undeclare()


def rust_get(session, selector, **kw):
    """A Rust get: its replies as ('ok', key, kind, payload) or ('err', payload)."""
    out = []
    for r in session.get(selector, **kw):
        if r.ok is not None:
            out.append(("ok", str(r.ok.key_expr), r.ok.kind, r.ok.payload.to_bytes()))
        else:
            out.append(("err", r.err.payload.to_bytes()))
    return out


# ---- zmote's examples, through the router ---------------------------------------------------------


def test_z_get_to_rust_queryable_via_router(router, rust, children):
    s = rust.client(router.endpoint)
    ans = Answers(s, [("demo/example/a", "from rust", None)])
    s.declare_queryable("demo/example/**", ans)
    harness.router_took(s)
    get = children.zm("z_get", "-m", "client", "-e", router.endpoint, "-v", "ask")
    assert get.wait_exit(20) == 0
    assert get.output().splitlines() == [
        "Opening session...",
        "Sending Query 'demo/example/**'...",
        ">> Received PUT ('demo/example/a': 'from rust')",
        ">> Received query final notification",
    ]
    assert ans.queries == [("demo/example/**", "", b"ask")]


def test_rust_get_to_z_queryable_via_router(router, rust, children):
    q = children.zm("z_queryable", "-m", "client", "-e", router.endpoint, "-k", "zm/qbl/**", "-n", "1")
    q.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    s = rust.client(router.endpoint)
    queryable_known(s, "zm/qbl/a", [q])
    got = rust_get(s, "zm/qbl/a?x=1", payload=b"hello", timeout=10)
    assert got == [("ok", "zm/qbl/a", zenoh.SampleKind.PUT, b"Queryable from Pico!")]
    assert q.wait_exit(15) == 0
    assert q.output().splitlines()[-2:] == [
        " >> [Queryable handler] Received Query 'zm/qbl/ax=1'",
        "     with value 'hello'",
    ]


@pytest.mark.parametrize("flag,want", [
    ("-f", [("err", b"Demo error")]),
    ("-d", [("ok", "zm/qbl/a", zenoh.SampleKind.DELETE, b"")]),
])
def test_error_and_delete_replies(router, rust, children, flag, want):
    q = children.zm("z_queryable", "-m", "client", "-e", router.endpoint, "-k", "zm/qbl/**", "-n", "1", flag)
    q.wait_line(r"^Press CTRL-C to quit\.\.\.$")
    s = rust.client(router.endpoint)
    queryable_known(s, "zm/qbl/a", [q])
    assert rust_get(s, "zm/qbl/a", timeout=10) == want
    assert q.wait_exit(15) == 0


def test_rust_error_reply_to_zmote_get(router, rust, children):
    s = rust.client(router.endpoint)
    s.declare_queryable("zm/e/**", Answers(s, err="it failed"))
    harness.router_took(s)
    get = children.zm("zm_query", "get", "-m", "client", "-e", router.endpoint, "-k", "zm/e/x")
    assert end_of(get)[0] == 1
    assert replies_of(get) == ["reply err len=9 text=it failed"]


# ---- zmote gets: consolidation, targets, timeouts -------------------------------------------------


def two_queryables(rust, router, complete=(False, False)):
    """Two Rust queryables on zm/c/** that reply on zm/c/a with an older and a newer timestamp."""
    s1, s2 = rust.client(router.endpoint), rust.client(router.endpoint)
    older, newer = s1.new_timestamp(), None
    newer = s2.new_timestamp()
    a1 = Answers(s1, [("zm/c/a", "older", older), ("zm/c/b", "b", older)])
    a2 = Answers(s2, [("zm/c/a", "newer", newer)])
    s1.declare_queryable("zm/c/**", a1, complete=complete[0])
    s2.declare_queryable("zm/c/**", a2, complete=complete[1])
    harness.router_took(s1)
    harness.router_took(s2)
    return a1, a2


def get_replies(children, router, *args):
    get = children.zm("zm_query", "get", "-m", "client", "-e", router.endpoint, "-k", "zm/c/**", *args)
    n, _ = end_of(get)
    lines = replies_of(get)
    assert len(lines) == n
    return [(m.group(1), int(m.group(2))) for m in (re.match(r"reply ok (\S+) kind=PUT len=\d+ ts=(\d+)", x)
                                                      for x in lines)]


def test_consolidation_none_gives_every_reply(router, rust, children):
    two_queryables(rust, router)
    got = get_replies(children, router, "-c", "none", "-T", "all")
    assert sorted(k for k, _ in got) == ["zm/c/a", "zm/c/a", "zm/c/b"]


def test_consolidation_latest_gives_the_newest_per_key(router, rust, children):
    two_queryables(rust, router)
    got = dict(get_replies(children, router, "-c", "latest", "-T", "all"))
    assert sorted(got) == ["zm/c/a", "zm/c/b"]
    assert got["zm/c/a"] > got["zm/c/b"]  # the newer of the two replies on zm/c/a


def test_consolidation_auto_is_latest(router, rust, children):
    two_queryables(rust, router)
    assert sorted(k for k, _ in get_replies(children, router, "-T", "all")) == ["zm/c/a", "zm/c/b"]


def test_consolidation_monotonic_never_goes_back(router, rust, children):
    two_queryables(rust, router)
    got = get_replies(children, router, "-c", "monotonic", "-T", "all")
    on_a = [ts for k, ts in got if k == "zm/c/a"]
    assert 1 <= len(on_a) <= 2 and on_a == sorted(set(on_a))
    assert [k for k, _ in got].count("zm/c/b") == 1


def test_target_all_complete_reaches_complete_queryables_only(router, rust, children):
    a1, a2 = two_queryables(rust, router, complete=(False, True))
    got = get_replies(children, router, "-c", "none", "-T", "complete")
    assert [k for k, _ in got] == ["zm/c/a"]
    assert len(a1.queries) == 0 and len(a2.queries) == 1


def test_get_ends_at_its_timeout(rust, children):
    port = free_port()
    s = rust.peer(listen=[endpoint(port)])
    ans = Answers(s, keep=True)  # holds the query: no final response comes from this peer
    s.declare_queryable("zm/t/**", ans)
    get = children.zm("zm_query", "get", "-m", "peer", "-e", endpoint(port), "-k", "zm/t/x", "-t", "1500")
    n, ms = end_of(get)
    # The Rust peer gives up on the query at the same timeout (it came with it) and may say so
    # first: an error reply "Timeout", then its final response. Nothing else may come.
    timeouts = get.output().count("reply err len=7 text=Timeout")
    assert n == timeouts <= 1 and 1400 <= ms <= 5000, get.output()
    assert len(ans.queries) == 1


def test_get_with_nobody_to_answer_ends(router, children):
    get = children.zm("zm_query", "get", "-m", "client", "-e", router.endpoint, "-k", "zm/none/x", "-t", "10000")
    n, ms = end_of(get)
    assert n == 0 and ms < 5000  # the router's final response, not the timeout


def test_reply_outside_the_query_is_dropped_unless_any_key_is_accepted(router, rust, children):
    s = rust.client(router.endpoint)
    q = children.zm("zm_query", "qbl", "-m", "client", "-e", router.endpoint, "-k", "zm/k/**", "-R", "other/key",
                    "-n", "2")
    q.wait_line("^ready$")
    queryable_known(s, "zm/k/a", [q])
    assert rust_get(s, "zm/k/a", timeout=10) == []
    q.wait_line(r"^replied rc=-35$")  # refused by zmote: outside the query
    got = rust_get(s, "zm/k/a", accept_replies=zenoh.ReplyKeyExpr.ANY, timeout=10)
    assert got == [("ok", "other/key", zenoh.SampleKind.PUT, b"answer")]
    assert q.wait_exit(15) == 0


def test_zmote_get_accepting_any_key_gets_a_reply_outside_the_query(router, rust, children):
    s = rust.client(router.endpoint)
    ans = Answers(s, [("other/k2", b"far", None)])
    s.declare_queryable("zm/k2/**", ans)
    queryable_known(s, "zm/k2/a")
    get = children.zm("zm_query", "get", "-m", "client", "-e", router.endpoint, "-k", "zm/k2/a", "-a")
    assert end_of(get)[0] == 1
    assert replies_of(get)[0].startswith("reply ok other/k2 kind=PUT len=3 "), get.output()
    # by default the query accepts replies on its own keys only: Rust refuses to send that one (its
    # router may end the query with an error reply, "Timeout", the queryable having answered nothing)
    get = children.zm("zm_query", "get", "-m", "client", "-e", router.endpoint, "-k", "zm/k2/a", "-t", "3000")
    end_of(get)
    assert not any(r.startswith("reply ok") for r in replies_of(get)), get.output()
    assert len(ans.queries) == 2


# ---- large payloads, replies after the callback ----------------------------------------------------


def test_one_mib_query_and_reply_from_zmote_get(router, rust, children):
    s = rust.client(router.endpoint)
    ans = Answers(s, [("zm/big/a", pattern(BIG), None)])
    s.declare_queryable("zm/big/**", ans)
    harness.router_took(s)
    get = children.zm("zm_query", "get", "-m", "client", "-e", router.endpoint, "-k", "zm/big/a", "-s", str(BIG))
    assert end_of(get, timeout=60)[0] == 1
    assert replies_of(get)[0].endswith(f"len={BIG} ts=0 check=ok")
    assert ans.queries[0][2] == pattern(BIG)


def test_one_mib_query_and_reply_to_zmote_queryable(router, rust, children):
    q = children.zm("zm_query", "qbl", "-m", "client", "-e", router.endpoint, "-k", "zm/big/**", "-s", str(BIG),
                    "-n", "1")
    q.wait_line("^ready$")
    s = rust.client(router.endpoint)
    queryable_known(s, "zm/big/a", [q])
    got = rust_get(s, "zm/big/a", payload=pattern(BIG), timeout=30)
    assert len(got) == 1 and got[0][3] == pattern(BIG)
    q.wait_line(rf"^query zm/big/a params= len={BIG} check=ok$")
    assert q.wait_exit(15) == 0


def test_reply_from_another_thread_after_the_callback(router, rust, children):
    q = children.zm("zm_query", "qbl", "-m", "client", "-e", router.endpoint, "-k", "zm/late/**", "-L", "-n", "1")
    q.wait_line("^ready$")
    s = rust.client(router.endpoint)
    queryable_known(s, "zm/late/a", [q])
    assert rust_get(s, "zm/late/a", timeout=10) == [("ok", "zm/late/a", zenoh.SampleKind.PUT, b"answer")]
    q.wait_line(r"^replied rc=0$")
    assert q.wait_exit(15) == 0


def test_zmote_get_to_zmote_queryable_via_router(router, children):
    q = children.zm("zm_query", "qbl", "-m", "client", "-e", router.endpoint, "-k", "zm/zz/**", "-n", "1")
    q.wait_line("^ready$")
    get = children.zm("zm_query", "get", "-m", "client", "-e", router.endpoint, "-k", "zm/zz/a", "-s", "100")
    assert end_of(get, others=[q])[0] == 1
    assert replies_of(get) == ["reply ok zm/zz/a kind=PUT len=6 ts=0 check=bad"]  # "answer", not a pattern
    q.wait_line(r"^query zm/zz/a params= len=100 check=ok$")


def test_queryable_of_the_same_session_answers_its_gets(router, children):
    both = children.zm("zm_query", "both", "-m", "client", "-e", router.endpoint, "-k", "zm/self/a", "-g", "2")
    assert [int(m.group(1)) for m in both.wait_lines(r"^end n=(\d+)", 2)] == [1, 1]
    assert replies_of(both) == ["reply ok zm/self/a kind=PUT len=6 ts=0 check=bad"] * 2


def test_remote_only_get_skips_the_sessions_own_queryable(router, children):
    both = children.zm("zm_query", "both", "-m", "client", "-e", router.endpoint, "-k", "zm/self/a", "-o", "remote")
    assert end_of(both)[0] == 0


# ---- peer mode, directly ------------------------------------------------------------------------


def test_zmote_peer_get_to_rust_peer_queryable(rust, children):
    port = free_port()
    s = rust.peer(listen=[endpoint(port)])
    ans = Answers(s, [("zm/p/a", "peer answer", None)])
    s.declare_queryable("zm/p/**", ans)
    get = children.zm("z_get", "-m", "peer", "-e", endpoint(port), "-k", "zm/p/**")
    assert get.wait_exit(20) == 0
    assert get.output().splitlines()[-2:] == [
        ">> Received PUT ('zm/p/a': 'peer answer')",
        ">> Received query final notification",
    ]


def test_rust_peer_get_to_zmote_peer_queryable(rust, children):
    port = free_port()
    q = children.zm("zm_query", "qbl", "-m", "peer", "-l", endpoint(port), "-k", "zm/p/**", "-n", "1")
    q.wait_line("^ready$")
    s = rust.peer(connect=[endpoint(port)])
    queryable_known(s, "zm/p/b", [q])
    assert rust_get(s, "zm/p/b", timeout=10) == [("ok", "zm/p/b", zenoh.SampleKind.PUT, b"answer")]
    assert q.wait_exit(15) == 0
