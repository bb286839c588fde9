#include "referee/service/client_text.h"

#include "absl/strings/str_cat.h"
#include "referee/service/hub_options.h"

namespace arena {

std::string Clip(const std::string& s) {
  if (s.size() <= kMaxEchoedId) return s;
  size_t n = kMaxEchoedId;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return absl::StrCat(s.substr(0, n), "...(", s.size(), " bytes)");
}

std::string PeerHost(const std::string& peer) {
  if (peer.rfind("ipv4:", 0) == 0 || peer.rfind("ipv6:", 0) == 0) {
    const size_t colon = peer.rfind(':');
    if (colon > 5) return peer.substr(0, colon);
  }
  return peer;
}

}  // namespace arena
