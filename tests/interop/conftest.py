"""Fixtures of the interop tests: a Rust router per test, Rust sessions in this process, and
zmote programs as children. Everything a test starts is ended at its teardown, whatever the
outcome: child process groups are signalled, Rust sessions closed.

--smoke keeps, of each file, the first SMOKE_FUNCTIONS test functions with their first parameter
set each, none of those marked serial (bounds of time under load, long by nature): a short run
that touches every file (scripts/test.sh runs it on the Debug build, and the whole suite on the
ASan one)."""
import pytest

import harness

SMOKE_FUNCTIONS = 2


def pytest_addoption(parser):
    parser.addoption("--smoke", action="store_true",
                     help=f"run only the first {SMOKE_FUNCTIONS} test functions of each file, "
                          "each with its first parameter set")


@pytest.hookimpl(trylast=True)  # after -k and -m: the first tests of what they selected
def pytest_collection_modifyitems(config, items):
    if not config.getoption("--smoke"):
        return
    kept, dropped, seen = [], [], {}
    for item in items:
        if item.get_closest_marker("serial") is not None:
            dropped.append(item)
            continue
        path = str(item.path)
        funcs = seen.setdefault(path, [])
        name = getattr(item, "originalname", item.name)
        if name not in funcs and len(funcs) < SMOKE_FUNCTIONS:
            funcs.append(name)
            kept.append(item)
        else:
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


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
