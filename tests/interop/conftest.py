"""Fixtures of the interop tests: a Rust router per test, Rust sessions in this process, and
zmote programs as children. Everything a test starts is ended at its teardown, whatever the
outcome: child process groups are signalled, Rust sessions closed."""
import pytest

import harness


class Children:
    def __init__(self):
        self.all = []

    def zm(self, name, *args, stdin=True):
        p = harness.zm(name, *args, stdin=stdin)
        self.all.append(p)
        return p

    def probe(self, *args):
        p = harness.probe(*args)
        self.all.append(p)
        return p

    def router(self, port=None, lease_ms=None, scout_iface=None):
        r = harness.Router(port, lease_ms, scout_iface)
        self.all.append(r)
        return r.start()

    def stop(self):
        for p in reversed(self.all):
            p.stop()


class RustNodes:
    def __init__(self):
        self.sessions = []

    def open(self, mode, connect=(), listen=()):
        s = harness.zenoh.open(harness.rust_config(mode, connect, listen))
        self.sessions.append(s)
        return s

    def client(self, ep):
        return self.open("client", connect=[ep])

    def peer(self, connect=(), listen=()):
        return self.open("peer", connect=connect, listen=listen)

    def close(self):
        for s in reversed(self.sessions):
            try:
                s.close()
            except Exception:  # a session whose router died may refuse; the process ends anyway
                pass


@pytest.fixture
def children():
    c = Children()
    yield c
    c.stop()


@pytest.fixture
def router(children):
    return children.router()


@pytest.fixture
def rust():
    nodes = RustNodes()
    yield nodes
    nodes.close()
