"""The FreeRTOS firmware (tests/freertos/mps2-an385, built by scripts/freertos.sh) in QEMU's
mps2-an385 against Rust Zenoh: a threaded zmote client on FreeRTOS reaches a router over TCP
(FreeRTOS+TCP on the board's LAN9118, QEMU's user-mode network), over UDP unicast, or over its serial line (the
Rust serial router, $ZMOTE_SERIAL_ROUTER), and exchanges samples both ways with a Python node
(far_end.py), answers its get, gets from its queryable, and shows it a liveliness token. Its
console ends with its memory figures: the kernel heap's low-water mark and every task's unused
stack (uxTaskGetSystemState), printed by these tests (pytest -rP).
"""
import os
import re
import socket
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "firmware"))
from qemu import ROOT, Qemu  # noqa: E402
from test_firmware import Child  # noqa: E402

PUT_COUNT = 10
EXPECT = 5
ROUTER = os.path.join(ROOT, "tests", "interop", "router.py")
FAR_END = os.path.join(HERE, "far_end.py")


def elf(name):
    d = os.environ.get("ZMOTE_FREERTOS_DIR", os.path.join(ROOT, "build", "freertos", "firmware", "freertos-firmware"))
    path = os.path.join(d, name + ".elf")
    if not os.path.isfile(path):
        pytest.skip(f"{path} is missing: scripts/freertos.sh builds it when it finds the FreeRTOS checkouts")
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def user_net(port):
    # The firmware connects to 10.0.2.100:7447; QEMU runs socat for each such connection.
    return f"user,model=lan9118,guestfwd=tcp:10.0.2.100:7447-cmd:socat - TCP:127.0.0.1:{port}"


def start_router(port):
    router = Child("router", [sys.executable, ROUTER, f"tcp/127.0.0.1:{port}"])
    router.wait_line(r"^ready", 60)
    return router


def start_far_end(endpoint):
    far = Child("python node", [sys.executable, FAR_END, endpoint])
    far.wait_line(r"^ready", 60)
    return far


def memory(lines):
    """The firmware's "mem:" lines: the heap's figures and each task's unused stack."""
    heap = {}
    tasks = []
    for line in lines:
        m = re.match(r"^mem: heap (.*)$", line)
        if m:
            heap = {k: int(v) for k, v in (f.split("=") for f in m.group(1).split())}
        m = re.match(r"^mem: task name=(\S+) stack_unused=(\d+)$", line)
        if m:
            tasks.append((m.group(1), int(m.group(2))))
    assert heap and tasks, "the firmware did not report its memory:\n" + "\n".join(lines)
    return heap, tasks


def check_exchange(q, far, rc):
    print("\n".join(q.lines))
    print("\n".join(far.lines))
    assert rc == 0, q.describe()
    got = [m.group(1) for m in (re.match(r"^sample n=\d+ key=demo/example/zmote-mcu payload=(.*)$", l)
                                for l in far.lines) if m]
    assert got[:PUT_COUNT] == ["[%4d] Pub from FreeRTOS!" % i for i in range(PUT_COUNT)], far.describe()
    assert "token put demo/example/zmote-mcu/alive" in far.lines, far.describe()
    assert "reply key=demo/example/zmote-mcu/q payload=reply from FreeRTOS" in far.lines, far.describe()
    assert "query demo/example/zmote-host/q" in far.lines, far.describe()
    greetings = [l for l in q.lines if re.match(
        r"^>> \[Subscriber\] Received \('demo/example/zmote-host/greeting': '\[ *\d+\] Pub from Rust host!'\)$", l)]
    assert len(greetings) >= EXPECT, q.describe()
    assert ">> [Get] Received ('demo/example/zmote-host/q': 'reply from Rust host')" in q.lines, q.describe()
    assert re.search(r"^zmote-freertos: sent 10, received \d+, replies [1-9]\d*, queries [1-9]\d*$",
                     "\n".join(q.lines), re.M), q.describe()
    heap, tasks = memory(q.lines)
    assert 0 < heap["min_free"] <= heap["free_before_open"] <= heap["total"], heap
    assert heap["min_free"] <= heap["free"], heap
    for name, unused in tasks:
        assert unused > 0, f"task {name} used all of its stack: {tasks}"
    assert "mem: uart0 rx_dropped=0" in q.lines, q.describe()
    print("FreeRTOS firmware RAM: kernel heap at its fullest %d of %d B, of which %d B from z_open on"
          " (zmote's tasks and blocks, the socket); stack unused per task: %s"
          % (heap["total"] - heap["min_free"], heap["total"], heap["free_before_open"] - heap["min_free"],
             ", ".join("%s %d B" % t for t in tasks)))


def test_tcp_with_rust_router():
    port = free_port()
    children = []
    try:
        children.append(start_router(port))
        far = start_far_end(f"tcp/127.0.0.1:{port}")
        children.append(far)
        with Qemu(elf("zmote-freertos-tcp"), machine="mps2-an385", nic=user_net(port), timeout=180) as q:
            q.wait_line(r"^zmote-freertos: session open", 90)
            rc = q.wait_exit(120)
        far.wait_line(rf"^sample n={PUT_COUNT - 1} ", 30)
    finally:
        for c in children:
            c.kill()
    check_exchange(q, far, rc)


def test_udp_with_rust_router():
    port = free_port()
    children = []
    try:
        router = Child("router", [sys.executable, ROUTER, f"tcp/127.0.0.1:{port}", f"udp/127.0.0.1:{port}"])
        children.append(router)
        router.wait_line(r"^ready", 60)
        far = start_far_end(f"tcp/127.0.0.1:{port}")
        children.append(far)
        # QEMU's user-mode network takes the guest's datagrams to 10.0.2.2 to the host's loopback.
        with Qemu(elf("zmote-freertos-udp"), machine="mps2-an385", nic="user,model=lan9118",
                  semihosting_args=["zmote", f"udp/10.0.2.2:{port}"], timeout=180) as q:
            q.wait_line(rf"^zmote-freertos: opening session on udp/10\.0\.2\.2:{port}$", 60)
            q.wait_line(r"^zmote-freertos: session open", 90)
            rc = q.wait_exit(120)
        far.wait_line(rf"^sample n={PUT_COUNT - 1} ", 30)
    finally:
        for c in children:
            c.kill()
    check_exchange(q, far, rc)


@pytest.mark.skipif(not os.environ.get("ZMOTE_SERIAL_ROUTER"),
                    reason="no Rust router with the serial link ($ZMOTE_SERIAL_ROUTER)")
def test_serial_with_rust_router():
    port = free_port()
    children = []
    try:
        with Qemu(elf("zmote-freertos-serial"), machine="mps2-an385", paused=True, timeout=180) as q:
            router = Child("serial router", [os.environ["ZMOTE_SERIAL_ROUTER"],
                                             f"serial/{q.pty_path}#baudrate=115200", f"tcp/127.0.0.1:{port}"])
            children.append(router)
            router.wait_line(r"^ready", 60)
            far = start_far_end(f"tcp/127.0.0.1:{port}")
            children.append(far)
            q.resume()
            q.wait_line(r"^zmote-freertos: session open", 90)
            rc = q.wait_exit(150)
        far.wait_line(rf"^sample n={PUT_COUNT - 1} ", 30)
    finally:
        for c in children:
            c.kill()
    check_exchange(q, far, rc)


def test_tcp_reconnects_after_router_restart():
    port = free_port()
    children = []
    try:
        router = start_router(port)
        children.append(router)
        far = start_far_end(f"tcp/127.0.0.1:{port}")
        children.append(far)
        with Qemu(elf("zmote-freertos-tcp-reconnect"), machine="mps2-an385", nic=user_net(port), timeout=300) as q:
            q.wait_line(r"^zmote-freertos: ready for the router's restart", 150)
            router.kill()
            far.kill()
            router = start_router(port)
            children.append(router)
            far = start_far_end(f"tcp/127.0.0.1:{port}")
            children.append(far)
            # The session finds the router gone, reconnects, declares again: samples flow both ways.
            try:
                far.wait_line(r"^sample n=\d+ key=demo/example/zmote-mcu payload=\[ *\d+\] after restart$", 120)
            except AssertionError as e:
                q.wait_exit(60)
                raise AssertionError(f"{e}\n{q.describe()}") from None
            rc = q.wait_exit(120)
    finally:
        for c in children:
            c.kill()
    print("\n".join(q.lines))
    assert rc == 0, q.describe()
    m = re.search(r"^zmote-freertos: after restart received (\d+)$", "\n".join(q.lines), re.M)
    assert m and int(m.group(1)) >= EXPECT, q.describe()
    assert "token put demo/example/zmote-mcu/alive" in far.lines, far.describe()
