#!/usr/bin/python3
"""A random bot in Python: the bot protocol with nothing but gRPC.

Plays a uniformly random legal action in any game. Run it under Debian's
/usr/bin/python3 (python3-grpcio, python3-protobuf), from the checkout's top
folder, as arena starts a bot:

    build/bin/arena match --game quasenbo --bot me="python3 bots/python/random_bot.py" \
        --bot rnd=build/bin/random_bot

It finds the stubs the build generates from proto/ (build/python) by itself,
from its own folder or the working folder (see STUBS below): the sandbox
passes no PYTHONPATH. A copy of it as my_bot.py in the checkout's top folder
runs the same way. By hand, against a referee of your own:

    /usr/bin/python3 bots/python/random_bot.py --address 127.0.0.1:50051 --token SECRET

With --notes each answer carries a note (Decision.note: "python: random 3
of 7"), which the record and replays show beside the decision and no other
bot sees (docs/bots.md#notes). The address and token may also come from
ARENA_ADDRESS and ARENA_TOKEN. With
ARENA_TLS_CA (a PEM file) it connects with TLS, trusting that CA. A broken
stream is opened again (0.1 s, then up to 2 s between tries, for 30 s since
the bot was last connected); the referee's Resync brings back every live
match and its open decisions.
"""
import argparse
import hashlib
import os
import queue
import random
import sys
import time

# The stubs the build generates (build/python), found beside this file (a
# copy in the checkout's top folder), two folders up (bots/python/) or under
# the working folder, go before PYTHONPATH: arena's sandbox passes no
# PYTHONPATH and starts a bot in the folder arena runs in
# (docs/bots.md#python).
HERE = os.path.dirname(os.path.abspath(__file__))
STUBS = [os.path.join(top, "build", "python")
         for top in (HERE, os.path.dirname(os.path.dirname(HERE)), os.getcwd())]
for stubs in reversed(STUBS):
    if os.path.isfile(os.path.join(stubs, "arena", "v1", "arena_pb2.py")):
        sys.path.insert(0, stubs)

import grpc  # noqa: E402 (after the stubs' folder is on sys.path)

from arena.v1 import arena_pb2  # noqa: E402
from arena.v1 import arena_pb2_grpc  # noqa: E402


def seed_commitment(match_id: str, seed: int, salt: str) -> str:
    """The referee's commitment to a match seed (docs/security.md)."""
    text = f"arena-seed-commitment-v1\n{match_id}\n{seed}\n{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=os.environ.get("ARENA_ADDRESS", ""))
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN", ""))
    parser.add_argument("--notes", action="store_true",
                        help="say why in each answer's note (Decision.note)")
    args = parser.parse_args()
    if not args.address or not args.token:
        print("random_bot.py: need --address and --token "
              "(or ARENA_ADDRESS and ARENA_TOKEN)", file=sys.stderr)
        return 2

    credentials = None
    ca_path = os.environ.get("ARENA_TLS_CA", "")
    if ca_path:
        try:
            with open(ca_path, "rb") as f:
                credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
        except OSError as error:
            print(f"random_bot.py: ARENA_TLS_CA: {error}", file=sys.stderr)
            return 2
    options = [("grpc.keepalive_time_ms", 10000),
               ("grpc.keepalive_timeout_ms", 5000),
               ("grpc.keepalive_permit_without_calls", 1)]
    last_up = time.monotonic()
    wait = 0.1
    commits = Commitments()
    while True:
        welcomed = [False]
        code, details = play_once(args, credentials, options, welcomed, commits)
        if code is None:  # the referee ended the stream
            print(f"random_bot.py: seed commitments: {commits.verified} verified, "
                  f"{commits.failed} did not open", file=sys.stderr)
            return 0 if commits.failed == 0 else 1
        if code in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.ABORTED,
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    grpc.StatusCode.INVALID_ARGUMENT):
            print(f"random_bot.py: {code.name}: {details}", file=sys.stderr)
            return 1
        if welcomed[0]:
            last_up = time.monotonic()
            wait = 0.1
        if time.monotonic() - last_up > 30:
            print(f"random_bot.py: {code.name}: {details}", file=sys.stderr)
            return 1
        print(f"random_bot.py: {code.name}: {details}; reconnecting in {wait:.1f} s",
              file=sys.stderr)
        time.sleep(wait)
        wait = min(wait * 2, 2.0)


def decide(request):
    """A uniformly random legal action, reproducible per match and decision."""
    rng = random.Random(f"{request.match_id}/{request.decision_id}")
    return arena_pb2.BotMessage(decision=arena_pb2.Decision(
        match_id=request.match_id, decision_id=request.decision_id,
        action_index=rng.randrange(len(request.legal_actions))))


def answer(request, notes):
    """decide()'s answer; with `notes` (--notes), and no note of its own, a
    note saying what it chose (Decision.note: the referee keeps 256 bytes,
    the record and replays show it, no other bot sees it)."""
    message = decide(request)
    if notes and not message.decision.note:
        message.decision.note = (f"python: random {message.decision.action_index} "
                                 f"of {len(request.legal_actions)}; time "
                                 f"{request.deadline_ms} ms + bank {request.time_bank_ms} ms")
    return message


class Commitments:
    """Checks every match's seed commitment when the match ends; kept across
    reconnects."""

    def __init__(self):
        self.committed = {}  # match id -> commitment sent at MatchStart
        self.verified = 0
        self.failed = 0

    def note(self, start):
        self.committed[start.match_id] = start.seed_commitment

    def check(self, end):
        committed = self.committed.pop(end.match_id, None)
        if committed is None:
            return  # a second seat of the same match
        reveal = end.result.reveal
        if seed_commitment(end.match_id, reveal.seed, reveal.salt) == committed:
            self.verified += 1
        else:
            self.failed += 1
            print(f"random_bot.py: match {end.match_id}: the revealed seed does "
                  "not open the commitment made at the start", file=sys.stderr)


def play_once(args, credentials, options, welcomed, commits):
    """One stream, from Hello to its end: (None, "") if the referee ended it
    normally, else the status code and details."""
    outgoing: "queue.Queue[arena_pb2.BotMessage | None]" = queue.Queue()
    outgoing.put(arena_pb2.BotMessage(
        hello=arena_pb2.Hello(token=args.token, protocol_version=1,
                              client="python-random-bot/1")))

    def requests():
        while True:
            message = outgoing.get()
            if message is None:
                return
            yield message

    if credentials is not None:
        channel = grpc.secure_channel(args.address, credentials, options=options)
    else:
        channel = grpc.insecure_channel(args.address, options=options)
    with channel:
        stub = arena_pb2_grpc.RefereeStub(channel)
        try:
            for message in stub.Play(requests()):
                kind = message.WhichOneof("kind")
                if kind == "welcome":
                    welcomed[0] = True
                elif kind == "decision_request":
                    outgoing.put(answer(message.decision_request, args.notes))
                elif kind == "resync":
                    commits.note(message.resync.match_start)
                    for request in message.resync.open_decisions:
                        outgoing.put(answer(request, args.notes))
                elif kind == "match_start":
                    commits.note(message.match_start)
                elif kind == "match_end":
                    commits.check(message.match_end)
                elif kind == "notice":
                    print(f"referee notice: {message.notice.message}",
                          file=sys.stderr)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                return error.code(), error.details()
            return grpc.StatusCode.CANCELLED, error.details()
        finally:
            outgoing.put(None)
    return None, ""


if __name__ == "__main__":
    sys.exit(main())
