#!/usr/bin/env python3
"""An arena bot in plain Python: no gRPC, no protobuf, only JSON lines.

Run it through arena_stdio, which speaks gRPC with the referee:

    build/bin/arena tournament --game pesten --games 6 --records out \\
        --bot me="build/bin/arena_stdio python3 bots/stdio/example_bot.py" \\
        --bot rnd=build/bin/random_bot

Every line on stdin is one message from the referee (protobuf's JSON mapping,
every field present, proto field names) with a "kind": match_start,
decision_request, match_end or notice. Each decision_request is answered with
one line on stdout, {"action_index": N}, N an index into its legal_actions.
Anything for people goes to stderr (the bot's log), never stdout.

The policy, choose(), plays any of the four games: a random legal action,
seeded by the match and decision so that reruns play the same. Replace it
with your own; `start` is the match's match_start (rules: the card catalogue),
request["view"] what your seat may know now.
"""
import json
import random
import sys


def choose(start, request):
    actions = request["legal_actions"]
    rng = random.Random(f"{request['match_id']}/{request['decision_id']}")
    return rng.randrange(len(actions))


def main():
    starts = {}
    decisions = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["kind"]
        if kind == "match_start":
            starts[(message["match_id"], message["seat"])] = message
        elif kind == "decision_request":
            start = starts.get((message["match_id"], message["seat"]))
            index = choose(start, message)
            print(json.dumps({"action_index": index}), flush=True)
            decisions += 1
        elif kind == "match_end":
            result = message["result"]
            starts.pop((message["match_id"], message["seat"]), None)
            print(f"example_bot.py: {message['match_id']} seat {message['seat']}: "
                  f"score {result['scores'][message['seat']]}", file=sys.stderr)
        elif kind == "notice":
            print(f"example_bot.py: notice {message['notice_kind']}: {message['message']}",
                  file=sys.stderr)
    print(f"example_bot.py: input ended after {decisions} decisions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
