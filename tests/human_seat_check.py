#!/usr/bin/env python3
"""Checks what `arena play` printed against the match's record.

REPLAY is the record as `arena replay FILE --json` gives it (every seat,
every event with its visibility, every seat's view at each decision step).

  human_seat_check.py played OUT REPLAY SEAT
      the person at SEAT played the match to its end: moves were numbered,
      card names shown, and the record has no forfeit of SEAT.
  human_seat_check.py forfeit REPLAY SEAT KIND
      the record says SEAT forfeited with fault KIND (e.g. DISCONNECTED).
  human_seat_check.py noleak OUT REPLAY SEAT
      no card in another seat's hand that SEAT was never told of (by a
      public event, an event it may see, or its own hand) appears in what
      was printed for SEAT's decision at that step. Fails if nothing hidden
      was there to check, or if the check misses such a card written into a
      copy of the output (its self-test).

Exit 0 if the check holds; else 1 with what failed.
"""
import json
import re
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def names_by_id(replay):
    cards = replay.get("cards", [])
    counts = {}
    for c in cards:
        counts[c["name"]] = counts.get(c["name"], 0) + 1
    # A name two cards share cannot tell them apart: left out.
    return {c["id"]: c["name"] for c in cards if counts[c["name"]] == 1}


def mentions(text, name):
    return re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", text) is not None


def blocks(out):
    """The text printed for each decision, by step."""
    parts = re.split(r"^-- step (\d+): your decision.*$", out, flags=re.M)
    result = {}
    for i in range(1, len(parts), 2):
        text = parts[i + 1].split("\n== the match is over")[0]
        result[int(parts[i])] = result.get(int(parts[i]), "") + text
    return result


def game_part(view):
    for key, value in view.items():
        if key != "events" and isinstance(value, dict):
            return value
    return {}


def played(out_path, replay_path, seat):
    out = open(out_path, encoding="utf-8").read()
    replay = load(replay_path)
    if not re.search(r"^your moves:\n  1\. ", out, flags=re.M):
        fail("no numbered moves in the output")
    if "== the match is over" not in out or "record: " not in out:
        fail("no end of match with the record's path in the output")
    names = sorted({c["name"] for c in replay.get("cards", [])})
    shown = [n for n in names if mentions(out, n)]
    if names and not shown:
        fail("no card name of the catalogue in the output")
    forfeit = replay.get("forfeit")
    if forfeit and forfeit.get("seat") == seat and forfeit.get("fault") not in (None, "", "FAULT_KIND_UNSPECIFIED"):
        fail(f"seat {seat} forfeited: {forfeit}")
    if not replay.get("finished"):
        fail("the record is not finished")
    labels = same_labels(out, replay, seat)
    print(f"ok: {len(blocks(out))} decisions shown, {len(shown)} card names, "
          f"{labels} moves by the record's labels")


def same_labels(out, replay, seat):
    """The moves offered at each step, and the one played, are worded as the
    record's labels of that step's legal actions (the game's own words, as
    the replay and the HTML give them); returns how many were compared."""
    legal = {}
    for step in replay["steps"]:
        for a in step.get("actions", []):
            if a.get("seat", 0) == seat and a.get("legal"):
                legal[step["step"]] = a["legal"]
    compared = 0
    for step, text in blocks(out).items():
        moves = re.findall(r"^  (\d+)\. (.*)$", text, flags=re.M)
        if step not in legal:
            continue  # a decision the match went on without (a timeout)
        want = [f"{i + 1}. {label}" for i, label in enumerate(legal[step])]
        got = [f"{n}. {m}" for n, m in moves]
        if got != want:
            fail(f"step {step}: the moves shown {got} are not the record's labels {want}")
        compared += len(got)
        for n, m in re.findall(r"^you play (\d+): (.*)$", text, flags=re.M):
            if m != legal[step][int(n) - 1]:
                fail(f"step {step}: 'you play {n}: {m}', but the record's label is "
                     f"'{legal[step][int(n) - 1]}'")
    if compared == 0:
        fail("no move to compare with the record's labels")
    return compared


def forfeit(replay_path, seat, kind):
    replay = load(replay_path)
    f = replay.get("forfeit") or {}
    if f.get("seat") != seat or f.get("fault") != "FAULT_KIND_" + kind:
        fail(f"expected seat {seat} to forfeit with {kind}; the record has {f}")
    print(f"ok: seat {seat} forfeited ({kind}): {f.get('detail')}")


def hidden_shown(out, replay, seat):
    """(leaks, checked, first): the hidden cards of other seats named in
    what was printed at their step, how many hidden cards were looked for,
    and the first one (step, name) for the self-test."""
    names = names_by_id(replay)
    shown = blocks(out)
    known = set()  # card ids the seat has been told of
    leaks, checked, first = [], 0, None
    for step in replay["steps"]:
        for e in step.get("events", []):
            vis = e.get("visibility", {})
            if vis.get("is_public") or seat in vis.get("seats", []):
                known |= {i for i, n in names.items() if mentions(e.get("text", ""), n)}
        views = step.get("views", [])
        if seat < len(views):
            known |= set(game_part(views[seat]).get("hand", []))
        text = shown.get(step["step"])
        if text is None:
            continue
        for other, view in enumerate(views):
            if other == seat:
                continue
            for card in game_part(view).get("hand", []):
                if card in known or card not in names:
                    continue
                checked += 1
                first = first or (step["step"], names[card])
                if mentions(text, names[card]):
                    leaks.append(f"step {step['step']}: seat {other}'s hidden card "
                                 f"{names[card]} was shown to seat {seat}")
    return leaks, checked, first


def noleak(out_path, replay_path, seat):
    out = open(out_path, encoding="utf-8").read()
    replay = load(replay_path)
    leaks, checked, first = hidden_shown(out, replay, seat)
    if leaks:
        fail("; ".join(leaks[:5]))
    if checked == 0:
        fail("no hidden card of another seat to check (nothing was tested)")
    # The check itself must see a leak: the first hidden card written into
    # a copy of what was printed at its step.
    step, name = first
    doctored = re.sub(rf"^(-- step {step}: your decision.*)$", rf"\1\nleak: {name}",
                      out, count=1, flags=re.M)
    if not hidden_shown(doctored, replay, seat)[0]:
        fail(f"the check misses {name} written into step {step}")
    print(f"ok: {checked} hidden cards of other seats, none shown to seat {seat} "
          f"(and {name} written into step {step} is caught)")


def main(argv):
    if len(argv) >= 5 and argv[1] in ("played", "noleak"):
        (played if argv[1] == "played" else noleak)(argv[2], argv[3], int(argv[4]))
    elif len(argv) == 5 and argv[1] == "forfeit":
        forfeit(argv[2], int(argv[3]), argv[4])
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
