#!/usr/bin/env python3
"""Checks the house plan (docs: README "Layout") from the sources.

1. The modules (the wings of referee/ and arena/, each game's folder, the
   bot kit) use each other one way only: the graph of their #includes,
   outside tests, has no cycle.
1b. They use each other in the order of the README's Layout table: a module
   uses only modules of its own row or of rows listed before it (a module's
   row: the longest folder of the table its path starts with), but for the
   bot SDK (bots/sdk), which the bots in game folders use too. A module in
   no row of the table is an error: the table is the plan.
2. A game's folder uses only the game interface (referee/game_api), the
   protocol, the bot SDK (for its bot) and itself: no runtime, no tools,
   no other game. Its tests may use anything.
3. No source file (tests apart: a file of rulings is one job) is over 800
   lines, but for the ones named in LONG with the one job they do.

Usage: layout_test.py PROJECT_DIR. Exit 0 when all hold; else each breach
on a line of its own, naming the files and lines, and exit 1.
"""
import os
import re
import sys

LIMIT = 800
# Files over the limit that do one job, and which job.
LONG = {
    "referee/games/quodlibet/quodlibet.cc":
        "the rules of Quodlibet's 12 contracts and its partie",
    "referee/games/quabble/quabble.cc": "the rules of Quabble",
    "referee/games/pesten/pesten.cc": "the rules of Pesten",
    "referee/games/quasenbo/quasenbo.cc": "the rules of Quasenbo",
}
# Games outside referee/games/ that this tree builds (the guide's example).
EXTRA_GAMES = ["tests/toy_game"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path):
    """The module a file belongs to: referee/<wing>, referee/games/<game>,
    arena/<wing>, bots/<dir>, or None (tests, generated, elsewhere)."""
    parts = path.split("/")
    for game in EXTRA_GAMES:
        if path.startswith(game + "/"):
            return game
    if parts[0] == "referee" and len(parts) >= 3:
        if parts[1] == "games" and len(parts) >= 4:
            return "referee/games/" + parts[2]
        return "referee/" + parts[1]
    if parts[0] in ("arena", "bots") and len(parts) >= 3:
        return parts[0] + "/" + parts[1]
    return None


# The README's Layout table: rows "| `folder/` | what |", in order.
TABLE_ROW = re.compile(r"^\|\s*`([^`]+)/`\s*\|", re.M)


def layout_rows(root):
    """The folders of the README's Layout table, in its order."""
    text = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    start = text.find("## Layout")
    if start < 0:
        return []
    end = text.find("\n## ", start + 1)
    return TABLE_ROW.findall(text[start:end if end >= 0 else len(text)])


def row_of(module, rows):
    """The index in `rows` of the longest folder `module` is in, or None."""
    best = None
    for i, folder in enumerate(rows):
        if (module + "/").startswith(folder + "/"):
            if best is None or len(folder) > len(rows[best]):
                best = i
    return best


def order_errors(edges, rows):
    """Uses against the order of the README's table (see 1b above)."""
    if not rows:
        return ["README.md: no Layout table (| `folder/` | what |) to check "
                "the order of the modules against"]
    errors = []
    for (a, b), where in sorted(edges.items()):
        ra, rb = row_of(a, rows), row_of(b, rows)
        for mod, r in ((a, ra), (b, rb)):
            if r is None:
                errors.append(f"{where}: module {mod} is in no row of the "
                              "README's Layout table; add its folder there")
        if ra is None or rb is None or rb <= ra:
            continue
        if b == "bots/sdk" and (a.startswith("referee/games/")
                                or a in EXTRA_GAMES):
            continue  # a game's bot uses the bot SDK (the README's exception)
        errors.append(f"{where}: {a} uses {b}, which the README's Layout "
                      f"table lists after it ({rows[ra]}/ is row {ra + 1}, "
                      f"{rows[rb]}/ row {rb + 1}): a folder uses only the "
                      "folders listed before it")
    return errors


def is_test(path):
    name = os.path.basename(path)
    return name.endswith("_test.cc") or name.endswith("_bench.cc")


def sources(root):
    for top in ["referee", "arena", "bots"] + EXTRA_GAMES:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = [x for x in dirs if x != "node_modules"]
            for f in files:
                if f.endswith((".cc", ".h")):
                    yield os.path.relpath(os.path.join(d, f), root)


def main(root):
    errors = []
    edges = {}  # (from module, to module) -> first "file:line"
    for path in sorted(sources(root)):
        text = open(os.path.join(root, path), encoding="utf-8").read()
        lines = text.count("\n")
        if lines > LIMIT and path not in LONG and not is_test(path):
            errors.append(f"{path}: {lines} lines, over {LIMIT}: split it by job "
                          f"(or name its one job in LONG in {__file__})")
        if is_test(path):
            continue
        mod = module_of(path)
        if mod is None:
            continue
        for m in INCLUDE.finditer(text):
            inc = m.group(1)
            if inc.split("/")[0] not in ("referee", "arena", "bots", "tests"):
                continue  # a library's header, or the generated protocol
            if inc.startswith("arena/v1/"):
                continue
            line = text.count("\n", 0, m.start()) + 1
            to = module_of(inc)
            if (os.path.dirname(path).startswith("referee/games/")
                    or mod in EXTRA_GAMES):
                allowed = (inc.startswith(mod + "/")
                           or inc.startswith("referee/game_api/")
                           or inc.startswith("bots/sdk/"))
                if not allowed:
                    errors.append(f"{path}:{line}: a game uses {inc}; a game's "
                                  "code may use only referee/game_api, the "
                                  "protocol, bots/sdk and its own folder")
            if to is None or to == mod:
                continue
            edges.setdefault((mod, to), f"{path}:{line}")
    rows = layout_rows(root)
    errors.extend(order_errors(edges, rows))
    # Cycles: a depth-first search over the module graph.
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                cycle = stack[stack.index(m):] + [m]
                where = ", ".join(edges[(cycle[i], cycle[i + 1])]
                                  for i in range(len(cycle) - 1))
                errors.append("modules use each other: " + " -> ".join(cycle) +
                              f" ({where})")
            elif m not in state:
                visit(m)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if n not in state:
            visit(n)
    for e in errors:
        print(e)
    if not errors:
        mods = sorted({m for e in edges for m in e})
        print(f"layout holds: {len(mods)} modules, {len(edges)} uses, no cycle, "
              f"each in the order of the README's {len(rows)} rows")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
