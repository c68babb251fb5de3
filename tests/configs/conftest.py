"""The interop suite's machinery (tests/interop: harness.py, its fixtures, test_serial.py's serial
line) serves these tests too: the same children, Rust sessions and router on a serial line."""
import importlib.util
import os
import sys

INTEROP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "interop")
sys.path.insert(0, INTEROP)

spec = importlib.util.spec_from_file_location("interop_conftest", os.path.join(INTEROP, "conftest.py"))
interop = importlib.util.module_from_spec(spec)
spec.loader.exec_module(interop)

children = interop.children
rust = interop.rust
