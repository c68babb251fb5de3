"""Shared machinery of the interop tests: zmote programs and Rust routers as child processes
whose output is awaited line by line, in-process Rust nodes (the eclipse-zenoh binding), and
the byte pattern zm_probe publishes and checks.

Every wait has a deadline and fails with the output of the processes involved, so a failure
says what each side saw. Each child runs in its own process group, and only those groups are
ever signalled.
"""
import array
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

import zenoh

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def bin_dir() -> str:
    """Folder of the zmote programs: $ZMOTE_BIN_DIR, else build/debug/examples."""
    d = os.environ.get("ZMOTE_BIN_DIR", os.path.join("build", "debug", "examples"))
    return d if os.path.isabs(d) else os.path.join(ROOT, d)


def program(name: str) -> str:
    path = os.path.join(bin_dir(), name)
    if not os.access(path, os.X_OK):
        raise AssertionError(f"{path} is missing: build zmote first (or set ZMOTE_BIN_DIR)")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def endpoint(port: int) -> str:
    return f"tcp/127.0.0.1:{port}"


def wait_listening(port: int, timeout: float, proc=None) -> None:
    """Waits until something listens on the TCP port (the kernel's table, no connection made),
    for programs that print nothing when ready; fails after timeout or if proc exits."""
    deadline = time.monotonic() + timeout
    want = f":{port:04X} "
    while time.monotonic() < deadline:
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                with open(table) as f:
                    # state 0A is LISTEN
                    if any(want in line and line.split()[3] == "0A" for line in f.readlines()[1:]):
                        return
            except OSError:
                pass
        if proc is not None and proc.p.poll() is not None:
            raise AssertionError(f"{proc.name} exited before listening on {port}\n{proc.describe()}")
        time.sleep(0.02)  # the kernel's table has no event to wait on
    raise AssertionError(f"nothing listens on port {port} after {timeout}s")


# ---- scouting ---------------------------------------------------------------------------------


def require_netns():
    """Fails the calling test outside scripts/netns.sh: what sends multicast runs only there."""
    if os.environ.get("ZM_NETNS") != "1":
        raise AssertionError("this test sends multicast: run it inside scripts/netns.sh "
                             "(scripts/interop.sh and scripts/check-cxx.sh do)")


def pico_hello_line(zid, whatami, locators) -> str:
    """The line zenoh-pico's z_scout prints for a node (zid as Rust prints it): its zid's
    little-endian bytes up to the last nonzero one, its kind, its locators."""
    raw = int(str(zid), 16).to_bytes(16, "little").rstrip(b"\0")
    locs = ", ".join(f'"{x}"' for x in locators)
    return f'Hello {{ zid: Some({raw.hex().upper()}), whatami: "{whatami}", locators: [{locs}] }}'


# ---- the pattern ------------------------------------------------------------------------------


def pattern(seq: int, size: int) -> bytes:
    """zm_probe's payload for sample number seq: little-endian u32 words ((seq % 256) << 24) + k."""
    base = (seq & 0xFF) << 24
    words = array.array("I", range(base, base + (size + 3) // 4))
    assert words.itemsize == 4
    if sys.byteorder == "big":
        words.byteswap()
    return words.tobytes()[:size]


def first_difference(got: bytes, want: bytes) -> str:
    if len(got) != len(want):
        return f"length {len(got)} instead of {len(want)}"
    for i, (a, b) in enumerate(zip(got, want)):
        if a != b:
            return f"byte {i} is {a:#04x} instead of {b:#04x}"
    return "identical"


# ---- child processes --------------------------------------------------------------------------


class Proc:
    """A child process in its own process group; stdout and stderr are collected as lines."""

    def __init__(self, argv, name=None, stdin=True):
        self.name = name or os.path.basename(argv[0])
        self.argv = [str(a) for a in argv]
        self.lines = []
        self.cond = threading.Condition()
        self.eof = False
        self.p = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.p.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            with self.cond:
                self.lines.append(line)
                self.cond.notify_all()
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def output(self) -> str:
        with self.cond:
            return "\n".join(self.lines)

    def describe(self) -> str:
        return f"--- {self.name} ({' '.join(self.argv)}):\n{self.output()}\n--- end of {self.name}"

    def _fail(self, what, others=()):
        text = [f"{self.name}: {what}", self.describe()]
        text += [o.describe() for o in others if o is not None]
        raise AssertionError("\n".join(text))

    def matches(self, regex):
        r = re.compile(regex)
        with self.cond:
            return [m for m in (r.search(line) for line in self.lines) if m]

    def wait_lines(self, regex, count=1, timeout=20.0, others=()):
        """Waits until count lines match regex; returns their matches."""
        r = re.compile(regex)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                found = [m for m in (r.search(line) for line in self.lines) if m]
                if len(found) >= count:
                    return found[:count] if count > 0 else found
                left = deadline - time.monotonic()
                if left <= 0:
                    self._fail(f"{len(found)} of {count} lines matching {regex!r} after {timeout}s", others)
                if self.eof:
                    self._fail(f"exited ({self.p.poll()}) with {len(found)} of {count} lines matching {regex!r}",
                               others)
                self.cond.wait(min(left, 0.5))

    def wait_line(self, regex, timeout=20.0, others=()):
        return self.wait_lines(regex, 1, timeout, others)[0]

    def send(self, line: str):
        try:
            self.p.stdin.write((line + "\n").encode())
            self.p.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def close_stdin(self):
        try:
            self.p.stdin.close()
        except (BrokenPipeError, ValueError, AttributeError):
            pass

    def wait_exit(self, timeout=20.0, others=()) -> int:
        try:
            rc = self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self._fail(f"still running after {timeout}s", others)
        self.reader.join(5)
        return rc

    def signal(self, sig):
        try:
            os.killpg(self.p.pid, sig)
        except ProcessLookupError:
            pass

    def stop(self):
        """Ends the process group: SIGTERM, then SIGKILL after 3 s."""
        if self.p.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.p.wait(3)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.p.wait(5)
        self.close_stdin()
        self.reader.join(5)


class Router:
    """The Rust router (tests/interop/router.py) as a child process on a fixed port; with
    scout_iface, it answers multicast SCOUTs on that interface."""

    def __init__(self, port=None, lease_ms=None, scout_iface=None):
        self.port = port or free_port()
        self.endpoint = endpoint(self.port)
        self.lease_ms = lease_ms
        self.scout_iface = scout_iface
        self.proc = None
        self.zid = None

    def start(self, timeout=20.0):
        argv = [sys.executable, os.path.join(HERE, "router.py"), self.endpoint]
        if self.lease_ms:
            argv += ["--lease-ms", str(self.lease_ms)]
        if self.scout_iface:
            argv += ["--scout-iface", self.scout_iface]
        # The port of a router just killed can take a moment to be free again.
        deadline = time.monotonic() + timeout
        while True:
            self.proc = Proc(argv, name=f"router:{self.port}")
            try:
                m = self.proc.wait_line(r"^ready (\w+)", timeout=max(1.0, deadline - time.monotonic()))
                self.zid = m.group(1)
                return self
            except AssertionError:
                self.proc.stop()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def stop(self):
        """Closes the router's stdin, on which it closes its session and exits at once (a SIGTERM
        takes it a second, over hundreds of tests); if it does not, Proc.stop."""
        if self.proc is not None:
            self.proc.close_stdin()
            try:
                self.proc.p.wait(3)
            except subprocess.TimeoutExpired:
                pass
            self.proc.stop()


# ---- zmote programs ---------------------------------------------------------------------------


def zm(name, *args, stdin=True) -> Proc:
    return Proc([program(name), *args], name=name, stdin=stdin)


def probe(*args) -> Proc:
    return Proc([program("zm_probe"), *args], name=f"zm_probe {args[0]}")


SAMPLE_LINE = re.compile(
    r"^sample sub=(?P<sub>\d+) n=(?P<n>\d+) key=(?P<key>\S*) kind=(?P<kind>\w+) len=(?P<len>\d+) "
    r"check=(?P<check>\S+) head=(?P<head>\S+) enc=(?P<enc>\S*) att=(?P<att>\S+) ts=(?P<ts>\S+) "
    r"prio=(?P<prio>\d+) express=(?P<express>[01]) cc=(?P<cc>\w+)(?: rt=(?P<rt>\d+))?$")


def probe_samples(p: Proc, count: int, timeout=30.0, sub=None, others=()):
    """Waits for count sample lines (of subscriber sub, or of any) and returns their fields."""
    regex = r"^sample " if sub is None else rf"^sample sub={sub} "
    p.wait_lines(regex, count, timeout, others)
    out = []
    for m in p.matches(regex):
        full = SAMPLE_LINE.match(m.string)
        if full is None:
            raise AssertionError(f"malformed sample line: {m.string!r}\n{p.describe()}")
        out.append(full.groupdict())
    return out


# ---- Rust nodes in this process ---------------------------------------------------------------


def rust_config(mode, connect=(), listen=()):
    conf = {
        "mode": mode,
        "scouting": {"multicast": {"enabled": False}, "gossip": {"enabled": False}},
    }
    if connect:
        conf["connect"] = {"endpoints": list(connect)}
    if listen:
        conf["listen"] = {"endpoints": list(listen)}
    return zenoh.Config.from_json5(json.dumps(conf))


class Received:
    """A Rust subscriber's callback: keeps what each sample carried, and lets tests await them."""

    def __init__(self):
        self.items = []
        self.cond = threading.Condition()

    def __call__(self, sample):
        att = sample.attachment
        item = {
            "key": str(sample.key_expr),
            "kind": sample.kind,
            "payload": sample.payload.to_bytes(),
            "encoding": str(sample.encoding),
            "attachment": None if att is None else att.to_bytes(),
            "timestamp": None if sample.timestamp is None else str(sample.timestamp),
            "priority": sample.priority,
            "express": sample.express,
            "congestion_control": sample.congestion_control,
        }
        with self.cond:
            self.items.append(item)
            self.cond.notify_all()

    def wait(self, count, timeout=20.0, others=()):
        deadline = time.monotonic() + timeout
        with self.cond:
            while len(self.items) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    keys = [i["key"] for i in self.items]
                    text = [f"Rust subscriber: {len(self.items)} of {count} samples after {timeout}s: {keys}"]
                    text += [o.describe() for o in others if o is not None]
                    raise AssertionError("\n".join(text))
                self.cond.wait(min(left, 0.5))
            return list(self.items)

    def snapshot(self):
        with self.cond:
            return list(self.items)


def wait_until(predicate, timeout, what, others=()):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            text = [f"not {what} after {timeout}s"] + [o.describe() for o in others if o is not None]
            raise AssertionError("\n".join(text))
        time.sleep(0.02)


def rss_kb(pid: int) -> int:
    """The resident memory of process pid, in kB (VmRSS)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def small_asan_quarantine(monkeypatch):
    """For a test that bounds a zmote program's VmRSS: ASan keeps freed blocks in a quarantine
    (256 MB by default), which VmRSS would count as held. Programs started after this call keep
    at most 4 MB there, so that VmRSS shows what zmote holds."""
    asan = os.environ.get("ASAN_OPTIONS", "")
    option = "quarantine_size_mb=4"
    monkeypatch.setenv("ASAN_OPTIONS", f"{asan}:{option}" if asan else option)


def router_took(session):
    """Returns once the router has taken all that session, its client, sent it so far: a liveliness
    get goes after it on the same link (declarations go at a priority at least as high, data at the
    same), and the router's final response to the get comes back only once it has handled them.
    Without it, a zmote node that starts at once may meet a router that does not know them yet."""
    list(session.liveliness().get("zm/router/took", timeout=10))


def wait_matching(publisher, timeout=20.0, others=()):
    """Until the Rust publisher knows of a matching subscriber (an event, polled)."""
    wait_until(lambda: matching(publisher), timeout, "matching", others)


def matching(publisher) -> bool:
    return publisher.matching_status.matching


def z_info_lines(info, timeout=20.0, others=()):
    """The lines z_info printed before its connectivity part, once it exited with 0: a build with
    Z_FEATURE_CONNECTIVITY then lists its transports and prints their events until SIGINT, as
    zenoh-pico's z_info does, and is interrupted here."""
    marker = "Press CTRL-C to quit..."
    wait_until(lambda: info.p.poll() is not None or marker in info.output().splitlines(), timeout,
               "z_info done", others=[info, *others])
    if info.p.poll() is None:
        info.signal(signal.SIGINT)
    assert info.wait_exit(timeout, others) == 0, info.describe()
    lines = info.output().splitlines()
    return lines[:lines.index("Connected transports:")] if "Connected transports:" in lines else lines


def zid_text(z) -> str:
    """A zenoh id as hex without leading zeros, the form both sides agree on."""
    return str(z).lower().lstrip("0")


PRIORITIES = {
    1: zenoh.Priority.REAL_TIME,
    2: zenoh.Priority.INTERACTIVE_HIGH,
    3: zenoh.Priority.INTERACTIVE_LOW,
    4: zenoh.Priority.DATA_HIGH,
    5: zenoh.Priority.DATA,
    6: zenoh.Priority.DATA_LOW,
    7: zenoh.Priority.BACKGROUND,
}


class Counter:
    """A Rust subscriber's callback that only counts: a flood would drown a Received."""

    def __init__(self):
        self.n = 0
        self.cond = threading.Condition()

    def __call__(self, sample):
        with self.cond:
            self.n += 1
            self.cond.notify_all()

    def value(self):
        with self.cond:
            return self.n

    def wait_for(self, n, timeout, what="", others=()):
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.n < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    text = [f"Rust subscriber: {self.n} of {n} samples after {timeout}s {what}"]
                    text += [o.describe() for o in others if o is not None]
                    raise AssertionError("\n".join(text))
                self.cond.wait(min(left, 0.5))
            return self.n


def put_lines(p: Proc, mark=0) -> int:
    """How many "put" lines p (zm_probe pub) printed after its first mark lines."""
    with p.cond:
        return sum(1 for line in p.lines[mark:] if line.startswith("put "))
