#!/usr/bin/python3
"""A bot whose first answer carries a note that is not UTF-8 (bytes 0xFF
0xFE): not a valid arena.v1.Decision, since `note` is a proto3 string. No
protobuf library builds one, so the message is encoded by hand. Then it
answers nothing more (tests/bot_notes_e2e_test.cc: the referee cannot read
the message, ends this bot's stream, and the match goes on without it; no
other bot notices). With the argument "big", the note is valid UTF-8 but
100 KiB, over the referee's 64 KiB a message. Reads ARENA_ADDRESS and
ARENA_TOKEN."""
import os
import queue
import sys

import grpc

from arena.v1 import arena_pb2


def main() -> int:
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    play = channel.stream_stream("/arena.v1.Referee/Play",
                                 request_serializer=lambda raw: raw,
                                 response_deserializer=arena_pb2.RefereeMessage.FromString)
    outgoing = queue.Queue()
    outgoing.put(arena_pb2.BotMessage(hello=arena_pb2.Hello(
        token=os.environ["ARENA_TOKEN"], protocol_version=1)).SerializeToString())

    def messages():
        while True:
            raw = outgoing.get()
            if raw is None:
                return
            yield raw

    try:
        for message in play(messages()):
            if message.WhichOneof("kind") != "decision_request":
                continue
            request = message.decision_request
            if sys.argv[1:] == ["big"]:
                outgoing.put(arena_pb2.BotMessage(decision=arena_pb2.Decision(
                    match_id=request.match_id, decision_id=request.decision_id,
                    action_index=0, note="x" * 100 * 1024)).SerializeToString())
                print("sent a note of 100 KiB", file=sys.stderr, flush=True)
                continue
            decision = arena_pb2.Decision(match_id=request.match_id,
                                          decision_id=request.decision_id,
                                          action_index=0).SerializeToString()
            note = b"\xff\xfe not UTF-8"
            decision += b"\x22" + bytes([len(note)]) + note  # field 4, length-delimited
            outgoing.put(b"\x12" + bytes([len(decision)]) + decision)  # BotMessage.decision
            print("sent a note that is not UTF-8", file=sys.stderr, flush=True)
    except grpc.RpcError as error:
        print(f"invalid_note_bot.py: {error.code().name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
