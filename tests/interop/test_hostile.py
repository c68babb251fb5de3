"""A zmote peer against hostile or broken peers: idle and half-open connections must not starve
its accept, squatters must not keep real peers out, a declaration storm and invalid keys must
cost the attacker its link and nobody else anything, a stopped subscriber must not stall a
publisher, and a busy publisher must not expire an idle but live peer.

The attacker is tests/interop/zm_attack (see its usage); the zmote nodes are zm_probe in peer
mode, the honest Rust peers eclipse-zenoh sessions in this process. Bounds in asserts are the
behaviour being tested (a handshake within about a round trip, a lease, a storm cut short),
taken generously for a loaded 2-core machine. ZMOTE_SOAK=0 skips the 60 s soak test.
"""
import os
import re
import signal
import threading
import time

import pytest

import harness
from harness import endpoint

# Bounds of time under load: run alone (scripts/interop.sh), not beside other tests.
pytestmark = pytest.mark.serial

CLOSE_INVALID = 2
CLOSE_MAX_SESSIONS = 3
LEASE_S = 10.0  # zmote's ZM_LEASE_MS, and Rust's default lease
KEEP_ALIVE_S = LEASE_S / 4
BLOCK_S = 5.0  # how long BLOCK waits on a peer that does not read before its link is dead
SLACK_S = 3.0  # scheduling slack on a loaded machine, on top of the bound being tested


# ---- helpers ------------------------------------------------------------------------------------


def attack(children, ep, mode, *args, timeout_ms=60000):
    return children.zm("zm_attack", "-e", ep, "-t", str(timeout_ms), mode, *args)


def end_attack(a):
    a.send("stop")
    assert a.wait_exit(15) == 0, a.describe()


def zmote_peer_sub(children, port, *args):
    """zm_probe sub in peer mode listening on port, until stopped; waits until it listens."""
    p = children.probe("sub", "-m", "peer", "-l", endpoint(port), "-n", "0", "-t", "180000", *args)
    p.wait_line(r"^ready")
    harness.wait_listening(port, 10, p)
    return p


def line_within(p, regex, mark, window):
    """The first line matching regex printed after mark lines within window seconds, or None:
    for what must NOT happen during an observation window."""
    r = re.compile(regex)
    deadline = time.monotonic() + window
    with p.cond:
        while True:
            for line in p.lines[mark:]:
                m = r.search(line)
                if m:
                    return m
            left = deadline - time.monotonic()
            if left <= 0 or p.eof:
                return None
            p.cond.wait(min(left, 0.5))


def line_after(p, regex, mark, timeout, others=()):
    """Waits for a line matching regex among those p printed after its first mark lines."""
    m = line_within(p, regex, mark, timeout)
    if m is None:
        text = [f"{p.name}: no line matching {regex!r} within {timeout}s", p.describe()]
        text += [o.describe() for o in others if o is not None]
        raise AssertionError("\n".join(text))
    return m


def wait_connection_gone(local_port, remote_port, timeout, others=()):
    """Until the kernel holds no open connection from local_port to remote_port: the process
    listening on local_port has closed its side of it (an event with nothing to wait on)."""
    want_local = f":{local_port:04X}"
    want_remote = f":{remote_port:04X}"

    def present():
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                with open(table) as f:
                    for line in f.readlines()[1:]:
                        cols = line.split()
                        # 01 ESTABLISHED, 08 CLOSE_WAIT: the socket is still open on that side
                        if (cols[1].endswith(want_local) and cols[2].endswith(want_remote)
                                and cols[3] in ("01", "08")):
                            return True
            except OSError:
                pass
        return False

    harness.wait_until(lambda: not present(), timeout, f"closed {local_port}->{remote_port}", others)


def rust_publisher(rust, ep, key, others=()):
    """A Rust peer connected to ep with a publisher on key, once it matches zmote's subscriber."""
    s = rust.peer(connect=[ep])
    pub = s.declare_publisher(key)
    harness.wait_matching(pub, timeout=20, others=others)
    return s, pub


# ---- a. accept cannot be starved ----------------------------------------------------------------


def test_accept_not_starved_by_idle_and_half_open(children, rust):
    key = "zm/hostile/starve"
    sync = "zm/hostile/starve/sync"
    port = harness.free_port()
    ep = endpoint(port)
    sub = zmote_peer_sub(children, port, "-k", key, "-S", sync)
    idle = attack(children, ep, "idle", "50")
    idle.wait_line(r"^ready", 20)
    half = attack(children, ep, "half-init", "5")
    half.wait_line(r"^ready", 20)
    others = [sub, idle, half]

    # A Rust peer: session opened, zmote's subscriber known, one sample printed.
    t0 = time.monotonic()
    s, pub = rust_publisher(rust, ep, key, others)
    pub.put(b"rust")
    sub.wait_line(rf"^sample .* key={key} .*head={b'rust'.hex()} ", 20, others)
    rust_s = time.monotonic() - t0
    assert rust_s <= 1.0, f"the Rust peer's first sample took {rust_s:.2f}s\n{idle.describe()}\n{half.describe()}"

    # A zmote peer: process started, handshake, declarations, one sample printed.
    t1 = time.monotonic()
    zpub = children.probe("pub", "-m", "peer", "-e", ep, "-k", key, "-n", "1", "-S", sync, "-W", "-t", "30000")
    sub.wait_line(r"^sync$", 20, others + [zpub])
    zpub.send("go")
    harness.probe_samples(sub, 2, timeout=20, others=others + [zpub])
    zmote_s = time.monotonic() - t1
    print(f"first sample through 50 idle and 5 half-open connections: Rust peer {rust_s:.3f}s, zmote peer {zmote_s:.3f}s")
    assert zmote_s <= 1.0, f"the zmote peer's first sample took {zmote_s:.2f}s\n{zpub.describe()}"

    zpub.send("stop")
    assert zpub.wait_exit(15) == 0
    end_attack(idle)
    end_attack(half)


# ---- b. squatters are evicted -------------------------------------------------------------------


def test_squatters_make_room_for_a_real_peer(children, rust):
    key = "zm/hostile/squat"
    port = harness.free_port()
    ep = endpoint(port)
    sub = zmote_peer_sub(children, port, "-k", key)
    squat = attack(children, ep, "squat", "8", "-L", str(2**32 - 1))  # 49 days
    squat.wait_line(r"^ready", 45, [sub])
    opened = squat.matches(r"^open \d+ ")
    assert len(opened) == 8, f"{len(opened)} of 8 squatters got through the handshake\n{squat.describe()}"

    s, pub = rust_publisher(rust, ep, key, [sub, squat])
    pub.put(b"real")
    sub.wait_line(rf"^sample .* key={key} .*head={b'real'.hex()} ", 10, [squat])
    squat.wait_line(rf"^close \d+ reason={CLOSE_MAX_SESSIONS} ", 5, [sub])
    end_attack(squat)


# ---- c. declaration storm -----------------------------------------------------------------------


class Ticker:
    """Publishes "seq send_time" every period from a thread; remembers when each went out."""

    def __init__(self, pub, period=0.01):
        self.pub = pub
        self.period = period
        self.sent = {}  # seq -> wall-clock send time (s)
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        seq = 0
        next_at = time.monotonic()
        while not self.done.is_set():
            now = time.time()
            self.pub.put(f"{seq} {now:.6f}".encode())
            with self.lock:
                self.sent[seq] = now
            seq += 1
            next_at += self.period
            self.done.wait(max(0.0, next_at - time.monotonic()))

    def start(self):
        self.thread.start()

    def stop(self):
        self.done.set()
        self.thread.join(5)

    def sent_between(self, t_from, t_to):
        with self.lock:
            return {q: t for q, t in self.sent.items() if t_from <= t <= t_to}


def received_ticks(p):
    """seq -> delay (s) of every tick zm_probe -w printed."""
    out = {}
    for m in p.matches(r"^sample "):
        f = harness.SAMPLE_LINE.match(m.string)
        if f is None or f["rt"] is None:
            continue
        seq, sent = bytes.fromhex(f["head"]).decode().split()
        out[int(seq)] = int(f["rt"]) / 1e6 - float(sent)
    return out


def test_declaration_storm(children, rust, monkeypatch):
    harness.small_asan_quarantine(monkeypatch)
    key = "zm/hostile/tick"
    port = harness.free_port()
    ep = endpoint(port)
    sub = zmote_peer_sub(children, port, "-k", key, "-w")
    s, pub = rust_publisher(rust, ep, key, [sub])
    ticker = Ticker(pub)
    ticker.start()
    try:
        harness.probe_samples(sub, 20, timeout=20)
        rss_before = harness.rss_kb(sub.p.pid)

        storm_from = time.time()
        storm = attack(children, ep, "storm", "-n", "100000", timeout_ms=30000)
        m = storm.wait_line(r"^storm written=(\d+) .*close=(\w+) final=(\w+) elapsed=(-?\d+)$", 40, [sub])
        written, close, final, elapsed = m.group(1), m.group(2), m.group(3), int(m.group(4))
        # samples keep flowing while the storm is on and for a moment after it
        time.sleep(1.0)  # observation window
        window_to = time.time()
    finally:
        ticker.stop()

    port_line = storm.wait_line(r"^open 0 port=(\d+) ")
    end_attack(storm)
    print(f"storm: written={written} close={close} final={final} elapsed={elapsed}ms")
    # Every part is checked, then all failures are reported together: they tell apart a slow
    # storm, a stalled subscriber and a leak.
    failures = []
    if not 0 <= elapsed <= 2000:
        failures.append(f"the storm was not over within 2 s (elapsed={elapsed} ms, close={close}, final={final})")
    if not (close == str(CLOSE_INVALID) or (close == "none" and final == "yes")):
        failures.append(f"the storm ended with close={close} final={final}, not CLOSE INVALID nor absorbed")

    # Every tick of the window arrived, each within 100 ms of being sent.
    window = ticker.sent_between(storm_from, window_to)
    assert len(window) > 50
    last = max(window)
    try:
        harness.wait_until(lambda: last in received_ticks(sub), 10, f"tick {last} received")
    except AssertionError as e:
        failures.append(str(e))
    got = received_ticks(sub)
    missing = sorted(q for q in window if q not in got)
    late = {q: round(got[q] * 1000, 1) for q in window if q in got and got[q] > 0.1}
    delays = [got[q] for q in window if q in got]
    if delays:
        print(f"storm: {len(delays)} ticks in the window, largest delay {max(delays) * 1000:.1f} ms")
    if missing:
        failures.append(f"{len(missing)} of {len(window)} ticks lost during the storm: {missing[:20]}")
    if late:
        failures.append(f"{len(late)} of {len(window)} ticks later than 100 ms (ms): {dict(list(late.items())[:20])}")

    # The attacker's state is gone with it: memory back where it was.
    wait_connection_gone(port, int(port_line.group(1)), LEASE_S + SLACK_S, [sub])
    n = len(sub.matches(r"^sample "))
    pub.put(f"{10**9} {time.time():.6f}".encode())
    harness.probe_samples(sub, n + 1, timeout=10)
    rss_after = harness.rss_kb(sub.p.pid)
    print(f"zmote VmRSS: {rss_before} kB before, {rss_after} kB after")
    if rss_after - rss_before > 1024:
        failures.append(f"VmRSS grew from {rss_before} kB to {rss_after} kB")
    assert not failures, "\n".join(failures + [storm.describe()])


# ---- d. invalid key expressions -----------------------------------------------------------------


@pytest.mark.parametrize("bad", [["demo/a//b"], ["-K", "65535"]], ids=["empty-chunk", "64KB"])
def test_invalid_key_closes_the_link(bad, children, rust):
    port = harness.free_port()
    ep = endpoint(port)
    sub = zmote_peer_sub(children, port, "-k", "**")
    a = attack(children, ep, "badkey", *bad, timeout_ms=20000)
    a.wait_line(r"^ready", 20, [sub])
    closes = a.matches(r"^close 0 reason=(\d+)")
    assert closes and closes[0].group(1) == str(CLOSE_INVALID), f"no CLOSE INVALID\n{a.describe()}"
    end_attack(a)

    s, pub = rust_publisher(rust, ep, "demo/good", [sub])
    pub.put(b"good")
    sub.wait_line(rf"^sample .* key=demo/good .*head={b'good'.hex()} ", 10)
    assert not sub.matches(rf"^sample .*head={b'hostile'.hex()} "), "the invalid key reached the subscriber"


# ---- e. a stopped subscriber under a flood ------------------------------------------------------


def wait_puts(p, mark, count, timeout, what, others=()):
    """Until p printed count "put" lines after mark: with -q 1000, count thousand puts."""
    harness.wait_until(lambda: harness.put_lines(p, mark) >= count, timeout, what, [p, *others])


@pytest.mark.parametrize("cc", ["drop", "block"])
def test_stopped_subscriber_does_not_stall_a_flood(cc, children, rust):
    key = "zm/hostile/flood"
    port = harness.free_port()
    ep = endpoint(port)
    pub = children.probe("pub", "-m", "peer", "-l", ep, "-k", key, "-n", "0", "-s", "1024", "-q", "1000",
                         "-y", "-t", "120000", *(["-b"] if cc == "block" else []))
    pub.wait_line(r"^ready")
    harness.wait_listening(port, 10, pub)
    s = rust.peer(connect=[ep])
    live = harness.Counter()
    s.declare_subscriber(key, live)
    victim = children.probe("sub", "-m", "peer", "-e", ep, "-k", key, "-n", "0", "-q", "1000", "-t", "120000")
    victim.wait_line(r"^sample ", 20, [pub])
    live.wait_for(100, 20, others=[pub])
    pub.wait_line(r"^peers 2 ", 10)
    mark = len(pub.lines)
    others = [victim]
    wait_puts(pub, mark, 5, 10, "publishing to two subscribers", others)

    mark = len(pub.lines)
    victim.signal(signal.SIGSTOP)
    t_stop = time.monotonic()
    try:
        if cc == "drop":
            # DROP: publishing goes on, and the live subscriber receives, while the other does not
            # read. The first second lets the buffers that were in flight drain.
            time.sleep(1.0)  # observation window
            c0, p0 = live.value(), harness.put_lines(pub)
            time.sleep(2.0)  # observation window
            grown, puts = live.value() - c0, harness.put_lines(pub) - p0
            assert puts >= 2, f"the publisher put {puts}k samples in 2 s beside a stopped subscriber\n{pub.describe()}"
            assert grown >= 300, f"the live subscriber got {grown} samples in 2 s beside a stopped one"
            bound = LEASE_S + KEEP_ALIVE_S + SLACK_S
        else:
            bound = BLOCK_S + SLACK_S
        line_after(pub, r"^peers 1 ", mark, max(1.0, bound - (time.monotonic() - t_stop)), others)
        print(f"{cc}: the stopped subscriber's link dropped after {time.monotonic() - t_stop:.1f}s")

        # The publisher goes on, and the live subscriber gets its samples again.
        mark = len(pub.lines)
        c1 = live.value()
        live.wait_for(c1 + 300, 10, "after the stopped peer was dropped", [pub, *others])
        wait_puts(pub, mark, 2, 10, "publishing after the stopped peer was dropped", others)
    finally:
        victim.signal(signal.SIGCONT)
    pub.send("stop")
    assert pub.wait_exit(15) == 0


# ---- f. a busy publisher keeps its idle peers -----------------------------------------------------


@pytest.mark.skipif(os.environ.get("ZMOTE_SOAK", "1") == "0", reason="ZMOTE_SOAK=0")
def test_busy_publisher_keeps_an_idle_peer(children, rust):
    key = "zm/hostile/soak"
    duration = 60.0
    port = harness.free_port()
    ep = endpoint(port)
    pub = children.probe("pub", "-m", "peer", "-l", ep, "-k", key, "-n", "0", "-s", "30000", "-q", "100",
                         "-y", "-t", "180000")
    pub.wait_line(r"^ready")
    harness.wait_listening(port, 10, pub)
    pub_zid = pub.wait_line(r"^zid (\w+)").group(1)
    busy = children.probe("sub", "-m", "peer", "-e", ep, "-k", key, "-n", "0", "-q", "100", "-y", "-t", "180000")
    busy.wait_line(r"^sample ", 20, [pub])
    # The Rust peer only ever sends keep-alives to the publisher; it receives the flood too.
    s = rust.peer(connect=[ep])
    idle = harness.Counter()
    s.declare_subscriber(key, idle)
    idle.wait_for(1, 20, others=[pub])
    pub.wait_line(r"^peers 2 ", 10)
    mark = len(pub.lines)

    c0 = idle.value()
    lost = line_within(pub, r"^peers [01] ", mark, duration)
    assert lost is None, f"the publisher lost a peer while busy: {lost.string}\n{pub.describe()}"
    puts = harness.put_lines(pub, mark)
    print(f"soak: {puts * 100} puts of 30 KB, {idle.value() - c0} received by the Rust peer")
    assert puts >= 10, f"the publisher was not busy: {puts * 100} puts in {duration}s\n{pub.describe()}"
    assert not busy.matches(r"^peers 0 "), busy.describe()
    peers = [harness.zid_text(z) for z in s.info.peers_zid()]
    assert harness.zid_text(pub_zid) in peers, f"the Rust peer lost the publisher: {peers}"
    c = idle.value()
    idle.wait_for(c + 1, 10, "at the end of the soak", [pub])
    pub.send("stop")
    assert pub.wait_exit(15) == 0
