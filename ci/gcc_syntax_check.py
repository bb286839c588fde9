#!/usr/bin/env python3
"""A GCC syntax-only pass over every C++ source file of the project.

The build (ci/build.sh) uses Clang with one precompiled header
(proto/precompiled_headers.h) forced into every file, and unity batches that
compile a few files as one: a file that uses something it does not include
still compiles there, if the header or an earlier file of its batch brought
it in, and would break only in a GCC build (CXX=g++, no precompiled header).
This pass compiles each .cc on its own with g++ -fsyntax-only, with the flags
its target is built with (from the build's compile_commands.json) but without
the precompiled header, so such a file fails here, naming the file and what
is missing.

Every .cc of the project (found with git ls-files, or by walking the tree
outside a git checkout) must be in some target of the build: one that is not
is reported, since the pass could not check it.

Usage: ci/gcc_syntax_check.py [BUILD_DIR [FILE...]] (default build/,
configured and built first: generated headers must exist; FILEs, relative
to the project's top: only those, e.g. to check a fix). Exit 0 when every
file passes, 1 when one fails (each failure's GCC output is printed) or a
.cc is in no target, 2 on a usage error.
GXX (default g++) names the compiler; JOBS (default: the CPU count) how many
run at once.
"""
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNITY_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+\.cc)"', re.M)
# Flags that only the Clang build with its precompiled header has, with how
# many arguments follow each; and those that make an object file.
DROP_WITH_ARGS = {"-Xclang": 1, "-o": 1, "-c": 1, "-MF": 1, "-MT": 1, "-MQ": 1,
                  "-include-pch": 1}
DROP = {"-Winvalid-pch", "-MD", "-MMD"}
# Folders of programs built by hand against libraries the project does not
# install (each says how in its README): not part of any target.
BUILT_BY_HAND = ("tests/bench/http_candidates/",)


def project_sources(build):
    """Every .cc of the project outside the build folder, relative to ROOT."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "*.cc"], check=True,
                             capture_output=True, text=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = []
        for d, dirs, files in os.walk(ROOT):
            dirs[:] = [x for x in dirs if not x.startswith(".") and x != "node_modules"
                       and os.path.join(d, x) != build]
            out += [os.path.relpath(os.path.join(d, f), ROOT)
                    for f in files if f.endswith(".cc")]
    return sorted(f for f in out if not os.path.abspath(os.path.join(ROOT, f)).startswith(
        build + os.sep) and not f.startswith(BUILT_BY_HAND))


def gcc_flags(entry):
    """The entry's compile flags for g++: no compiler, output, dependency
    file, source or precompiled header."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    flags, i = [], 1
    while i < len(args):
        a = args[i]
        if a in DROP_WITH_ARGS:
            i += 1 + DROP_WITH_ARGS[a]
            continue
        if a in DROP or a == entry["file"] or a.startswith("-include-pch"):
            i += 1
            continue
        flags.append(a)
        i += 1
    return flags


def sources_of(entry):
    """The project files an entry compiles: a unity batch's files, or its one."""
    path = entry["file"]
    if not os.path.isabs(path):
        path = os.path.join(entry["directory"], path)
    if "/Unity/unity_" in path:
        with open(path, encoding="utf-8") as f:
            return UNITY_INCLUDE.findall(f.read())
    return [path]


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
    db = os.path.join(build, "compile_commands.json")
    if not os.path.exists(db):
        print(f"gcc_syntax_check: no {db}: configure and build first (ci/build.sh)")
        return 2
    gxx = os.environ.get("GXX", "g++")
    if shutil.which(gxx) is None:
        print(f"gcc_syntax_check: no {gxx} (ci/install_deps.sh installs g++)")
        return 2
    with open(db, encoding="utf-8") as f:
        entries = json.load(f)
    jobs = {}  # source -> (flags, directory): the first target that builds it
    for e in entries:
        for src in sources_of(e):
            src = os.path.abspath(src)
            if src.startswith(ROOT + os.sep) and not src.startswith(build + os.sep):
                jobs.setdefault(src, (gcc_flags(e), e["directory"]))
    unchecked = [f for f in project_sources(build)
                 if os.path.join(ROOT, f) not in jobs]
    only = [os.path.abspath(os.path.join(ROOT, f)) for f in sys.argv[2:]]
    if only:
        for f in only:
            if f not in jobs:
                print(f"gcc_syntax_check: {os.path.relpath(f, ROOT)} is built by no target")
                return 2
        jobs = {f: jobs[f] for f in only}
        unchecked = []

    def check(src):
        flags, directory = jobs[src]
        r = subprocess.run([gxx, *flags, "-fsyntax-only", src], cwd=directory,
                           capture_output=True, text=True)
        return src, r.returncode, r.stderr

    workers = int(os.environ.get("JOBS") or os.cpu_count() or 1)
    start, cpu0 = time.monotonic(), os.times()
    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        for src, code, err in pool.map(check, sorted(jobs)):
            if code != 0:
                failed.append(os.path.relpath(src, ROOT))
                print(f"--- {os.path.relpath(src, ROOT)}: g++ -fsyntax-only failed\n{err}")
    cpu1 = os.times()
    cpu = (cpu1.children_user - cpu0.children_user) + (cpu1.children_system -
                                                         cpu0.children_system)
    print(f"gcc_syntax_check: {len(jobs)} files with {gxx}, {workers} at once: "
          f"{time.monotonic() - start:.0f} s, {cpu:.0f} s of CPU; "
          f"{len(failed)} failed")
    for f in unchecked:
        print(f"gcc_syntax_check: {f} is built by no target, so not checked")
    if failed:
        print("gcc_syntax_check: failed: " + " ".join(failed))
    return 1 if failed or unchecked else 0


if __name__ == "__main__":
    sys.exit(main())
