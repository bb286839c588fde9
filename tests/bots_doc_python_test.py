#!/usr/bin/python3
"""docs/bots.md's Python examples of each game's messages, run for real.

The section "Each game's messages" says which generated module holds each
game's messages and enums, and gives a decide(start, request) per game.
This test checks, against the stubs the build generates (build/python):
  - every name the table gives for a game is in the module it names (and,
    as the section says, a game's enum values are not in arena_pb2);
  - there is one example per bundled game, each importing its game's
    module;
  - each example, run on every request of a real match of its game (arena
    match among random bots, then arena replay --requests for each seat),
    returns a legal index.
Usage: bots_doc_python_test.py BIN_DIR SOURCE_DIR STUBS_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

BIN, SRC, STUBS = sys.argv[1:4]
sys.path.insert(0, STUBS)

import importlib  # noqa: E402

from google.protobuf import json_format  # noqa: E402

from arena.v1 import arena_pb2  # noqa: E402

SEATS = {"quodlibet": 4}  # the others: 3
CAP = "400"  # decisions: long enough for each game's phases, short to run


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def section():
    text = open(os.path.join(SRC, "docs", "bots.md"), encoding="utf-8").read()
    start = text.find("### Each game's messages")
    if start < 0:
        fail("docs/bots.md has no section \"Each game's messages\"")
    end = text.find("\n## ", start)
    return text[start:end if end >= 0 else len(text)]


def games():
    """The bundled games: those of `arena games` with their .proto in
    proto/arena/v1/ (a game of one's own, as tests/toy_game, packs its
    messages in an Any: docs/adding-a-game.md)."""
    out = subprocess.run([os.path.join(BIN, "arena"), "games"], check=True,
                         capture_output=True, text=True).stdout
    names = re.findall(r"^(\w+) \(", out, re.M)
    return [g for g in names
            if os.path.isfile(os.path.join(SRC, "proto", "arena", "v1", g + ".proto"))]


def check_table(text, all_games):
    rows = re.findall(r"^\| `(\w+)` \| `([\w.]+)` \|(.*)\|$", text, re.M)
    seen = set()
    for game, module_name, rest in rows:
        seen.add(game)
        module = importlib.import_module(module_name)
        if module_name != "arena.v1.%s_pb2" % game:
            fail("%s: the table names %s" % (game, module_name))
        for name in re.findall(r"`(\w+)`", rest):
            if not hasattr(module, name):
                fail("%s has no %s (docs/bots.md's table)" % (module_name, name))
            if name.isupper() and hasattr(arena_pb2, name):
                fail("arena_pb2 has %s: the section says it does not" % name)
        print("table: %s: %s" % (game, module_name))
    if seen != set(all_games):
        fail("the table covers %s, not every game %s" % (sorted(seen), all_games))


def examples(text):
    found = {}
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        m = re.search(r"^from arena\.v1 import (\w+)_pb2$", block, re.M)
        if m is None:
            fail("an example imports no game's module:\n" + block)
        found[m.group(1)] = block
    return found


def run_example(game, block, tmp):
    namespace = {"__name__": "example_" + game}
    exec(compile(block, "docs/bots.md (%s)" % game, "exec"), namespace)
    decide = namespace["decide"]
    records = os.path.join(tmp, game)
    bots = ["--bot=r%d=%s" % (i, os.path.join(BIN, "random_bot"))
            for i in range(SEATS.get(game, 3))]
    subprocess.run([os.path.join(BIN, "arena"), "match", "--game", game, "--seed", "7",
                    "--sandbox", "none", "--decision_cap", CAP, "--records", records] + bots,
                   check=True, capture_output=True)
    [record] = [f for f in os.listdir(records) if f.endswith(".rec")]
    asked = 0
    for seat in range(len(bots)):
        out = subprocess.run([os.path.join(BIN, "arena"), "replay", os.path.join(records, record),
                              "--requests", "--seat", str(seat)],
                             check=True, capture_output=True, text=True).stdout
        start = None
        for line in out.splitlines():
            message = json.loads(line)
            kind = message.pop("kind")
            if kind == "match_start":
                start = json_format.ParseDict(message, arena_pb2.MatchStart())
            elif kind == "decision_request":
                request = json_format.ParseDict(message, arena_pb2.DecisionRequest())
                index = decide(start, request)
                if not isinstance(index, int) or not 0 <= index < len(request.legal_actions):
                    fail("%s: decide gave %r for decision %d (%d legal)" % (
                        game, index, request.decision_id, len(request.legal_actions)))
                asked += 1
    if asked == 0:
        fail("%s: the match asked nothing" % game)
    print("example: %s: %d requests, every answer legal" % (game, asked))


def main():
    text = section()
    all_games = games()
    check_table(text, all_games)
    found = examples(text)
    if sorted(found) != sorted(all_games):
        fail("examples for %s, games %s" % (sorted(found), all_games))
    with tempfile.TemporaryDirectory(prefix="bots-doc-python-") as tmp:
        for game in all_games:
            run_example(game, found[game], tmp)
    print("PASS")


if __name__ == "__main__":
    main()
