"""The mps2-an386 firmware in QEMU (build it with scripts/firmware.sh; run with pytest -rP to see
its console): board-check proves the board, the tick and the bare-metal port's serial functions
over a host pseudo-terminal; zmote-mcu must fail cleanly with nobody on its serial link, and,
where a far end that speaks Zenoh over serial is at hand, publish to it and hear from it.

Far ends of the Zenoh UART, each a test that skips while it is missing:
  - zmote itself: tests/interop/zm_probe (POSIX build, $ZMOTE_BIN_DIR or build/debug/examples)
    as a peer listening on serial/<pty>, once this tree has the serial link (src/link/serial.c);
  - a Rust router with the serial link: $ZMOTE_SERIAL_ROUTER names its binary (the command
    `ROUTER serial/<pty>#baudrate=115200 tcp/127.0.0.1:PORT` prints a line starting "ready"),
    and a Python subscriber of the eclipse-zenoh binding (zenoh_far_end.py) joins it over TCP.
"""
import os
import re
import subprocess
import sys
import threading
import time

import pytest

from qemu import ROOT, Pty, Qemu, firmware

ECHO_XOR = 0x5A
MCU_KEY = "demo/example/zmote-mcu"
HOST_KEY = "demo/example/zmote-host/greeting"
PUT_COUNT = 10  # the firmware's ZM_FW_PUT_COUNT default
EXPECT = 5  # its ZM_FW_EXPECT default
EXIT_NO_SESSION = 8


def fnv1a(data: bytes) -> int:
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def memory_report(lines):
    """The firmware's "mem:" lines as {name: value}, after checking they are all there."""
    mem = {"pools": []}
    for line in lines:
        if line.startswith("mem: "):
            section, _, rest = line[5:].partition(" ")
            fields = dict(f.partition("=")[::2] for f in rest.split())
            if section == "pool":  # one line per pool of a no-heap build
                mem["pools"].append({k: int(v) for k, v in fields.items()})
                continue
            for k, v in fields.items():
                mem[f"{section}.{k}"] = int(v)
    for k in ("heap.peak", "heap.in_use", "heap.failures", "heap.sbrk", "stack.peak", "stack.size",
              "static.data", "static.bss", "uart0.rx_dropped"):
        assert k in mem, f"the firmware did not report {k}:\n" + "\n".join(lines)
    return mem


def check_memory(mem):
    # A stack that reached its end overwrote the heap; the painted words say it did not.
    assert 0 < mem["stack.peak"] < mem["stack.size"], mem
    assert mem["heap.failures"] == 0, mem
    assert mem["heap.in_use"] == 0, f"the library left blocks allocated after the session closed: {mem}"
    assert mem["heap.peak"] <= mem["heap.sbrk"], mem
    assert mem["uart0.rx_dropped"] == 0, mem
    for p in mem["pools"]:
        assert p["used"] == 0, f"the library left pool blocks in use after the session closed: {mem}"
        assert p["peak"] <= p["count"], mem
    pool_peak = sum(p["peak"] * p["size"] for p in mem["pools"])
    pool_size = sum(p["count"] * p["size"] for p in mem["pools"])
    print("firmware RAM: heap peak %d B (arena %d B), pools peak %d of %d B (%s), stack peak %d of %d B,"
          " .data %d B, .bss %d B"
          % (mem["heap.peak"], mem["heap.sbrk"], pool_peak, pool_size,
             " ".join("%dx%d/%d" % (p["size"], p["peak"], p["count"]) for p in mem["pools"]),
             mem["stack.peak"], mem["stack.size"], mem["static.data"], mem["static.bss"]))


def test_board_check():
    data = os.urandom(16384)  # 16 times the firmware's RX ring
    with Qemu(firmware("board-check"), timeout=90) as q, Pty(q.pty_path) as pty:
        boot, _ = q.wait_line(r"^check: boot")
        slept, m = q.wait_line(r"^check: tick_slept_ms=(\d+)")
        assert 1000 <= int(m.group(1)) <= 1100
        # A sleep of 1000 ticks cannot end in half the time unless the tick runs twice too fast.
        assert slept - boot >= 0.5, f"1000 ticks took {slept - boot:.3f}s of host time"
        q.wait_line(r"^check: ready for echo")
        out = len(data).to_bytes(4, "little") + data
        echoed = pty.exchange(out, len(data), timeout=60)
        assert len(echoed) == len(data), f"{len(echoed)} of {len(data)} bytes came back\n{q.describe()}"
        assert echoed == bytes(b ^ ECHO_XOR for b in data)
        _, m = q.wait_line(r"^check: echo_fnv=(\d+)")
        assert int(m.group(1)) == fnv1a(data)
        # From here the host reads nothing, so the flood must meet its deadline.
        _, m = q.wait_line(r"^check: flood_written=(\d+)")
        assert 0 < int(m.group(1)) < 1024 * 1024
        rc = q.wait_exit(30)
    print("\n".join(q.lines))
    fails = [l for l in q.lines if l.startswith("check: FAIL")]
    assert not fails, q.describe()
    assert "check: PASS" in q.lines, q.describe()
    assert rc == 0, q.describe()


def test_zmote_mcu_fails_cleanly_without_peer():
    # Nobody opens UART0's terminal: z_open must give up by itself and the firmware report.
    with Qemu(firmware("zmote-mcu"), timeout=120) as q:
        q.wait_line(r"^zmote-mcu: boot")
        rc = q.wait_exit(110)
    print("\n".join(q.lines))
    assert any(re.match(r"^zmote-mcu: z_open failed: -\d+$", l) for l in q.lines), q.describe()
    assert rc == EXIT_NO_SESSION, q.describe()
    assert f"zmote-mcu: exit {EXIT_NO_SESSION}" in q.lines
    check_memory(memory_report(q.lines))


# ---- with a far end on the Zenoh UART ----------------------------------------------------------


def zmote_program(name: str) -> str:
    d = os.environ.get("ZMOTE_BIN_DIR", os.path.join(ROOT, "build", "debug", "examples"))
    path = os.path.join(d, name)
    if not os.access(path, os.X_OK):
        raise AssertionError(f"{path} is missing: build zmote for the host first (or set ZMOTE_BIN_DIR)")
    return path


class Child:
    """A host process whose stdout is collected line by line; killed (its group only) on exit."""

    def __init__(self, name, cmd):
        self.name = name
        self.lines = []
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, start_new_session=True)
        self._cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.p.stdout:
            with self._cv:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self._cv.notify_all()
        with self._cv:
            self._cv.notify_all()

    def wait_line(self, pattern, timeout):
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        with self._cv:
            while True:
                for line in self.lines:
                    if rx.search(line):
                        return line
                left = end - time.monotonic()
                if left <= 0 or self.p.poll() is not None and not self._cv.wait(0.2):
                    raise AssertionError(f"{self.name}: no line matched {pattern!r}\n{self.describe()}")
                self._cv.wait(left)

    def describe(self):
        return f"{self.name} exit={self.p.poll()}:\n" + "\n".join(f"  > {l}" for l in self.lines)

    def kill(self):
        if self.p.poll() is None:
            os.killpg(self.p.pid, 9)
            self.p.wait(timeout=10)


def probe_sub_cmd(mode, endpoint_flag, endpoint):
    return [zmote_program("zm_probe"), "sub", "-m", mode, endpoint_flag, endpoint, "-k", MCU_KEY,
            "-g", HOST_KEY, "-n", str(PUT_COUNT), "-t", "90000"]


def run_with_far_end(start_far_end):
    """Starts QEMU paused, the far end on its UART0 terminal, then the firmware; checks both
    sides once the firmware has exited. start_far_end(pty_path) returns the Child that
    subscribes to the MCU's key (and greets it), plus any other Child to stop afterwards."""
    children = []
    try:
        with Qemu(firmware("zmote-mcu"), paused=True, timeout=120) as q:
            sub, *others = start_far_end(q.pty_path)
            children = [sub, *others]
            sub.wait_line(r"^ready", 30)
            q.resume()
            q.wait_line(r"^zmote-mcu: session open", 60)
            rc = q.wait_exit(100)
            sub.wait_line(rf"^sample sub=0 n={PUT_COUNT - 1} ", 30)
    finally:
        for c in children:
            c.kill()
    print("\n".join(q.lines))
    assert rc == 0, q.describe()
    # What the MCU sent, as the far end received it, in order.
    heads = [re.search(r" key=(\S+) .* head=([0-9a-f]+)", l) for l in sub.lines if l.startswith("sample ")]
    got = [(m.group(1), bytes.fromhex(m.group(2)).decode()) for m in heads if m]
    want = [(MCU_KEY, "[%4d] Pub from zmote MCU!" % i) for i in range(PUT_COUNT)]
    assert got[:PUT_COUNT] == want, sub.describe()
    # What the MCU received, as its console printed it.
    rx = [l for l in q.lines if l.startswith(">> [Subscriber] Received ('" + HOST_KEY + "': '[")]
    assert len(rx) >= EXPECT, q.describe()
    assert re.search(rf"^zmote-mcu: sent {PUT_COUNT}, received \d+$", "\n".join(q.lines), re.M)
    check_memory(memory_report(q.lines))


@pytest.mark.skipif(not os.path.exists(os.path.join(ROOT, "src", "link", "serial.c")),
                    reason="this tree has no serial link yet (src/link/serial.c)")
def test_zmote_mcu_with_zmote_peer():
    def far_end(pty_path):
        return [Child("zm_probe peer", probe_sub_cmd("peer", "-l", f"serial/{pty_path}#baudrate=115200"))]

    run_with_far_end(far_end)


@pytest.mark.skipif(not os.environ.get("ZMOTE_SERIAL_ROUTER"),
                    reason="no Rust router with the serial link ($ZMOTE_SERIAL_ROUTER)")
def test_zmote_mcu_with_rust_router():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    tcp = f"tcp/127.0.0.1:{port}"

    def far_end(pty_path):
        router = Child("router", [os.environ["ZMOTE_SERIAL_ROUTER"], f"serial/{pty_path}#baudrate=115200", tcp])
        router.wait_line(r"^ready", 60)
        here = os.path.dirname(os.path.abspath(__file__))
        python = Child("python subscriber", [sys.executable, os.path.join(here, "zenoh_far_end.py"), tcp,
                                             MCU_KEY, HOST_KEY])
        return [python, router]

    run_with_far_end(far_end)
