"""Liveliness between zmote and Rust Zenoh 1.10.2, through the Rust router (client mode) and
directly between peers: tokens seen by liveliness subscribers both ways, with and without
history, undeclared or gone with a process killed by SIGKILL, and liveliness gets both ways; then
zmote's three liveliness examples. zmote's side is tests/interop/zm_live (stdin commands) or an
example; every wait is for an event, bounded."""
import signal
import sys
import threading

import pytest
import zenoh

import harness
from harness import endpoint, free_port

PUT = zenoh.SampleKind.PUT
DELETE = zenoh.SampleKind.DELETE


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


def live_sub(session, key, ev):
    """A Rust liveliness subscriber on key, calling ev, known to a router once this returns (a
    token that reaches the router before the subscriber's interest is not told to it)."""
    sub = session.liveliness().declare_subscriber(key, ev)
    harness.router_took(session)
    return sub


def rust_get(session, key):
    """The keys of the tokens a Rust liveliness get finds, sorted."""
    return sorted(str(r.ok.key_expr) for r in session.liveliness().get(key, timeout=10) if r.ok is not None)


class Net:
    """Where the two sides meet. client: both are clients of a Rust router. peer: the Rust session
    listens and zmote connects to it (so the link is up once zmote prints "ready")."""

    def __init__(self, mode, children, rust):
        self.mode = mode
        self.children = children
        self.rust = rust
        if mode == "client":
            self.ep = children.router().endpoint
        else:
            self.ep = endpoint(free_port())
        self.listener = None

    def session(self):
        """A Rust session; in peer mode the one that listens (one per test)."""
        if self.mode == "client":
            return self.rust.client(self.ep)
        assert self.listener is None
        self.listener = self.rust.peer(listen=[self.ep])
        return self.listener

    def zm_args(self):
        return ["-m", self.mode, "-e", self.ep]

    def zm_live(self):
        p = self.children.zm("zm_live", *self.zm_args())
        p.wait_line("^ready$")
        return p

    def known(self, session, key, others=()):
        """Client mode: waits until the router knows session's token key (it answers a get with
        it), so that what zmote asks next meets it. Peers push their tokens to each other."""
        if self.mode == "client":
            harness.wait_until(lambda: key in rust_get(session, key), 20, f"{key} known to the router", others)


def token_holder(mode, ep, key):
    """A separate process holding a Rust token on key, as a client of ep or a peer listening on
    it; it prints "ready" once the token is declared, then waits to be killed."""
    code = (
        "import json, sys, threading, zenoh\n"
        "mode, ep, key = sys.argv[1:4]\n"
        "conf = {'mode': mode, 'scouting': {'multicast': {'enabled': False}, 'gossip': {'enabled': False}}}\n"
        "conf['connect' if mode == 'client' else 'listen'] = {'endpoints': [ep]}\n"
        "s = zenoh.open(zenoh.Config.from_json5(json.dumps(conf)))\n"
        "t = s.liveliness().declare_token(key)\n"
        "print('ready', flush=True)\n"
        "sys.stdin.read()\n"
    )
    return harness.Proc([sys.executable, "-c", code, mode, ep, key], name="token_holder")


@pytest.fixture(params=["client", "peer"])
def net(request, children, rust):
    return Net(request.param, children, rust)


# ---- tokens both ways ----------------------------------------------------------------------------


def test_zmote_token_seen_and_undeclared(net):
    s = net.session()
    ev = Events()
    live_sub(s, "zm/lv/**", ev)
    z = net.zm_live()
    z.send("token zm/lv/a")
    z.wait_line("^token zm/lv/a$")
    ev.wait(PUT, "zm/lv/a", others=[z])
    z.send("drop zm/lv/a")
    z.wait_line("^dropped zm/lv/a$")
    ev.wait(DELETE, "zm/lv/a", others=[z])
    assert ev.snapshot() == [(PUT, "zm/lv/a"), (DELETE, "zm/lv/a")]


def test_rust_token_seen_and_undeclared(net):
    s = net.session()
    z = net.zm_live()
    z.send("sub zm/lv/**")
    z.wait_line(r"^sub zm/lv/\*\* ready$")
    tok = s.liveliness().declare_token("zm/lv/r")
    z.wait_line(r"^\[zm/lv/\*\*\] put zm/lv/r$")
    tok.undeclare()
    z.wait_line(r"^\[zm/lv/\*\*\] delete zm/lv/r$")
    assert [m.string for m in z.matches(r"^\[")] == ["[zm/lv/**] put zm/lv/r", "[zm/lv/**] delete zm/lv/r"]


def test_history_only_with_history(net):
    s = net.session()
    old = s.liveliness().declare_token("zm/h/old")  # a token lives as long as its object
    net.known(s, "zm/h/old")
    z = net.zm_live()
    z.send("sub zm/h/** h")
    z.wait_line(r"^sub zm/h/\*\* ready$")
    z.wait_line(r"^\[zm/h/\*\*\] put zm/h/old$")
    z.send("sub zm/h/*")
    z.wait_line(r"^sub zm/h/\* ready$")
    new = s.liveliness().declare_token("zm/h/new")
    z.wait_line(r"^\[zm/h/\*\] put zm/h/new$")
    z.wait_line(r"^\[zm/h/\*\*\] put zm/h/new$")
    assert not z.matches(r"^\[zm/h/\*\] put zm/h/old$"), z.output()
    assert len(z.matches(r"^\[zm/h/\*\*\] put zm/h/old$")) == 1, z.output()
    old.undeclare()
    new.undeclare()


def test_own_token_seen_by_own_subscriber(net):
    net.session()
    z = net.zm_live()
    z.send("sub zm/own/**")
    z.wait_line(r"^sub zm/own/\*\* ready$")
    z.send("token zm/own/t")
    z.wait_line(r"^\[zm/own/\*\*\] put zm/own/t$")
    z.send("drop zm/own/t")
    z.wait_line(r"^\[zm/own/\*\*\] delete zm/own/t$")
    assert len(z.matches(r"^\[")) == 2, z.output()


# ---- tokens of a killed process ---------------------------------------------------------------------


def test_zmote_killed_its_token_goes(net):
    s = net.session()
    ev = Events()
    live_sub(s, "zm/kill/**", ev)
    z = net.zm_live()
    z.send("token zm/kill/z")
    ev.wait(PUT, "zm/kill/z", others=[z])
    z.signal(signal.SIGKILL)
    ev.wait(DELETE, "zm/kill/z", others=[z])


def test_rust_killed_its_token_goes(net, children):
    if net.mode == "client":
        holder = token_holder("client", net.ep, "zm/kill/r")
    else:
        holder = token_holder("peer", net.ep, "zm/kill/r")  # it listens: zmote connects to it
    children.all.append(holder)
    holder.wait_line("^ready$")
    z = net.zm_live()
    z.send("sub zm/kill/** h")
    z.wait_line(r"^\[zm/kill/\*\*\] put zm/kill/r$", others=[holder])
    holder.signal(signal.SIGKILL)
    z.wait_line(r"^\[zm/kill/\*\*\] delete zm/kill/r$", others=[holder])


def test_client_redeclares_after_router_restart(children, rust):
    port = free_port()
    r1 = children.router(port)
    z = children.zm("zm_live", "-m", "client", "-e", r1.endpoint)
    z.wait_line("^ready$")
    z.send("sub zm/rc/**")
    z.wait_line(r"^sub zm/rc/\*\* ready$")
    z.send("token zm/rc/z")
    s1 = rust.client(r1.endpoint)
    t1 = s1.liveliness().declare_token("zm/rc/r1")
    z.wait_line(r"^\[zm/rc/\*\*\] put zm/rc/r1$")
    z.wait_line(r"^\[zm/rc/\*\*\] put zm/rc/z$")  # our own, as the router tells it
    r1.proc.signal(signal.SIGKILL)
    r1.proc.stop()
    z.wait_line(r"^\[zm/rc/\*\*\] delete zm/rc/r1$")  # the router went, and what it told of
    z.wait_line(r"^\[zm/rc/\*\*\] delete zm/rc/z$")
    t1.undeclare()

    r2 = children.router(port)
    s2 = rust.client(r2.endpoint)
    ev = Events()
    s2.liveliness().declare_subscriber("zm/rc/**", ev, history=True)
    ev.wait(PUT, "zm/rc/z", others=[z])  # the token declared again
    t2 = s2.liveliness().declare_token("zm/rc/r2")
    z.wait_line(r"^\[zm/rc/\*\*\] put zm/rc/r2$")  # the subscriber's interest too
    assert len(z.matches(r"^\[zm/rc/\*\*\] put zm/rc/z$")) == 2
    t2.undeclare()


# ---- a router's declarations are the network's -----------------------------------------------------

WARNINGS = r"^zmote (warn|error): "


def many_tokens(z, rust, ep, n, prefix):
    """n Rust tokens under prefix, declared by two Rust clients of the router at ep: zmote's
    liveliness subscriber sees each appear, then go. Returns the tokens' keys."""
    keys = [f"{prefix}/{i}" for i in range(n)]
    sessions = [rust.client(ep), rust.client(ep)]
    tokens = [sessions[i % 2].liveliness().declare_token(k) for i, k in enumerate(keys)]
    z.wait_lines(rf"^\[{prefix}/\*\*\] put {prefix}/\d+$", n, timeout=60)
    for t in tokens:
        t.undeclare()
    z.wait_lines(rf"^\[{prefix}/\*\*\] delete {prefix}/\d+$", n, timeout=60)
    return keys


def seen(z, kind, prefix):
    return sorted(m.group(1) for m in z.matches(rf"^\[{prefix}/\*\*\] {kind} ({prefix}/\d+)$"))


@pytest.mark.parametrize("n", [300, 3000])
def test_client_watches_a_network_of_tokens(router, rust, children, n):
    """A router's tokens are the network's: a client's liveliness subscriber hears of more tokens
    than a peer may declare (ZM_PEER_DECLS_MAX) and keeps its link."""
    z = children.zm("zm_live", "-m", "client", "-e", router.endpoint, "-t", "120000")
    z.wait_line("^ready$")
    z.send("sub zm/net/**")
    z.wait_line(r"^sub zm/net/\*\* ready$")
    keys = many_tokens(z, rust, router.endpoint, n, "zm/net")
    assert seen(z, "put", "zm/net") == sorted(keys)
    assert seen(z, "delete", "zm/net") == sorted(keys)
    # the link stayed: no CLOSE, no reconnection, nothing worth a warning
    assert not z.matches(WARNINGS), z.output()
    z.send("get zm/none/**")  # and it still answers: the same session, still connected
    z.wait_line(r"^end n=0$", timeout=10)


def test_client_past_the_router_bound_keeps_its_link(router, rust, children):
    """zm_live_small holds 64 of a router's declarations (ZM_ROUTER_DECLS_MAX=64): past them the
    router's declarations are ignored (the tokens that fit are seen; those whose key expression
    did not fit are lost), the link stays, and the burst is reported twice: when it begins and,
    with its count, when a declaration fits again."""
    z = children.zm("zm_live_small", "-m", "client", "-e", router.endpoint)
    z.wait_line("^ready$")
    z.send("sub zm/big/**")
    z.wait_line(r"^sub zm/big/\*\* ready$")
    s = rust.client(router.endpoint)  # one session: the router forwards what it declares in order
    tokens = [s.liveliness().declare_token(f"zm/big/{i}") for i in range(100)]
    z.wait_line(r"^zmote warn: the router's declarations exceed ZM_ROUTER_DECLS_MAX")
    for t in tokens:
        t.undeclare()
    last = s.liveliness().declare_token("zm/big/last")  # after the undeclarations: room again
    z.wait_line(r"^\[zm/big/\*\*\] put zm/big/last$")
    ended = z.wait_line(r"^zmote warn: (\d+) declarations of the router were ignored$")
    assert int(ended.group(1)) >= 100 - 64, z.output()
    puts = seen(z, "put", "zm/big")
    assert 16 <= len(puts) < 100 and len(set(puts)) == len(puts), z.output()
    assert set(seen(z, "delete", "zm/big")) <= set(puts), z.output()
    last.undeclare()
    z.wait_line(r"^\[zm/big/\*\*\] delete zm/big/last$")
    # one burst, two lines; no CLOSE, no reconnection; the same session still answers
    assert len(z.matches(WARNINGS)) == 2, z.output()
    z.send("get zm/none/**")
    z.wait_line(r"^end n=0$", timeout=10)


# ---- liveliness gets --------------------------------------------------------------------------------


def test_zmote_get_finds_rust_and_own_tokens(net):
    s = net.session()
    tokens = [s.liveliness().declare_token(k) for k in ("zm/g/r1", "zm/g/r2", "zm/other/r3")]
    net.known(s, "zm/g/r2")
    z = net.zm_live()
    z.send("token zm/g/own")
    z.wait_line("^token zm/g/own$")
    z.send("get zm/g/**")
    z.wait_line(r"^end n=3$")
    assert sorted(m.string for m in z.matches(r"^reply ")) == [
        "reply zm/g/own", "reply zm/g/r1", "reply zm/g/r2"]
    assert len(tokens) == 3


def test_rust_get_finds_zmote_tokens(net):
    s = net.session()
    z = net.zm_live()
    z.send("token zm/g/z1")
    z.send("token zm/g/z2")
    z.send("get zm/g/**")  # answered after the tokens went out: whoever answers has them
    z.wait_line(r"^end n=2$")
    assert rust_get(s, "zm/g/**") == ["zm/g/z1", "zm/g/z2"]
    z.send("drop zm/g/z1")
    z.send("get zm/g/**")
    z.wait_line(r"^end n=1$")
    assert rust_get(s, "zm/g/**") == ["zm/g/z2"]


def test_get_of_nothing_ends_at_once(net):
    net.session()
    z = net.zm_live()
    z.send("get zm/none/**")
    z.wait_line(r"^end n=0$", timeout=5)  # the answers' end, not the timeout (20 s)


# ---- the examples -----------------------------------------------------------------------------------


def test_z_liveliness_seen_by_rust(router, rust, children):
    s = rust.client(router.endpoint)
    ev = Events()
    live_sub(s, "group1/**", ev)
    p = children.zm("z_liveliness", "-m", "client", "-e", router.endpoint, "-t", "1")
    ev.wait(PUT, "group1/zenoh-pico", others=[p])
    assert p.wait_exit(20) == 0
    ev.wait(DELETE, "group1/zenoh-pico", others=[p])
    assert p.output().splitlines() == [
        "Opening session...",
        "Declaring liveliness token 'group1/zenoh-pico'...",
        "Press CTRL-C to undeclare liveliness token and quit...",
        "Undeclaring liveliness token...",
    ]


def test_z_sub_liveliness_with_history(router, rust, children):
    s = rust.client(router.endpoint)
    tok = s.liveliness().declare_token("group1/rust")
    harness.wait_until(lambda: "group1/rust" in rust_get(s, "group1/**"), 20, "the token known to the router")
    p = children.zm("z_sub_liveliness", "-m", "client", "-e", router.endpoint, "-h", "-n", "2")
    p.wait_line(r"^>> \[LivelinessSubscriber\] New alive token \('group1/rust'\)$")
    tok.undeclare()
    assert p.wait_exit(20) == 0
    lines = p.output().splitlines()
    assert lines[:2] == ["Opening session...", "Declaring liveliness subscriber on 'group1/**'..."]
    # the history may come before the declaration returns or after it, and the main thread's
    # prompt after both events on a loaded machine: the events keep their order
    assert "Press CTRL-C to quit..." in lines[2:]
    assert [line for line in lines[2:] if line != "Press CTRL-C to quit..."] == [
        ">> [LivelinessSubscriber] New alive token ('group1/rust')",
        ">> [LivelinessSubscriber] Dropped token ('group1/rust')"]


def test_z_get_liveliness_finds_rust_tokens(rust, children):
    ep = endpoint(free_port())
    s = rust.peer(listen=[ep])
    tokens = [s.liveliness().declare_token(k) for k in ("group1/a", "group1/b")]
    p = children.zm("z_get_liveliness", "-m", "peer", "-e", ep)
    assert p.wait_exit(20) == 0
    lines = p.output().splitlines()
    assert lines[:2] == ["Opening session...", "Sending liveliness query 'group1/**'..."]
    assert sorted(lines[2:]) == [">> Alive token ('group1/a')", ">> Alive token ('group1/b')"]
    assert len(tokens) == 2
