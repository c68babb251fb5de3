"""Fixtures of the C++ example runs: the programs scripts/check-cxx.sh built from examples/ and
from zenoh-pico's examples, renamed .cpp, started as children with the interop suite's harness
(every wait bounded, each child in its own process group, all ended at teardown)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
import harness  # noqa: E402


def bin_dir() -> str:
    d = os.environ.get("ZM_CXX_BIN_DIR")
    if not d:
        raise AssertionError("ZM_CXX_BIN_DIR is not set: run scripts/check-cxx.sh")
    return d


class Programs:
    """Starts programs by their path under ZM_CXX_BIN_DIR, e.g. "zmote/z_sub", "pico/c11/z_put"."""

    def __init__(self):
        self.all = []

    def start(self, name, *args, stdin=False):
        path = os.path.join(bin_dir(), name)
        if not os.access(path, os.X_OK):
            raise AssertionError(f"{path} is missing: it did not compile or link (see check-cxx.sh's output)")
        # zenoh-pico's examples leave stdout fully buffered into a pipe: stdbuf makes it line
        # buffered, so that each line is seen when it is printed
        p = harness.Proc(["stdbuf", "-oL", path, *args], name=name, stdin=stdin)
        self.all.append(p)
        return p

    def stop(self):
        for p in reversed(self.all):
            p.stop()


@pytest.fixture
def run():
    progs = Programs()
    yield progs.start
    progs.stop()


@pytest.fixture
def ep():
    """A free loopback endpoint for a listening peer."""
    return harness.endpoint(harness.free_port())
