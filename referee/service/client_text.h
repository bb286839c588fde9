// Text a client sent, or its address, as the hub echoes it in notices and
// log lines.
//
// Free functions of their arguments only: no state, safe from any thread.
#ifndef ARENA_REFEREE_SERVICE_CLIENT_TEXT_H_
#define ARENA_REFEREE_SERVICE_CLIENT_TEXT_H_

#include <string>

namespace arena {

// `s` clipped to kMaxEchoedId bytes (at a UTF-8 character boundary), with the
// full length said when clipped.
std::string Clip(const std::string& s);

// The address part of a gRPC peer ("ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1").
std::string PeerHost(const std::string& peer);

}  // namespace arena

#endif  // ARENA_REFEREE_SERVICE_CLIENT_TEXT_H_
