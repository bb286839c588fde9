#!/usr/bin/env python3
"""Checks the links of the docs: README.md and docs/*.md.

Every relative link must name a file or folder that exists in the tree, and
every #anchor (in the same page or another .md page) must name a heading of
that page, spelled as GitHub spells heading anchors (lower case, punctuation
dropped, spaces as hyphens, a -1, -2 suffix for repeated headings). Links
with a scheme (https:, mailto:) are not followed.

Usage: doc_links_test.py PROJECT_DIR. Exit 0 when every link resolves; else
one line per broken link (file:line: the link and what is wrong) and exit 1.
"""
import os
import re
import sys

# [text](target) and [text](target "title"); images too. Reference-style
# definitions: [name]: target.
INLINE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+\"[^\"]*\")?\s*$")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`]*`")


def slug(text):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"<[^>]+>", "", text)           # inline HTML
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)            # keeps letters, digits, _, -
    return text.replace(" ", "-")


def lines_outside_code(path):
    """(line number, line) of a Markdown file, fenced code blocks left out."""
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if not in_fence:
                yield number, line


def anchors(path, cache={}):
    """The anchors of a Markdown file's headings."""
    if path not in cache:
        seen = {}
        result = set()
        for _, line in lines_outside_code(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = result
    return cache[path]


def check(root, page):
    """The broken links of one page, as messages."""
    errors = []
    here = os.path.dirname(page)
    for number, line in lines_outside_code(page):
        text = INLINE_CODE.sub("", line)
        targets = [m.group(1) for m in INLINE.finditer(text)]
        m = REFDEF.match(text)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # https:, mailto: and the like
            where = "%s:%d: %s" % (os.path.relpath(page, root), number, target)
            file_part, _, anchor = target.partition("#")
            dest = page if not file_part else os.path.normpath(
                os.path.join(here, file_part))
            if not os.path.exists(dest):
                errors.append("%s: no such file %s" %
                              (where, os.path.relpath(dest, root)))
                continue
            if anchor and dest.endswith(".md"):
                if anchor not in anchors(dest):
                    errors.append("%s: no heading #%s in %s" %
                                  (where, anchor, os.path.relpath(dest, root)))
    return errors


def main():
    if len(sys.argv) != 2:
        print("usage: doc_links_test.py PROJECT_DIR", file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])
    pages = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    pages += sorted(os.path.join(docs, name) for name in os.listdir(docs)
                    if name.endswith(".md"))
    errors = []
    for page in pages:
        errors += check(root, page)
    for error in errors:
        print(error)
    if errors:
        print("%d broken link(s) in %d page(s)" % (len(errors), len(pages)))
        return 1
    print("every link of %d page(s) resolves" % len(pages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
