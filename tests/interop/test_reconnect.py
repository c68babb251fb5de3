"""The Rust router goes away while samples flow. A zmote client must notice within the router's
lease (at once when the router's process dies and the kernel closes the socket; after the lease
when the router is frozen and the link just goes silent), then reconnect by itself when a router
is back on the same endpoint, redeclare what it had declared, and samples must flow again.

The router announces a 2 s lease so that a silent link is detected in 2 s, not the default 10.
zm_probe -r prints "routers N t=MS" each time the number of routers its session reports changes.
A flooding publisher (no interval between puts) must notice a frozen router just as fast: its
puts neither block on the silent link nor keep the lease from being checked.
"""
import re
import signal
import time

import pytest

import harness

# Bounds of time under load: run alone (scripts/interop.sh), not beside other tests.
pytestmark = pytest.mark.serial

LEASE_MS = 2000
# Scheduling slack on a loaded 2-core machine, on top of the lease itself.
SLACK_S = 1.5
KEY = "zm/rc/data"


def routers_line(p, n, after_index, timeout, others=()):
    """Waits for a "routers n" line printed after the first after_index lines; returns its t=."""
    deadline = time.monotonic() + timeout
    r = re.compile(rf"^routers {n} t=(\d+)$")
    while True:
        with p.cond:
            for line in p.lines[after_index:]:
                m = r.match(line)
                if m:
                    return int(m.group(1))
            eof = p.eof
        if time.monotonic() > deadline or eof:
            text = [f"no 'routers {n}' line within {timeout}s", p.describe()]
            text += [o.describe() for o in others]
            raise AssertionError("\n".join(text))
        time.sleep(0.02)


def lose_router(p, router, how):
    """Takes the router away, kill (the kernel closes its sockets) or freeze (the link goes
    silent), and waits until zm_probe reports no router, within the lease plus SLACK_S."""
    mark = len(p.lines)
    t0 = time.monotonic()
    router.proc.signal(signal.SIGKILL if how == "kill" else signal.SIGSTOP)
    routers_line(p, 0, mark, LEASE_MS / 1000 + SLACK_S, others=[router.proc])
    print(f"router loss ({how}) reported after {time.monotonic() - t0:.2f}s")
    # A frozen router still holds the port: end it for good before its successor starts.
    router.proc.signal(signal.SIGKILL)
    router.proc.stop()


@pytest.mark.parametrize("how", ["kill", "freeze"])
def test_zmote_publisher_survives_router_restart(how, children, rust):
    port = harness.free_port()
    r1 = children.router(port, LEASE_MS)
    s1 = rust.client(r1.endpoint)
    before = harness.Received()
    s1.declare_subscriber(KEY, before)

    p = children.probe("pub", "-m", "client", "-e", r1.endpoint, "-k", KEY, "-n", "0", "-i", "100", "-r",
                       "-t", "120000")
    routers_line(p, 1, 0, 10)
    before.wait(3, timeout=20, others=[p])

    lose_router(p, r1, how)
    mark = len(p.lines)
    r2 = children.router(port, LEASE_MS)
    routers_line(p, 1, mark, 30, others=[r2.proc])
    s2 = rust.client(r2.endpoint)
    after = harness.Received()
    s2.declare_subscriber(KEY, after)
    got = after.wait(3, timeout=20, others=[p, r2.proc])
    assert all(x["key"] == KEY for x in got)

    p.send("stop")
    assert p.wait_exit(15) == 0


@pytest.mark.parametrize("how", ["kill", "freeze"])
def test_zmote_subscriber_survives_router_restart(how, children, rust):
    port = harness.free_port()
    r1 = children.router(port, LEASE_MS)
    p = children.probe("sub", "-m", "client", "-e", r1.endpoint, "-k", "zm/rc/**", "-n", "0", "-r",
                       "-t", "120000")
    p.wait_line(r"^ready")
    routers_line(p, 1, 0, 10)
    s1 = rust.client(r1.endpoint)
    pub1 = s1.declare_publisher(KEY)
    harness.wait_matching(pub1, others=[p])
    pub1.put(b"before")
    harness.probe_samples(p, 1)

    lose_router(p, r1, how)
    mark = len(p.lines)
    r2 = children.router(port, LEASE_MS)
    routers_line(p, 1, mark, 30, others=[r2.proc])
    # A matching subscriber on the new router can only be zmote's, redeclared after reconnecting.
    s2 = rust.client(r2.endpoint)
    pub2 = s2.declare_publisher(KEY)
    harness.wait_matching(pub2, others=[p, r2.proc])
    pub2.put(b"after")
    got = harness.probe_samples(p, 2)
    assert got[1]["key"] == KEY and got[1]["head"] == b"after".hex()

    p.send("stop")
    assert p.wait_exit(15) == 0


@pytest.mark.parametrize("cc", ["drop", "block"])
def test_flooding_zmote_publisher_survives_frozen_router(cc, children, rust):
    port = harness.free_port()
    r1 = children.router(port, LEASE_MS)
    s1 = rust.client(r1.endpoint)
    before = harness.Counter()
    s1.declare_subscriber(KEY, before)

    # -q 1000: one "put" line per thousand puts.
    p = children.probe("pub", "-m", "client", "-e", r1.endpoint, "-k", KEY, "-n", "0", "-s", "1024", "-q", "1000",
                       "-r", "-t", "120000", *(["-b"] if cc == "block" else []))
    routers_line(p, 1, 0, 10)
    before.wait_for(1000, 20, others=[p])

    lose_router(p, r1, "freeze")
    # Publishing did not hang: puts go on after the loss, with no router to send to.
    mark = len(p.lines)
    harness.wait_until(lambda: harness.put_lines(p, mark) >= 2, 10, "publishing after the router was lost", [p])

    mark = len(p.lines)
    r2 = children.router(port, LEASE_MS)
    routers_line(p, 1, mark, 30, others=[r2.proc])
    s2 = rust.client(r2.endpoint)
    after = harness.Counter()
    s2.declare_subscriber(KEY, after)
    after.wait_for(1000, 20, others=[p, r2.proc])

    p.send("stop")
    assert p.wait_exit(15) == 0
