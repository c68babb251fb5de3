"""Scouting against Rust Zenoh 1.10.2, over UDP multicast on the loopback interface of the
suite's own network namespace (scripts/netns.sh): every test here sends multicast, so each fails
at once when ZM_NETNS is not set rather than send it where it could leave the machine.

zmote's z_scout (examples/z_scout, and zenoh-pico's own z_scout.c compiled against zmote) finds
a Rust router and a Rust peer with their locators; a zmote client or peer without endpoints
finds the router by scouting and exchanges samples through it, and finds it again after it
restarts elsewhere; Rust's scout finds a zmote peer by the HELLO it answers, whose locator is a
real address that Rust then connects to; and bad scouting configurations, an unreachable group
and silence give clear result codes. zm_scout (tests/interop/zm_scout.c) prints those codes.

Scouting against a hostile network: HELLOs forged by the test (on a group port of the test's own,
so that no other node answers there) name a serial line, no locator at all, or listeners that
never answer a handshake, ahead of the real router's: the client opens no line, passes by what it
may not dial within a bounded time, and reaches the Rust router; a flood of SCOUTs gets a
zmote peer's answers at a bounded rate.
"""
import ctypes
import json
import os
import pty
import re
import select
import socket
import subprocess
import termios
import threading
import time

import pytest
import zenoh

import harness
from harness import endpoint, free_port, pattern

# zmote's result codes, as include/zmote/result.h has them
ZM_E_UNREACHABLE = -46
ZM_E_LOCATOR = -33
Z_ERR_SCOUT_NO_RESULTS = -87


@pytest.fixture(autouse=True)
def inside_netns():
    harness.require_netns()


@pytest.fixture
def scouting_sessions():
    """Rust sessions of this process with multicast scouting on lo; closed at teardown."""
    opened = []

    def open_session(mode, listen=()):
        conf = {"mode": mode, "scouting": {"multicast": {"enabled": True, "interface": "lo"},
                                           "gossip": {"enabled": False}}}
        if listen:
            conf["listen"] = {"endpoints": list(listen)}
        s = zenoh.open(zenoh.Config.from_json5(json.dumps(conf)))
        opened.append(s)
        return s

    yield open_session
    for s in reversed(opened):
        s.close()


def same_zid(a, b) -> bool:
    return int(str(a), 16) == int(str(b), 16)


hello_line = harness.pico_hello_line


def rust_scout(what, seconds):
    """Rust's scout on lo for seconds (its SCOUTs go at 0 and 1 s); every HELLO it got."""
    conf = zenoh.Config.from_json5(json.dumps({"scouting": {"multicast": {"enabled": True, "interface": "lo"}}}))
    seen = []
    scout = zenoh.scout(seen.append, what=what, config=conf)
    time.sleep(seconds)  # the scout's own duration: what came within it is the result
    scout.stop()
    return list(seen)


def spawn(children, argv, name):
    """A child process of any command, ended at teardown as the others are."""
    p = harness.Proc(argv, name=name)
    children.all.append(p)
    return p


# ---- z_scout ------------------------------------------------------------------------------------


def test_z_scout_finds_router_and_peer(children, scouting_sessions):
    r = children.router(scout_iface="lo")
    peer_ep = endpoint(free_port())
    peer = scouting_sessions("peer", listen=[peer_ep])
    p = children.zm("z_scout")
    assert p.wait_exit(20) == 0
    lines = p.output().splitlines()
    assert lines[0] == "Scouting..." and lines[-1] == "Dropping scout results.", p.describe()
    assert sorted(lines[1:-1]) == sorted([
        hello_line(r.zid, "Router", [r.endpoint]),
        hello_line(peer.zid(), "Peer", [peer_ep]),
    ]), p.describe()


def test_z_scout_what_and_timeout(children, scouting_sessions):
    r = children.router(scout_iface="lo")
    peer_ep = endpoint(free_port())
    peer = scouting_sessions("peer", listen=[peer_ep])
    # routers only, from the configuration; peers only, from z_scout_options_t
    for args, zid, whatami, ep in [(["-w", "1"], r.zid, "Router", r.endpoint),
                                   (["-n", "-w", "2", "-t", "1500"], peer.zid(), "Peer", peer_ep)]:
        t0 = time.monotonic()
        p = children.zm("zm_scout", *args)
        assert p.wait_exit(20) == 0
        took = time.monotonic() - t0
        found = p.matches(r"^hello zid=(\w+) whatami=(\w+) locators=(\S*)$")
        assert len(found) == 1, p.describe()
        assert same_zid(found[0].group(1), zid) and found[0].group(2) == whatami, p.describe()
        assert found[0].group(3) == ep
        p.wait_line(r"^scout rc=0 found=1 dropped=1$")
        assert took >= (1.5 if "-n" in args else 1.0)  # it lasts its whole timeout


# zenoh-pico's own z_scout.c, from a checkout named by ZM_PICO_DIR (none is fetched). Without one
# the test does not exist, as check-cxx.sh's zenoh-pico part (the suite counts a skipped test as
# failed: one whose far end is missing); scripts/interop.sh says so in its output.
PICO_SCOUT = os.path.join(os.environ.get("ZM_PICO_DIR", "/tmp/pico"), "examples", "unix", "c11", "z_scout.c")


def pico_z_scout_finds_router(children, tmp_path):
    src = PICO_SCOUT
    exe = tmp_path / "pico_z_scout"
    build = os.path.dirname(harness.bin_dir())
    cc, flags, libs = build_flags(build)
    cmd = [cc, "-std=c11", "-D_POSIX_C_SOURCE=200809L", *flags, "-I", os.path.join(harness.ROOT, "include"),
           "-I", os.path.join(harness.ROOT, "port", "posix"), src, os.path.join(build, "libzmote.a"), *libs,
           "-lpthread", "-o", str(exe)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{' '.join(cmd)}\n{done.stdout}{done.stderr}"

    r = children.router(scout_iface="lo")
    p = spawn(children, [str(exe)], "zenoh-pico z_scout")
    assert p.wait_exit(20) == 0
    assert p.output().splitlines() == [
        "Scouting...",
        hello_line(r.zid, "Router", [r.endpoint]),
        "Dropping scout results.",
    ], p.describe()


if os.path.isfile(PICO_SCOUT):
    def test_pico_z_scout_compiled_against_zmote(children, tmp_path):
        pico_z_scout_finds_router(children, tmp_path)


def build_flags(build):
    """The compiler, the flags and the libraries a program needs to link the library of the build
    tree: its sanitizers, the feature switches it was configured with, and with TLS the Mbed TLS
    it was built against (ZM_MBEDTLS_PREFIX's static libraries, or the system's)."""
    cache = {}
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            m = re.match(r"^([A-Za-z_0-9]+):\w+=(.*)$", line.strip())
            if m:
                cache[m.group(1)] = m.group(2)
    flags = []
    if cache.get("ZM_SANITIZE", "OFF").upper() in ("ON", "1", "TRUE"):
        flags += ["-fsanitize=address,undefined"]
    for key, value in cache.items():
        if key.startswith("Z_FEATURE_") and value in ("0", "1"):
            flags.append(f"-D{key}={value}")
    if cache.get("Z_FEATURE_UNSTABLE_API", "OFF").upper() in ("ON", "1", "TRUE"):
        flags.append("-DZ_FEATURE_UNSTABLE_API")
    libs = []
    if cache.get("Z_FEATURE_LINK_TLS") == "1":
        prefix = cache.get("ZM_MBEDTLS_PREFIX", "")
        for name in ("MBEDTLS", "MBEDX509", "MBEDCRYPTO"):
            lib = name.lower()
            system = cache.get(f"ZM_{name}_LIB", f"-l{lib}")
            libs.append(os.path.join(prefix, "lib", f"lib{lib}.a") if prefix else system)
    return cache.get("CMAKE_C_COMPILER", "cc"), flags, libs


# ---- sessions that find a router by scouting --------------------------------------------------------


def test_client_without_endpoint_reaches_router(children, rust):
    r = children.router(scout_iface="lo")
    s = rust.client(r.endpoint)
    got = harness.Received()
    s.declare_subscriber("demo/example/**", got)
    pub = children.zm("z_pub", "-n", "3")  # client mode, no -e: it scouts
    samples = got.wait(3, timeout=30, others=[pub, r.proc])
    assert pub.wait_exit(15) == 0
    assert [x["payload"] for x in samples] == [f"[{i:4d}] Pub from Pico!".encode() for i in range(3)]

    # a key the Rust subscriber above does not match: only z_sub's subscription can match it
    sub = children.zm("z_sub", "-k", "zm/scout/**", "-n", "2")
    sub.wait_line(r"^Press CTRL-C to quit\.\.\.$", others=[r.proc])
    p = s.declare_publisher("zm/scout/back")
    harness.wait_matching(p, others=[sub])
    for i in range(2):
        p.put(f"back {i}")
    assert sub.wait_exit(15) == 0
    assert sub.output().splitlines()[-2:] == [
        f">> [Subscriber] Received ('zm/scout/back': 'back {i}')" for i in range(2)]


def test_peer_without_endpoint_reaches_router(children, rust):
    r = children.router(scout_iface="lo")
    sub = children.zm("z_sub", "-m", "peer", "-n", "1")
    sub.wait_line(r"^Press CTRL-C to quit\.\.\.$", others=[r.proc])
    s = rust.client(r.endpoint)
    p = s.declare_publisher("demo/example/rust")
    harness.wait_matching(p, others=[sub])
    p.put("to a scouting peer")
    assert sub.wait_exit(15) == 0
    assert sub.output().splitlines()[-1] == ">> [Subscriber] Received ('demo/example/rust': 'to a scouting peer')"


def test_client_found_by_scouting_finds_router_again(children, rust):
    r1 = children.router(scout_iface="lo", lease_ms=2000)
    p = children.probe("sub", "-m", "client", "-k", "zm/scout/**", "-n", "0", "-r", "-t", "120000")
    p.wait_line(r"^routers 1 ", others=[r1.proc])
    r1.proc.signal(9)
    r1.proc.stop()
    p.wait_line(r"^routers 0 ", timeout=10)
    # anywhere else: only scouting can find it
    r2 = children.router(scout_iface="lo")
    p.wait_lines(r"^routers 1 ", 2, timeout=30, others=[r2.proc])
    s = rust.client(r2.endpoint)
    pub = s.declare_publisher("zm/scout/x")
    harness.wait_matching(pub, others=[p, r2.proc])
    pub.put(pattern(0, 8))
    got = harness.probe_samples(p, 1)
    assert (got[0]["key"], got[0]["check"]) == ("zm/scout/x", "ok")
    p.send("stop")
    assert p.wait_exit(15) == 0


# ---- a zmote peer answers SCOUTs ------------------------------------------------------------------


def test_rust_scout_finds_zmote_peer(children, rust):
    # listening on every address, port of the system's choosing: the HELLO says where it really is
    p = children.probe("sub", "-m", "peer", "-l", "tcp/0.0.0.0:0", "-k", "zm/scout/**", "-n", "1", "-t", "60000")
    zid = p.wait_line(r"^zid (\w+)$").group(1)
    p.wait_line(r"^ready$")
    # listening on loopback only: reachable from this machine only, it stays off the network
    quiet = children.probe("sub", "-m", "peer", "-l", endpoint(free_port()), "-k", "zm/q", "-n", "0", "-t", "60000")
    quiet_zid = quiet.wait_line(r"^zid (\w+)$").group(1)
    quiet.wait_line(r"^ready$")

    hellos = rust_scout("peer|router", 1.5)
    mine = [h for h in hellos if same_zid(h.zid, zid)]
    assert mine, f"no HELLO from {zid} in {[str(h) for h in hellos]}\n{p.describe()}"
    assert not [h for h in hellos if same_zid(h.zid, quiet_zid)]
    h = mine[0]
    assert h.whatami == zenoh.WhatAmI.PEER
    locs = [str(x) for x in h.locators]
    m = re.fullmatch(r"tcp/127\.0\.0\.1:(\d+)", locs[0]) if len(locs) == 1 else None
    assert m and int(m.group(1)) != 0, locs

    # the locator it announced is where Rust reaches it
    s = rust.peer(connect=[locs[0]])
    pub = s.declare_publisher("zm/scout/x", congestion_control=zenoh.CongestionControl.BLOCK)
    harness.wait_matching(pub, others=[p])
    pub.put(pattern(0, 64))
    got = harness.probe_samples(p, 1)
    assert (got[0]["key"], got[0]["len"], got[0]["check"]) == ("zm/scout/x", "64", "ok")
    assert p.wait_exit(15) == 0


def test_zmote_scout_finds_zmote_peer(children):
    p = children.zm("zm_scout", "-o", "-m", "peer", "-l", "tcp/0.0.0.0:0")
    zid = p.wait_line(r"^zid (\w+)$").group(1)
    p.wait_line(r"^ready$")
    s = children.zm("zm_scout", "-w", "2")
    assert s.wait_exit(20) == 0
    found = s.matches(rf"^hello zid={zid} whatami=Peer locators=tcp/127\.0\.0\.1:(\d+)$")
    assert len(found) == 1, s.describe()
    p.send("stop")
    assert p.wait_exit(15) == 0


# ---- errors: nothing answers, bad configurations, an unreachable group --------------------------------


def test_open_fails_when_nothing_answers(children):
    t0 = time.monotonic()
    p = children.zm("zm_scout", "-o", "-t", "500")
    p.wait_line(rf"^open rc={Z_ERR_SCOUT_NO_RESULTS}$", timeout=15)
    assert p.wait_exit(10) == 1
    assert time.monotonic() - t0 < 10  # the timeout ends it, not a hang


@pytest.mark.parametrize("locator", ["udp/10.0.0.1:7446", "udp/224.0.0.224", "udp/224.0.0.224:7446#iface=zmnosuch0"])
def test_bad_scouting_locator(locator, children):
    s = children.zm("zm_scout", "-L", locator)
    s.wait_line(rf"^scout rc={ZM_E_LOCATOR} found=0 dropped=1$")
    assert s.wait_exit(10) == 1
    o = children.zm("zm_scout", "-o", "-L", locator)
    o.wait_line(rf"^open rc={ZM_E_LOCATOR}$")
    assert o.wait_exit(10) == 1


def test_unreachable_group(children):
    """In a namespace of its own with lo down, no route leads to the group."""
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -n is not allowed here: no namespace without routes to test in")
    zm_scout = harness.program("zm_scout")
    s = spawn(children, ["unshare", "-n", zm_scout], "zm_scout (no route)")
    s.wait_line(rf"^scout rc={ZM_E_UNREACHABLE} found=0 dropped=1$")
    assert s.wait_exit(10) == 1
    o = spawn(children, ["unshare", "-n", zm_scout, "-o"], "zm_scout -o (no route)")
    o.wait_line(rf"^open rc={ZM_E_UNREACHABLE}$")
    assert o.wait_exit(10) == 1
    # a peer that cannot join the group still opens: it only leaves SCOUTs unanswered (as Rust)
    peer = spawn(children, ["unshare", "-n", zm_scout, "-o", "-m", "peer", "-l", "tcp/0.0.0.0:0"],
                 "peer (no route)")
    peer.wait_line(r"^open rc=0$")
    peer.wait_line(r"SCOUTs go unanswered")
    peer.send("stop")
    assert peer.wait_exit(10) == 0


# ---- a hostile network: forged HELLOs, a SCOUT flood ----------------------------------------------------

GROUP = "224.0.0.224"
WAI_ROUTER = 0  # a HELLO's whatami field
SCOUT_ANSWER_RATE = 10  # ZM_SCOUT_ANSWER_RATE's default (include/zmote/opt.h)
SCOUT_DIAL_MS = 4000  # ZM_SCOUT_DIAL_MS's default


def own_group():
    """A scouting group port of the test's own (the suite's other nodes scout on 7446) and the
    scouting locator that names it."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return port, f"udp/{GROUP}:{port}"


def zint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def hello(zid: bytes, locators, whatami=WAI_ROUTER) -> bytes:
    """A HELLO (protocol version 9): locators None leaves the L flag out, [] sets it with none."""
    out = bytes([0x02 | (0x20 if locators is not None else 0), 0x09, ((len(zid) - 1) << 4) | whatami]) + zid
    if locators is not None:
        out += zint(len(locators)) + b"".join(zint(len(x)) + x.encode() for x in locators)
    return out


def zid_bytes(zid) -> bytes:
    """A zid as Rust prints it, as the HELLO carries it: little-endian, trailing zeros left out."""
    return int(str(zid), 16).to_bytes(16, "little").rstrip(b"\0")


class Answerer:
    """A node of the group that answers each SCOUT with the given datagrams, in order, to its sender
    (the last of them as the real router's HELLO). Stopped at teardown."""

    def __init__(self, port, answers):
        self.answers = answers
        self.scouts = 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("", port))
        mreq = socket.inet_aton(GROUP) + socket.inet_aton("127.0.0.1")
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
        self.sock.settimeout(0.1)
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.done.is_set():
            try:
                data, src = self.sock.recvfrom(2048)
            except socket.timeout:
                continue
            if data and data[0] & 0x1F == 0x01:  # a SCOUT
                self.scouts += 1
                for d in self.answers:
                    self.sock.sendto(d, src)

    def stop(self):
        self.done.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def answerer():
    made = []

    def make(port, answers):
        a = Answerer(port, answers)
        made.append(a)
        return a

    yield make
    for a in made:
        a.stop()


class OpenWatch:
    """inotify on a file: whether anything opened it since the watch began (or the last look)."""
    IN_OPEN = 0x20

    def __init__(self, path):
        libc = ctypes.CDLL(None, use_errno=True)
        self.fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0, os.strerror(ctypes.get_errno())
        assert libc.inotify_add_watch(self.fd, path.encode(), self.IN_OPEN) >= 0, os.strerror(ctypes.get_errno())

    def opened(self) -> bool:
        try:
            return len(os.read(self.fd, 4096)) > 0
        except BlockingIOError:
            return False

    def close(self):
        os.close(self.fd)


def client_reaches(children, r, locator, *args):
    """zm_scout opens a client that scouts on locator; it must end connected to router r. How
    long its open took, in seconds."""
    t0 = time.monotonic()
    p = children.zm("zm_scout", "-o", "-L", locator, *args)
    p.wait_line(r"^open rc=0$", timeout=40, others=[r.proc])
    took = time.monotonic() - t0
    m = p.wait_line(r"^router (\w+)$")
    assert same_zid(m.group(1), r.zid), p.describe()
    p.send("stop")
    assert p.wait_exit(15) == 0
    return took, p


def test_forged_serial_hello_opens_no_line(children, answerer):
    """A HELLO that names a serial line of this machine, ahead of the router's: the line is never
    opened (inotify sees no open, so no exclusive lock was taken either), no INIT is written to it,
    its termios are untouched, and the client connects to the Rust router."""
    r = children.router()
    master, slave = pty.openpty()
    try:
        path = os.ttyname(slave)
        before = termios.tcgetattr(slave)
        watch = OpenWatch(path)
        os.close(os.open(path, os.O_RDWR | os.O_NOCTTY))
        assert watch.opened()  # the watch sees an open of the line
        port, locator = own_group()
        a = answerer(port, [hello(b"\x5a" * 8, [f"serial/{path}"]),
                            hello(zid_bytes(r.zid), [r.endpoint])])
        took, p = client_reaches(children, r, locator, "-t", "3000")
        assert a.scouts >= 1
        assert not watch.opened(), f"{path} was opened\n{p.describe()}"
        assert select.select([master], [], [], 0)[0] == [], f"bytes were written to {path}"
        assert termios.tcgetattr(slave) == before
        watch.close()
    finally:
        os.close(master)
        os.close(slave)


def test_hello_without_locators_is_passed_by(children, answerer):
    """HELLOs with no locator (a router listening on loopback only sends one), without the L flag
    and with an empty list, ahead of the router's: scouting goes on and reaches the router."""
    r = children.router()
    port, locator = own_group()
    answerer(port, [hello(b"\x33" * 8, None), hello(b"\x34" * 8, []), hello(zid_bytes(r.zid), [r.endpoint])])
    client_reaches(children, r, locator, "-t", "3000")


@pytest.mark.serial
def test_forged_hello_names_no_host_to_resolve(children, answerer):
    """A name that resolves to a listener that never answers a handshake, a name that resolves to
    nothing, a group, and links that are not tcp or udp, ahead of the router's: none is looked up
    nor dialled, so the client reaches the router at once (the first alone held it 10 s before)."""
    r = children.router()
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port, locator = own_group()
        forged = [f"tcp/localhost:{silent.getsockname()[1]}", "tcp/zm-no-such-host.invalid:7447",
                  f"udp/{GROUP}:7447", f"tls/127.0.0.1:{silent.getsockname()[1]}", "quic/127.0.0.1:7447"]
        answerer(port, [hello(b"\x5b" * 8, forged), hello(zid_bytes(r.zid), [r.endpoint])])
        took, p = client_reaches(children, r, locator, "-t", "3000")
    assert not [line for line in p.output().splitlines() if "handshake with" in line], p.describe()
    assert took < 8, f"{took:.1f} s\n{p.describe()}"


@pytest.mark.serial
def test_hello_of_silent_listeners_is_given_up_in_time(children, answerer):
    """A HELLO whose three locators accept a connection and never answer its handshake, ahead of
    the router's: they are tried for ZM_SCOUT_DIAL_MS in all (10 s each before), then the
    router's HELLO, taken though the scout's timeout went by meanwhile, is dialled."""
    r = children.router()
    silent = []
    try:
        for _ in range(3):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(8)  # connections complete in the backlog; nothing is ever read or answered
            silent.append(s)
        port, locator = own_group()
        answerer(port, [hello(b"\x5c" * 8, [endpoint(s.getsockname()[1]) for s in silent]),
                        hello(zid_bytes(r.zid), [r.endpoint])])
        took, p = client_reaches(children, r, locator, "-t", "1000")
        # its timeout (1 s) and the dial time (4 s), with a wide margin for a loaded machine;
        # each silent locator alone took 10 s before
        assert took < 1 + SCOUT_DIAL_MS / 1000 + 8, f"{took:.1f} s\n{p.describe()}"
    finally:
        for s in silent:
            s.close()


@pytest.mark.serial
def test_scout_flood_is_answered_at_a_bounded_rate(children):
    """A SCOUT flood (one source, as fast as it goes, for 2 s) to a zmote peer: at most a second's
    worth of HELLOs at once and ZM_SCOUT_ANSWER_RATE a second after that, the rest dropped; a
    SCOUT after a quiet second is answered again."""
    port, locator = own_group()
    p = children.zm("zm_scout", "-o", "-m", "peer", "-l", "tcp/0.0.0.0:0", "-L", locator)
    zid = p.wait_line(r"^zid (\w+)$").group(1)
    p.wait_line(r"^ready$")
    scout = bytes([0x01, 0x09, 0x03])  # routers and peers, no zid
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
        u.bind(("127.0.0.1", 0))
        u.setblocking(False)
        hellos = 0

        def take():
            nonlocal hellos
            while True:
                try:
                    data = u.recv(2048)
                except BlockingIOError:
                    return
                if data[0] & 0x1F == 0x02:
                    hellos += 1

        sent = 0
        t0 = time.monotonic()
        while time.monotonic() - t0 < 2.0:
            try:
                u.sendto(scout, (GROUP, port))
                sent += 1
            except BlockingIOError:
                pass
            if sent % 64 == 0:
                take()
        # the answers to the last SCOUTs read: the peer reads what is queued within a moment
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            select.select([u], [], [], end - time.monotonic())
            take()
        window = time.monotonic() - t0
        bound = SCOUT_ANSWER_RATE * (1 + window) + 2
        assert 1 <= hellos <= bound, f"{hellos} HELLOs for {sent} SCOUTs in {window:.1f} s\n{p.describe()}"
        assert sent > 20 * bound  # it was a flood
        p.wait_line(r"more than \d+ SCOUTs a second, the rest go unanswered")

        # after a quiet second, answered again
        time.sleep(1.2)  # the bucket fills with time: nothing to await but the clock
        take()
        u.setblocking(True)
        u.settimeout(5)
        u.sendto(scout, (GROUP, port))
        data = u.recv(2048)
        assert data[0] & 0x1F == 0x02
    p.send("stop")
    assert p.wait_exit(15) == 0


@pytest.mark.serial
def test_reconnect_by_scouting_ends_in_time_on_close(children, answerer):
    """A client found by scouting loses its router and scouts again, on its lease task: HELLOs
    now name listeners that never answer a handshake. Closing the session while it dials them
    returns within a bounded time (each of them held it 10 s before, one after the other)."""
    r = children.router(lease_ms=2000)
    silent = []
    try:
        for _ in range(3):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(8)
            silent.append(s)
        port, locator = own_group()
        a = answerer(port, [hello(zid_bytes(r.zid), [r.endpoint])])
        p = children.zm("zm_scout", "-o", "-L", locator, "-t", "1000")
        p.wait_line(r"^open rc=0$", others=[r.proc])
        m = p.wait_line(r"^router (\w+)$")
        assert same_zid(m.group(1), r.zid)
        a.answers = [hello(b"\x5d" * 8, [endpoint(s.getsockname()[1]) for s in silent])]
        r.proc.signal(9)
        r.proc.stop()
        # the client dials the first silent listener: a connection waits in its backlog
        assert select.select([silent[0]], [], [], 30)[0], p.describe()
        t0 = time.monotonic()
        p.send("stop")
        assert p.wait_exit(40) == 0
        took = time.monotonic() - t0
        assert took < 8, f"{took:.1f} s\n{p.describe()}"
    finally:
        for s in silent:
            s.close()
