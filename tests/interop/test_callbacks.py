"""Callbacks that misbehave cost only themselves: a subscriber's callback that blocks holds its
own peer's reader alone (the other peers stay connected and served, and the program still ends
promptly once the callback returns), and a callback that closes its own session (a subscriber's,
a reply's, a get's end at its timeout, a liveliness subscriber's, a local put's, a local
queryable's, a subscriber's drop run by its undeclare, a liveliness get's reply from a token of
the same session) returns from z_close, and the program then ends cleanly (under ASan: no error,
no leak); so does one whose callback drops the session's last reference. The zmote end is tests/interop/zm_callback; the Rust nodes are eclipse-zenoh sessions.
"""
import signal
import time

import pytest

import harness
from harness import endpoint

LEASE_S = 10.0  # zmote's ZM_LEASE_MS, and Rust's default lease
SLACK_S = 3.0  # scheduling slack on a loaded machine
KEEP_GAP_S = 5.0  # b's samples may lag by this much at worst: far below a lease


def zmote_listening(children, port, *args):
    p = children.zm("zm_callback", *args, "-m", "peer", "-l", endpoint(port), stdin=False)
    p.wait_line(r"^ready")
    harness.wait_listening(port, 10, p)
    return p


def assert_clean_end(p, timeout=20.0):
    p.wait_line(r"^done", timeout)
    assert p.wait_exit(10) == 0, p.describe()
    assert "ERROR: AddressSanitizer" not in p.output() and "LeakSanitizer" not in p.output(), p.describe()


@pytest.mark.serial
@pytest.mark.waits
def test_blocked_callback_costs_its_own_peer_only(children, rust):
    block_s = 30.0
    port = harness.free_port()
    ep = endpoint(port)
    z = zmote_listening(children, port, "block", "-k", "zm/cb/**", "-B", str(int(block_s * 1000)), "-t", "120000")

    # peer b first, then peer a's sample blocks the callback on a's reader
    b = rust.peer(connect=[ep])
    b_pub = b.declare_publisher("zm/cb/b")
    harness.wait_matching(b_pub, timeout=20, others=[z])
    a = rust.peer(connect=[ep])
    a_pub = a.declare_publisher("zm/cb/a")
    harness.wait_matching(a_pub, timeout=20, others=[z])
    a_pub.put(b"a")
    z.wait_line(r"^blocking", 10)
    blocked_at = time.monotonic()

    # for the whole block, b stays connected to zmote and its samples keep arriving
    worst_gap = 0.0
    last_seen = time.monotonic()
    n = 0
    while time.monotonic() - blocked_at < block_s - 2:
        b_pub.put(b"b")
        n += 1
        assert len(list(b.info.peers_zid())) >= 1, f"zmote dropped peer b after {time.monotonic() - blocked_at:.1f}s\n{z.describe()}"
        time.sleep(0.5)
        seen = len(z.matches(r"^sample zm/cb/b$"))
        now = time.monotonic()
        if seen > 0 and seen >= n - 2:
            last_seen = now
        worst_gap = max(worst_gap, now - last_seen)
    assert "unblocked" not in z.output(), "the callback was cut short"
    # a's peer expires meanwhile (its reader reads nothing), b's link is never dropped nor lost
    # (a Rust peer would reconnect at once, so its being connected now proves nothing)
    bz = harness.zid_text(b.info.zid())
    az = harness.zid_text(a.info.zid())
    dropped = [line for line in z.output().splitlines() if "dropped" in line or "left" in line]
    assert not [line for line in dropped if bz in line], f"zmote dropped peer b\n{z.describe()}"
    assert [line for line in dropped if az in line], f"peer a was never dropped\n{z.describe()}"
    assert worst_gap < KEEP_GAP_S, f"b's samples stalled for {worst_gap:.1f}s\n{z.describe()}"

    # once the callback returns, SIGTERM ends the program within 5 s
    z.wait_line(r"^unblocked", block_s + 10)
    z.signal(signal.SIGTERM)
    t = time.monotonic()
    z.wait_line(r"^done", 5 + SLACK_S)
    ended_s = time.monotonic() - t
    print(f"blocked callback: b's samples lagged {worst_gap:.2f}s at worst over {block_s:.0f}s; "
          f"SIGTERM to exit {ended_s:.2f}s")
    assert ended_s <= 5 + SLACK_S
    assert z.wait_exit(10) == 0, z.describe()


def test_close_in_subscriber_callback(children, rust):
    port = harness.free_port()
    z = zmote_listening(children, port, "close", "sub", "-k", "zm/cb/close/sub")
    s = rust.peer(connect=[endpoint(port)])
    pub = s.declare_publisher("zm/cb/close/sub")
    harness.wait_matching(pub, timeout=20, others=[z])
    pub.put(b"x")
    z.wait_line(r"^closed rc=0", 10)
    assert_clean_end(z)


def test_close_in_reply_callback(children, rust):
    port = harness.free_port()
    ep = endpoint(port)
    s = rust.peer(listen=[ep])
    qbl = s.declare_queryable("zm/cb/close/reply", lambda q: q.reply("zm/cb/close/reply", b"r"))
    harness.wait_listening(port, 10)
    z = children.zm("zm_callback", "close", "reply", "-k", "zm/cb/close/reply", "-m", "peer", "-e", ep, stdin=False)
    z.wait_line(r"^closed rc=0", 20)
    assert_clean_end(z)
    qbl.undeclare()


def test_close_in_get_drop_at_timeout(children, rust):
    """The get's end at its timeout runs on the worker: its drop closes the session there."""
    port = harness.free_port()
    ep = endpoint(port)
    s = rust.peer(listen=[ep])
    held = []  # queries kept unanswered: no final response until the test ends
    qbl = s.declare_queryable("zm/cb/close/drop", held.append)
    harness.wait_listening(port, 10)
    z = children.zm("zm_callback", "close", "drop", "-k", "zm/cb/close/drop", "-m", "peer", "-e", ep, stdin=False)
    z.wait_line(r"^get rc=0", 20)
    z.wait_line(r"^closed rc=0", 20)
    assert_clean_end(z)
    held.clear()
    qbl.undeclare()


def test_close_in_liveliness_callback(children, rust):
    port = harness.free_port()
    ep = endpoint(port)
    s = rust.peer(listen=[ep])
    token = s.liveliness().declare_token("zm/cb/close/live")
    harness.wait_listening(port, 10)
    z = children.zm("zm_callback", "close", "live", "-k", "zm/cb/close/**", "-m", "peer", "-e", ep, stdin=False)
    z.wait_line(r"^closed rc=0", 20)
    assert_clean_end(z)
    token.undeclare()


@pytest.mark.parametrize("role", ["local", "qbl"])
def test_close_in_local_callback(children, role):
    """A callback run by the application's own call (a local put, a local get) closes the session."""
    port = harness.free_port()
    z = children.zm("zm_callback", "close", role, "-k", "zm/cb/close/local", "-m", "peer", "-l", endpoint(port),
                    stdin=False)
    z.wait_line(r"^closed rc=0", 10)
    assert_clean_end(z)


def test_close_in_drop_run_by_undeclare(children):
    """The undeclare runs the subscriber's drop on the program's thread: its z_close returns."""
    port = harness.free_port()
    z = children.zm("zm_callback", "close", "undeclare", "-k", "zm/cb/close/undeclare", "-m", "peer", "-l",
                    endpoint(port), stdin=False)
    z.wait_line(r"^closed rc=0", 10)
    assert_clean_end(z)


def test_close_in_local_liveliness_get_reply(children):
    """A liveliness get answered by a token of the same session, whose reply callback closes it."""
    port = harness.free_port()
    z = children.zm("zm_callback", "close", "livget", "-k", "zm/cb/close/livget", "-m", "peer", "-l", endpoint(port),
                    stdin=False)
    z.wait_line(r"^closed rc=0", 10)
    z.wait_line(r"^get rc=0", 10)
    assert_clean_end(z)


def test_last_session_reference_dropped_in_callback(children, rust):
    """A background subscriber's callback drops the session's last reference: it ends, nothing leaks."""
    port = harness.free_port()
    z = zmote_listening(children, port, "last", "sub", "-k", "zm/cb/last")
    s = rust.peer(connect=[endpoint(port)])
    pub = s.declare_publisher("zm/cb/last")
    harness.wait_matching(pub, timeout=20, others=[z])
    pub.put(b"x")
    z.wait_line(r"^dropped", 10)
    z.wait_line(r"^subscriber dropped", 15)  # the session's close ran, on a task of its own
    assert_clean_end(z)


def test_last_session_reference_dropped_in_get_drop(children, rust):
    """The get's end at its timeout, on the worker, drops the session's last reference."""
    port = harness.free_port()
    ep = endpoint(port)
    s = rust.peer(listen=[ep])
    held = []  # queries kept unanswered: no final response until the test ends
    qbl = s.declare_queryable("zm/cb/last/drop", held.append)
    harness.wait_listening(port, 10)
    z = children.zm("zm_callback", "last", "drop", "-k", "zm/cb/last/drop", "-m", "peer", "-e", ep, stdin=False)
    z.wait_line(r"^get rc=0", 20)
    z.wait_line(r"^dropped", 20)
    z.wait_line(r"^subscriber dropped", 15)
    assert_clean_end(z)
    held.clear()
    qbl.undeclare()
