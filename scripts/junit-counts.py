#!/usr/bin/env python3
"""Reads a pytest JUnit report and prints "PASSED FAILED": failures, errors and skipped tests all
count as failed (a skipped test is one whose far end was missing). An unreadable report is one
failure. usage: scripts/junit-counts.py REPORT.xml"""
import sys
import xml.etree.ElementTree as ET

try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print(0, 1)
    sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
total = sum(int(s.get("tests", 0)) for s in suites)
bad = sum(int(s.get("failures", 0)) + int(s.get("errors", 0)) + int(s.get("skipped", 0)) for s in suites)
print(total - bad, bad)
