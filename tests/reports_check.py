#!/usr/bin/python3
"""Checks arena's CI reports with real parsers (stdlib only).

  reports_check.py junit FILE [--tests N] [--failures M] [--failing NAME]...
                   [--passing NAME]... [--names FILE.json] [--message TEXT]...
  reports_check.py md FILE [--names FILE.json] [--contains TEXT]...

junit: FILE parses with xml.etree.ElementTree; it has one <testsuite> with
name, tests, failures (and errors, skipped) that match its <testcase>s; every
testcase has a name and a classname; every <failure> a message. --failing and
--passing name testcases (by name) that must fail or pass; --message is text
that some failure's message must contain; --names is a JSON list of names
(hostile: <, &, ", |, line breaks) that must come back as testcase names
exactly.

md: every table's rows have as many cells as its header (no name opened a
cell or a row); no raw HTML tag but <br>; each --names entry, unescaped, is
the content of some table cell (or list item); each --contains is in the text.

Exit 0 if all holds; 1 with a message otherwise.
"""
import argparse
import html
import json
import re
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("reports_check: " + msg, file=sys.stderr)
    sys.exit(1)


def check_junit(args):
    try:
        root = ET.parse(args.file).getroot()
    except ET.ParseError as e:
        fail("%s does not parse as XML: %s" % (args.file, e))
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    if root.tag not in ("testsuite", "testsuites"):
        fail("root element is <%s>" % root.tag)
    if len(suites) != 1:
        fail("%d testsuites, want 1" % len(suites))
    suite = suites[0]
    for attr in ("name", "tests", "failures"):
        if not suite.get(attr):
            fail("testsuite has no %s" % attr)
    cases = suite.findall("testcase")
    failing = {}
    for c in cases:
        if not c.get("name") or not c.get("classname"):
            fail("a testcase lacks name or classname: %r" % c.attrib)
        fs = c.findall("failure")
        for f in fs:
            if not f.get("message"):
                fail("testcase %r has a failure without a message" % c.get("name"))
        if fs:
            failing[c.get("name")] = fs[0].get("message")
    if int(suite.get("tests")) != len(cases):
        fail("tests=%s but %d testcases" % (suite.get("tests"), len(cases)))
    if int(suite.get("failures")) != len(failing):
        fail("failures=%s but %d failing testcases" % (suite.get("failures"), len(failing)))
    if args.tests is not None and len(cases) != args.tests:
        fail("%d testcases, want %d" % (len(cases), args.tests))
    if args.failures is not None and len(failing) != args.failures:
        fail("%d failures, want %d: %r" % (len(failing), args.failures, failing))
    names = [c.get("name") for c in cases]
    for n in args.failing or []:
        if n not in failing:
            fail("testcase %r does not fail (failing: %r)" % (n, sorted(failing)))
    for n in args.passing or []:
        if n not in names:
            fail("no testcase %r in %r" % (n, names))
        if n in failing:
            fail("testcase %r fails: %s" % (n, failing[n]))
    for text in args.message or []:
        if not any(text in m for m in failing.values()):
            fail("no failure message contains %r: %r" % (text, failing))
    if args.names:
        with open(args.names, encoding="utf-8") as f:
            for n in json.load(f):
                if n not in names:
                    fail("name %r does not round-trip; testcases: %r" % (n, names))
    print("junit ok: %s, %d testcases, %d failing" % (args.file, len(cases), len(failing)))


CELL_SPLIT = re.compile(r"(?<!\\)\|")


def unescape_md(text):
    text = re.sub(r"\\(.)", r"\1", text)
    return html.unescape(text.replace("<br>", "\n"))


def check_md(args):
    with open(args.file, encoding="utf-8") as f:
        text = f.read()
    tags = [t for t in re.findall(r"<[^>]*>", text) if t != "<br>"]
    if tags:
        fail("raw HTML in the markdown: %r" % tags)
    cells = []
    lines = text.split("\n")
    i = 0
    tables = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-:|]+\|$", lines[i + 1]):
            tables += 1
            width = len(CELL_SPLIT.split(lines[i].strip()[1:-1]))
            j = i + 2
            while j < len(lines) and lines[j].startswith("|"):
                row = lines[j].strip()
                if not row.endswith("|") or row.endswith("\\|"):
                    fail("table row does not end with a cell: %r" % row)
                parts = CELL_SPLIT.split(row[1:-1])
                if len(parts) != width:
                    fail("row has %d cells, header %d: %r" % (len(parts), width, row))
                cells += [unescape_md(p.strip()) for p in parts]
                j += 1
            i = j
        else:
            if lines[i].startswith("- "):
                cells.append(unescape_md(lines[i][2:].split(": ")[0].strip("*")))
            i += 1
    if tables == 0:
        fail("no table in %s" % args.file)
    if args.names:
        with open(args.names, encoding="utf-8") as f:
            for n in json.load(f):
                if n not in cells and "**" + n + "**" not in cells:
                    fail("name %r is no cell's content; cells: %r" % (n, cells))
    for t in args.contains or []:
        if t not in text:
            fail("%r not in %s" % (t, args.file))
    print("markdown ok: %s, %d tables" % (args.file, tables))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=["junit", "md"])
    p.add_argument("file")
    p.add_argument("--tests", type=int)
    p.add_argument("--failures", type=int)
    p.add_argument("--failing", action="append")
    p.add_argument("--passing", action="append")
    p.add_argument("--message", action="append")
    p.add_argument("--names")
    p.add_argument("--contains", action="append")
    args = p.parse_args()
    check_junit(args) if args.kind == "junit" else check_md(args)


if __name__ == "__main__":
    main()
