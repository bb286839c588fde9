#!/usr/bin/env node
// An example arena bot in Node.js with grpc-js: connects to the referee,
// says Hello with its token and answers every decision request with a legal
// action. It plays any game: a random legal action, seeded by the match and
// decision so that a rerun plays the same. Replace choose() with your policy.
//
//   ARENA_ADDRESS=127.0.0.1:50051 ARENA_TOKEN=... node bots/node/bot.js
//   (ARENA_ADDRESS may also be unix:/path/to/socket; --address/--token work too)
//   --notes: each answer carries a note (Decision.note, at most 256 bytes
//   kept), which the record and replays show beside the decision and no
//   other bot sees (docs/bots.md#notes).
//
// Pitfalls handled here (see docs/bots.md): 64-bit ids arrive as strings
// (longs: String) and go back as they came; proto-loader keeps snake_case
// field names (keepCase); defaults: true so a 0 (card 0, seat 0) is present.
'use strict';
const path = require('path');
const crypto = require('crypto');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_DIR = process.env.ARENA_PROTO_DIR || path.join(__dirname, '..', '..', 'proto');

function arg(name) {
  const i = process.argv.indexOf(`--${name}`);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  const eq = process.argv.find((a) => a.startsWith(`--${name}=`));
  return eq ? eq.slice(name.length + 3) : undefined;
}

function loadArena() {
  const def = protoLoader.loadSync('arena/v1/arena.proto', {
    includeDirs: [PROTO_DIR],
    keepCase: true,   // match_id, not matchId
    longs: String,    // uint64 decision_id as a string: no precision lost
    enums: String,
    defaults: true,   // card 0 and seat 0 are there, not undefined
    oneofs: true,     // message.kind names the field that is set
  });
  return grpc.loadPackageDefinition(def).arena.v1;
}

// The policy: an index into request.legal_actions. `start` is the match's
// MatchStart (rules, seats), request.view what this seat may know.
function choose(start, request) {
  const h = crypto.createHash('sha256').update(`${request.match_id}/${request.decision_id}`).digest();
  return h.readUInt32BE(0) % request.legal_actions.length;
}

function main() {
  const address = arg('address') || process.env.ARENA_ADDRESS;
  const token = arg('token') || process.env.ARENA_TOKEN;
  if (!address || !token) {
    console.error('bot.js: need --address and --token (or ARENA_ADDRESS and ARENA_TOKEN)');
    return process.exit(2);
  }
  const notes = process.argv.includes('--notes');
  const arena = loadArena();
  const client = new arena.Referee(address, grpc.credentials.createInsecure());
  const starts = new Map();  // match_id/seat -> MatchStart
  let decisions = 0;
  let welcomed = false;
  let attempt = 0;

  const connect = () => {
    const call = client.Play();
    let broke = false;  // the stream ended with an error: 'end' follows, and we reconnect
    const answer = (r) => {
      const index = choose(starts.get(`${r.match_id}/${r.seat}`), r);
      const decision = { match_id: r.match_id, decision_id: r.decision_id, action_index: index };
      // time_bank_ms: what is left of this seat's time bank (docs/protocol.md).
      if (notes) {
        decision.note = `node: random ${index} of ${r.legal_actions.length}; ` +
            `time ${r.deadline_ms} ms + bank ${r.time_bank_ms} ms`;
      }
      call.write({ decision });
      ++decisions;
    };
    call.write({ hello: { token, protocol_version: 1, client: 'arena-node-example/1' } });
    call.on('data', (msg) => {
      switch (msg.kind) {
        case 'welcome':
          welcomed = true;
          attempt = 0;
          console.error(`bot.js: welcomed as ${msg.welcome.bot_name}`);
          break;
        case 'match_start':
          starts.set(`${msg.match_start.match_id}/${msg.match_start.seat}`, msg.match_start);
          break;
        case 'decision_request':
          answer(msg.decision_request);
          break;
        case 'resync': {
          // Back after a reconnect: the match, and the requests still open.
          const rs = msg.resync;
          starts.set(`${rs.match_id}/${rs.seat}`, rs.match_start);
          for (const r of rs.open_decisions) answer(r);
          break;
        }
        case 'match_end':
          starts.delete(`${msg.match_end.match_id}/${msg.match_end.seat}`);
          break;
        case 'notice':
          console.error(`bot.js: referee notice ${msg.notice.kind}: ${msg.notice.message}`);
          break;
        default:
          break;
      }
    });
    call.on('end', () => {
      if (broke) return;
      console.error(`bot.js: the referee ended the stream after ${decisions} decisions`);
      call.end();
      process.exit(0);
    });
    call.on('error', (err) => {
      broke = true;
      // UNAUTHENTICATED: a wrong token; retrying will not help.
      if (err.code === grpc.status.UNAUTHENTICATED) {
        console.error(`bot.js: refused: ${err.details}`);
        process.exit(1);
      }
      // The referee is not up yet, or went away: reconnect with backoff, a
      // few times. Decisions pending when the stream broke are faults (the
      // fault policy applies); a match still running sends its MatchStart
      // again before its next request (docs/bots.md).
      if (++attempt > 5) {
        console.error(`bot.js: giving up: ${err.code} ${err.details}`);
        process.exit(1);
      }
      const delay = Math.min(2000, 100 * 2 ** attempt);
      console.error(`bot.js: ${err.details} (${welcomed ? 'reconnecting' : 'retrying'} in ${delay} ms)`);
      setTimeout(connect, delay);
    });
  };
  connect();
}

if (require.main === module) main();
module.exports = { loadArena, choose };
