#!/usr/bin/python3
"""A random bot in Python: the bot protocol with nothing but gRPC.

Plays a uniformly random legal action in any game. Run it under Debian's
/usr/bin/python3 (python3-grpcio, python3-protobuf) with the stubs that the
build generates from proto/ (build/python) on PYTHONPATH:

    PYTHONPATH=build/python /usr/bin/python3 bots/python/random_bot.py \
        --address 127.0.0.1:50051 --token SECRET

The address and token may also come from ARENA_ADDRESS and ARENA_TOKEN.
"""
import argparse
import hashlib
import os
import queue
import random
import sys

import grpc

from arena.v1 import arena_pb2
from arena.v1 import arena_pb2_grpc


def seed_commitment(match_id: str, seed: int, salt: str) -> str:
    """The referee's commitment to a match seed (docs/security.md)."""
    text = f"arena-seed-commitment-v1\n{match_id}\n{seed}\n{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=os.environ.get("ARENA_ADDRESS", ""))
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN", ""))
    args = parser.parse_args()
    if not args.address or not args.token:
        print("random_bot.py: need --address and --token "
              "(or ARENA_ADDRESS and ARENA_TOKEN)", file=sys.stderr)
        return 2

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

    commitments = {}  # match id -> commitment sent at MatchStart
    verified = failed = 0
    with grpc.insecure_channel(args.address) as channel:
        stub = arena_pb2_grpc.RefereeStub(channel)
        try:
            for message in stub.Play(requests()):
                kind = message.WhichOneof("kind")
                if kind == "decision_request":
                    request = message.decision_request
                    # Reproducible: seeded by the match and decision.
                    rng = random.Random(f"{request.match_id}/{request.decision_id}")
                    choice = rng.randrange(len(request.legal_actions))
                    outgoing.put(arena_pb2.BotMessage(decision=arena_pb2.Decision(
                        match_id=request.match_id,
                        decision_id=request.decision_id,
                        action_index=choice)))
                elif kind == "match_start":
                    start = message.match_start
                    commitments[start.match_id] = start.seed_commitment
                elif kind == "match_end":
                    end = message.match_end
                    committed = commitments.pop(end.match_id, None)
                    if committed is None:
                        continue  # a second seat of the same match
                    reveal = end.result.reveal
                    if seed_commitment(end.match_id, reveal.seed,
                                       reveal.salt) == committed:
                        verified += 1
                    else:
                        failed += 1
                        print(f"random_bot.py: match {end.match_id}: the "
                              "revealed seed does not open the commitment "
                              "made at the start", file=sys.stderr)
                elif kind == "notice":
                    print(f"referee notice: {message.notice.message}",
                          file=sys.stderr)
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.CANCELLED:
                print(f"random_bot.py: {error.code().name}: {error.details()}",
                      file=sys.stderr)
                return 1
        finally:
            outgoing.put(None)
    print(f"random_bot.py: seed commitments: {verified} verified, "
          f"{failed} did not open", file=sys.stderr)
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
