"""Runs a firmware in QEMU's mps2-an386 for the firmware tests: UART0 (Zenoh's link) on a host
pseudo-terminal, UART1 (the console) on QEMU's stdout, read line by line, and the exit status
the firmware gives through semihosting. QEMU may start paused, so that whatever serves the
other end of UART0 (a zmote peer, a router) opens the terminal before the firmware runs.

Every wait has a deadline and fails with the console seen so far. QEMU runs in its own process
group, and only that group is ever signalled.
"""
import os
import queue
import re
import select
import signal
import socket
import subprocess
import tempfile
import termios
import threading
import time
import tty

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PTY_RE = re.compile(r"char device redirected to (/dev/pts/\d+) \(label zlink\)")


def firmware_dir() -> str:
    """Folder of the firmware ELFs: $ZMOTE_FIRMWARE_DIR, else build/firmware's board folder."""
    d = os.environ.get("ZMOTE_FIRMWARE_DIR",
                       os.path.join("build", "firmware", "examples", "baremetal", "mps2-an386"))
    return d if os.path.isabs(d) else os.path.join(ROOT, d)


def firmware(name: str) -> str:
    path = os.path.join(firmware_dir(), name + ".elf")
    if not os.path.isfile(path):
        raise AssertionError(f"{path} is missing: run scripts/firmware.sh first")
    return path


class Qemu:
    """One QEMU run of an ELF. Use as a context manager: leaving it kills QEMU if still running."""

    def __init__(self, elf: str, paused: bool = False, timeout: float = 60.0, machine: str = "mps2-an386",
                 nic: str = "none", semihosting_args=()):
        self.lines = []
        self._queue = queue.Queue()
        self._stderr = []
        self._tmp = tempfile.mkdtemp(prefix="zmote-qemu-")
        self._monitor_path = os.path.join(self._tmp, "monitor.sock")
        cmd = ["qemu-system-arm", "-M", machine, "-nodefaults", "-nic", nic, "-display", "none",
               "-semihosting-config", "".join(["enable=on,target=native"] + [f",arg={a}" for a in semihosting_args]),
               "-chardev", "pty,id=zlink", "-serial", "chardev:zlink",
               "-chardev", "stdio,id=console,signal=off", "-serial", "chardev:console",
               "-monitor", f"unix:{self._monitor_path},server=on,wait=off",
               "-kernel", elf]
        if paused:
            cmd.append("-S")
        self.started = time.monotonic()
        self.deadline = self.started + timeout
        self._pty = queue.Queue()
        self.p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, start_new_session=True)
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        try:
            self.pty_path = self._pty.get(timeout=10)
        except queue.Empty:
            self.kill()
            raise AssertionError(f"QEMU named no pty for UART0\n{self.describe()}")

    def _read_stdout(self):
        for raw in self.p.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            m = PTY_RE.search(line)  # QEMU prints it on stdout or stderr, depending on version
            if m:
                self._pty.put(m.group(1))
                continue
            self._queue.put((time.monotonic(), line))
        self._queue.put(None)

    def _read_stderr(self):
        for raw in self.p.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self._stderr.append(line)
            m = PTY_RE.search(line)
            if m:
                self._pty.put(m.group(1))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()

    def kill(self):
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait(timeout=10)

    def resume(self):
        """Starts a QEMU started paused (the monitor's `cont`), and checks that it runs: a
        command sent while QEMU is still setting up can go unheard, so it is sent again."""
        end = time.monotonic() + 10
        status = ""
        while time.monotonic() < end:
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(2)
                try:
                    s.connect(self._monitor_path)
                    s.sendall(b"cont\ninfo status\n")
                    reply = b""
                    while b"VM status:" not in reply or not reply.rstrip().endswith(b"(qemu)"):
                        chunk = s.recv(4096)
                        if not chunk:
                            break
                        reply += chunk
                except OSError:
                    reply = b""
            status = reply.decode("utf-8", "replace")
            if re.search(r"VM status: running", status):
                return
            time.sleep(0.1)  # the monitor has no event to wait on before it answers
        raise AssertionError(f"QEMU did not resume: {status!r}\n{self.describe()}")

    def describe(self) -> str:
        console = "\n".join(f"  | {l}" for l in self.lines)
        err = "\n".join(f"  ! {l}" for l in self._stderr)
        return f"qemu exit={self.p.poll()}\nconsole:\n{console}\nstderr:\n{err}"

    def wait_line(self, pattern: str, timeout: float = 30.0):
        """Returns (time seen, re match) for the first new console line matching pattern."""
        rx = re.compile(pattern)
        end = min(time.monotonic() + timeout, self.deadline)
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no console line matched {pattern!r}\n{self.describe()}")
            try:
                item = self._queue.get(timeout=left)
            except queue.Empty:
                continue
            if item is None:
                self._queue.put(None)  # stays at the end for later waits
                raise AssertionError(f"QEMU ended before a line matched {pattern!r}\n{self.describe()}")
            seen, line = item
            self.lines.append(line)
            m = rx.search(line)
            if m:
                return seen, m

    def wait_exit(self, timeout: float = 30.0) -> int:
        """Waits for QEMU to end (the firmware's semihosting exit) and returns its status; every
        console line is in self.lines then."""
        try:
            rc = self.p.wait(timeout=max(0.1, min(timeout, self.deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"QEMU still running after {timeout}s\n{self.describe()}")
        while True:
            try:
                item = self._queue.get(timeout=5)
            except queue.Empty:
                break
            if item is None:
                self._queue.put(None)
                break
            self.lines.append(item[1])
        return rc


class Pty:
    """The host end of UART0: the pseudo-terminal's slave side, raw, non-blocking."""

    def __init__(self, path: str):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd, termios.TCSANOW)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def exchange(self, out: bytes, want: int, timeout: float) -> bytes:
        """Writes out while reading, until want bytes came back or timeout: both at once, since
        neither side's buffers hold a large block whole."""
        got = bytearray()
        sent = 0
        end = time.monotonic() + timeout
        while len(got) < want:
            left = end - time.monotonic()
            if left <= 0:
                break
            wr = [self.fd] if sent < len(out) else []
            r, w, _ = select.select([self.fd], wr, [], min(left, 1.0))
            if r:
                try:
                    got += os.read(self.fd, want - len(got))  # not a byte more: more may follow
                except BlockingIOError:
                    pass
            if w:
                try:
                    sent += os.write(self.fd, out[sent:sent + 4096])
                except BlockingIOError:
                    pass
        return bytes(got)
