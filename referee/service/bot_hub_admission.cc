// BotHub's admission (referee/service/bot_hub.h): a new stream takes a place
// among those without Hello (Add, evicting the oldest when they are all
// taken), and its Hello is welcomed (Register: a valid token, taking over the
// bot's previous stream) or refused after its address's back-off.
#include "referee/clock/mono_clock.h"
#include "referee/service/bot_hub.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/service/bot_connection.h"
#include "referee/service/client_text.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

// How a bot's stream ends when a newer one of the bot takes over.
grpc::Status ReplacedStatus(const std::string& bot) {
  return grpc::Status(grpc::StatusCode::ABORTED,
                      absl::StrCat("replaced by a newer stream of bot ", bot));
}

}  // namespace

std::string BotHub::TokenDigest(const std::string& token) {
  unsigned char d[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), d);
  return std::string(reinterpret_cast<const char*>(d), sizeof d);
}

bool BotHub::Add(BotConnection* conn) {
  BotConnection* evicted = nullptr;
  bool refused = false;  // evicted while waiting for its unknown token's refusal
  std::string log_line;
  {
    absl::MutexLock lock(&mu_);
    if (closing_all_ || options_.max_unauthenticated <= 0) return false;
    if (static_cast<int>(unauthenticated_.size()) >= options_.max_unauthenticated) {
      // Full: make room rather than refuse the newcomer (who may be an
      // honest bot). The oldest by arrival of the streams waiting for their
      // unknown token's refusal, else of the silent ones; never the
      // newcomer, never a stream whose valid Hello was read (it is not in
      // unauthenticated_). At most max_unauthenticated entries, so a scan.
      auto victim = unauthenticated_.end();
      for (auto it = unauthenticated_.begin(); it != unauthenticated_.end(); ++it) {
        if (victim == unauthenticated_.end()) {
          victim = it;
          continue;
        }
        const bool waits = it->second.refuse_at != absl::InfiniteFuture();
        const bool victim_waits = victim->second.refuse_at != absl::InfiniteFuture();
        if (waits != victim_waits ? waits
                                  : it->second.arrival < victim->second.arrival) {
          victim = it;
        }
      }
      evicted = victim->first;
      refused = victim->second.refuse_at != absl::InfiniteFuture();
      ++evicted->hub_record().pins;  // it is not retired before its Shutdown below
      unauthenticated_.erase(victim);
      ++evicted_;
      ++evicted_unlogged_;
      if (refused) ++evicted_unlogged_refused_;
      log_line = EvictionLogLine(MonoNow());
    }
    unauthenticated_[conn] = HelloWait{conn->created(), ++next_arrival_};
  }
  if (evicted != nullptr) {
    // Not UNAUTHENTICATED or RESOURCE_EXHAUSTED for a silent one: bots take
    // those as final, and this may be an honest bot whose Hello was late.
    evicted->Shutdown(
        refused ? grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                               "unknown token (refused early: too many streams "
                               "without Hello)")
                : grpc::Status(grpc::StatusCode::UNAVAILABLE,
                               "too many streams without Hello; this one, the "
                               "oldest, was closed to make room: try again"));
    Unpin(evicted);
  }
  if (!log_line.empty()) spdlog::warn("{}", log_line);
  return true;
}

std::string BotHub::EvictionLogLine(absl::Time now) {
  if (evicted_unlogged_ == 0 || now - evicted_logged_ < absl::Seconds(10)) return "";
  std::string line = absl::StrCat(
      "streams without Hello: ", options_.max_unauthenticated,
      " at once, the cap; ", evicted_unlogged_,
      " evicted to make room for newer ones since the last such line (",
      evicted_unlogged_refused_, " waiting for an unknown token's refusal, ",
      evicted_unlogged_ - evicted_unlogged_refused_, " silent)");
  evicted_logged_ = now;
  evicted_unlogged_ = 0;
  evicted_unlogged_refused_ = 0;
  return line;
}

absl::Status BotHub::Register(BotConnection* conn, const std::string& token) {
  const std::string host = PeerHost(conn->peer());
  const std::string digest = TokenDigest(token);
  // Every digest is compared, each in constant time.
  const std::string* found = nullptr;
  for (const auto& [d, name] : token_digests_) {
    if (CRYPTO_memcmp(d.data(), digest.data(), d.size()) == 0) found = &name;
  }
  BotConnection* old = nullptr;
  bool standby = false;  // held as the bot's standby (ExpectStandby)
  bool retired = false;  // a token PromoteStandby retired: refused
  std::string log_line;
  {
    absl::MutexLock lock(&mu_);
    const absl::Time now = MonoNow();
    if (found != nullptr && unauthenticated_.count(conn) == 0) {
      // Evicted for a newer stream (Add), or timed out, while its Hello was
      // being read: it is being closed, and is not registered.
      return absl::UnavailableError("stream closed before its Hello was read");
    }
    // A valid token is welcomed whatever its address's back-off (which
    // it leaves as it is: an honest bot does not reset a guesser's wait).
    if (found == nullptr) {
      PeerState& ps = peers_[host];
      // A quiet spell forgives: the back-off starts again from the first.
      if (now - ps.last_failure > 10 * options_.token_backoff_max) ps.failures = 0;
      ++ps.failures;
      ++ps.unlogged;
      absl::Duration wait = options_.token_backoff_first;
      for (int i = 1; i < ps.failures && wait < options_.token_backoff_max; ++i) wait *= 2;
      wait = std::min(wait, options_.token_backoff_max);
      ps.last_failure = now;
      // The answer waits; the stream keeps its place among the streams
      // without Hello meanwhile (max_unauthenticated, hello_timeout bound
      // it), so guesses are slowed without the hub holding more.
      auto u = unauthenticated_.find(conn);
      if (u != unauthenticated_.end()) {
        u->second.refuse_at =
            std::min(now + wait, u->second.created + options_.hello_timeout);
      }
      if (now - ps.last_log >= absl::Minutes(1)) {
        log_line = absl::StrCat("unknown token from ", host, " (", ps.unlogged,
                                " since the last such line); its unknown tokens are now "
                                "refused after ",
                                absl::FormatDuration(wait));
        ps.last_log = now;
        ps.unlogged = 0;
      }
    } else if (BotState& b = bots_[*found]; b.retired_digests.count(digest) > 0) {
      // The bot's previous process, which finishes its matches on the
      // stream it has: it may not become the bot's live stream again (it
      // would be resynced into its next process's matches).
      unauthenticated_.erase(conn);
      retired = true;
    } else {
      conn->set_id(++next_conn_id_);
      conn->set_bot_name(*found);
      by_id_[conn->id()] = conn;
      unauthenticated_.erase(conn);
      // A successor process while the bot's current one plays
      // (ExpectStandby): held, never live before PromoteStandby (a second
      // one takes the first's place).
      standby = !b.standby_digest.empty() &&
                CRYPTO_memcmp(b.standby_digest.data(), digest.data(), digest.size()) == 0;
      if (standby) {
        old = b.standby;
        b.standby = conn;
      } else {
        old = MakeLiveLocked(*found, b, conn);
        b.live_digest = digest;
      }
      // The old stream takes nothing more; a live one's decisions move to
      // the new one in the resync. Marked before the new stream is
      // welcomed: the bot, once welcomed, may hang the old one up, and must
      // still be told why it ended.
      if (old != nullptr) OutOfServiceLocked(old, ReplacedStatus(*found));
      OutMessage msg;
      msg->mutable_welcome()->set_bot_name(*found);
      msg->mutable_welcome()->set_protocol_version(1);
      msg->mutable_welcome()->set_referee_version(ARENA_VERSION);
      conn->Enqueue(std::move(msg));
    }
  }
  if (found == nullptr) {
    if (!log_line.empty()) spdlog::warn("{}", log_line);
    return absl::UnauthenticatedError("unknown token");
  }
  if (retired) {
    const std::string why = absl::StrCat(
        "bot ", *found, ": this process was replaced by the bot's next one; it finishes "
        "the matches it is in on the stream it has, and may not connect again");
    Log(absl::StrCat("bot ", *found), spdlog::level::warn,
        absl::StrCat(why, " (a stream from ", conn->peer(), " refused)"));
    conn->Shutdown(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, why));
    return absl::FailedPreconditionError(why);
  }
  Log(absl::StrCat("bot ", *found), ConnectionLevel(),
      absl::StrCat("bot ", *found, " connected from ", conn->peer(),
                   standby           ? ", its next process, held until its current one is done"
                   : old != nullptr ? ", replacing its previous stream"
                                    : ""));
  if (old != nullptr) EndOutOfService(old, ReplacedStatus(*found));
  return absl::OkStatus();
}

BotConnection* BotHub::MakeLiveLocked(const std::string& bot, BotState& b,
                                      BotConnection* conn) {
  BotConnection* old = b.live;
  b.live = conn;
  b.away = false;
  b.down = false;  // a new process (or the same one back): asked again
  b.down_detail.clear();
  b.last_conn = conn->id();
  ++connect_count_[bot];
  return old;
}

void BotHub::OutOfServiceLocked(BotConnection* conn, const grpc::Status& why) {
  conn->MarkClosing(why);
  by_id_.erase(conn->id());
  ++conn->hub_record().pins;
}

void BotHub::EndOutOfService(BotConnection* conn, const grpc::Status& why) {
  conn->Shutdown(why);
  Unpin(conn);
}

void BotHub::ExpectStandby(const std::string& bot, const std::string& token) {
  const std::string digest = TokenDigest(token);
  absl::MutexLock lock(&mu_);
  BotState& b = bots_[bot];
  b.standby_digest = digest;
  // A retired token is a new process's now (the one that had it is gone).
  b.retired_digests.erase(digest);
}

bool BotHub::HasStandby(const std::string& bot) const {
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(bot);
  return it != bots_.end() && it->second.standby != nullptr;
}

bool BotHub::PromoteStandby(const std::string& bot, bool retire_live) {
  BotConnection* old = nullptr;
  {
    absl::MutexLock lock(&mu_);
    BotState& b = bots_[bot];
    if (b.standby == nullptr) {
      b.standby_digest.clear();
      return false;
    }
    // The standby's token is the bot's live one now; the previous one's is
    // refused if that process stays for its matches.
    if (retire_live) b.retired_digests.insert(b.live_digest);
    const std::string retired = b.live_digest;
    b.live_digest = std::move(b.standby_digest);
    b.standby_digest.clear();
    BotConnection* conn = b.standby;
    b.standby = nullptr;
    const uint64_t before = b.last_conn;
    old = MakeLiveLocked(bot, b, conn);
    if (retire_live && old != nullptr) {
      b.retiring[retired] = old;
      old = nullptr;
    } else if (retire_live && before != 0) {
      // The previous process's stream was already gone (within the
      // grace): its seats have lost it, as if it had ended retiring.
      b.lost.insert(before);
    }
    if (old != nullptr) OutOfServiceLocked(old, ReplacedStatus(bot));
  }
  Log(absl::StrCat("bot ", bot), ConnectionLevel(),
      absl::StrCat("bot ", bot, ": its next process's stream is now its live one",
                   retire_live ? "; its previous one finishes its matches" : ""));
  if (old != nullptr) EndOutOfService(old, ReplacedStatus(bot));
  return true;
}

bool BotHub::RestoreStandby(const std::string& bot, const std::string& token) {
  // (No new seat is ever bound to a retiring stream: once it holds none,
  // it never will, and no match can bind one between this check and the
  // move below.)
  if (RetiringBusy(bot, token)) return false;
  const std::string digest = TokenDigest(token);
  absl::MutexLock lock(&mu_);
  auto it = bots_.find(bot);
  if (it == bots_.end()) return false;
  BotState& b = it->second;
  auto r = b.retiring.find(digest);
  if (r == b.retiring.end() || b.standby != nullptr) return false;
  b.standby = r->second;
  b.standby_digest = digest;
  b.retiring.erase(r);
  b.retired_digests.erase(digest);
  return true;
}

void BotHub::CancelStandby(const std::string& bot) {
  BotConnection* conn = nullptr;
  const grpc::Status ended(grpc::StatusCode::ABORTED,
                           absl::StrCat("bot ", bot, ": this process is no longer wanted"));
  {
    absl::MutexLock lock(&mu_);
    BotState& b = bots_[bot];
    b.standby_digest.clear();
    conn = b.standby;
    b.standby = nullptr;
    if (conn == nullptr) return;
    OutOfServiceLocked(conn, ended);
  }
  EndOutOfService(conn, ended);
}

}  // namespace arena
