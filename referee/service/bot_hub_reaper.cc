// BotHub's reaper (referee/service/bot_hub.h) and its streams' lifetimes.
// A stream is deleted once gRPC is done with it (Retire) and no one pins it
// (Unpin). The reaper wakes every 100 ms and runs five timers: streams
// without Hello (refused after the back-off, or closed after hello_timeout),
// lazy reads due (HubOptions::lazy_read_wait), draining streams that outlive
// their second (cancelled), bots whose reconnect grace ran out (their open
// decisions fail as DISCONNECTED), and the log lines the budgets held back
// (suppressed lines, cut-offs, evictions; stale per-address back-offs go).
#include "referee/clock/mono_clock.h"
#include "referee/service/bot_hub.h"

#include <iterator>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "referee/service/bot_connection.h"
#include "referee/service/match_link.h"
#include "spdlog/spdlog.h"

namespace arena {

void BotHub::Drain(BotConnection* conn) {
  absl::MutexLock lock(&mu_);
  ++conn->hub_record().pins;
  draining_.emplace_back(conn, MonoNow() + absl::Seconds(1));
}

void BotHub::Retire(BotConnection* conn) {
  bool del;
  {
    absl::MutexLock lock(&mu_);
    conn->hub_record().done = true;
    del = conn->hub_record().pins == 0;
  }
  if (del) delete conn;
}

void BotHub::Unpin(BotConnection* conn) {
  bool del;
  {
    absl::MutexLock lock(&mu_);
    del = --conn->hub_record().pins == 0 && conn->hub_record().done;
  }
  if (del) delete conn;
}

void BotHub::ReaperLoop() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    AwaitWithMonoTimeout(&mu_, absl::Condition(&stop_), absl::Milliseconds(100));
    if (stop_) break;
    const absl::Time now = MonoNow();
    std::vector<BotConnection*> silent, refused;
    for (auto& [c, u] : unauthenticated_) {
      if (now >= u.refuse_at) {
        ++c->hub_record().pins;
        refused.push_back(c);
      } else if (now - u.created >= options_.hello_timeout) {
        ++c->hub_record().pins;
        silent.push_back(c);
      }
    }
    for (auto* c : silent) unauthenticated_.erase(c);
    for (auto* c : refused) unauthenticated_.erase(c);
    if (options_.lazy_reads) {
      for (auto& [id, c] : by_id_) c->StartDueRead(now, options_.lazy_read_wait);
    }
    std::vector<BotConnection*> stuck;
    for (auto it = draining_.begin(); it != draining_.end();) {
      if (now >= it->second) {
        stuck.push_back(it->first);  // its pin passes to `stuck`
        it = draining_.erase(it);
      } else {
        ++it;
      }
    }
    struct Gone {
      std::string bot;
      uint64_t last_conn;
      bool seated;  // holds a seat in a live match
    };
    std::vector<Gone> gone;
    for (auto& [name, b] : bots_) {
      if (b.away && now - b.away_since >= options_.reconnect_grace) {
        b.away = false;
        bool seated = false;
        for (const auto& [id, link] : links_) seated = seated || link->Has(name);
        gone.push_back({name, b.last_conn, seated});
      }
    }
    std::vector<std::string> notes, cut_notes;
    for (auto& [who, b] : budgets_) {
      if (b.suppressed > 0 && now - b.window >= absl::Seconds(10)) {
        notes.push_back(absl::StrCat(who, ": ", b.suppressed,
                                     " more log lines suppressed"));
        b.suppressed = 0;
      }
      if (b.cut_unlogged > 0 && now - b.cut_window >= absl::Seconds(10)) {
        cut_notes.push_back(absl::StrCat(who, " cut off ", b.cut_unlogged,
                                         " more times in 10 s, the last: ", b.cut_reason,
                                         "; its open decisions failed"));
        b.cut_unlogged = 0;
      }
    }
    std::string eviction_line = EvictionLogLine(now);
    if (!eviction_line.empty()) notes.push_back(std::move(eviction_line));
    for (auto it = peers_.begin(); it != peers_.end();) {
      it = now - it->second.last_failure > absl::Minutes(2) &&
                   now - it->second.last_log > absl::Minutes(1)
               ? peers_.erase(it)
               : std::next(it);
    }
    if (silent.empty() && refused.empty() && gone.empty() && notes.empty() &&
        stuck.empty()) {
      continue;
    }
    mu_.Unlock();
    for (auto* c : stuck) {
      c->CancelIfUnfinished();
      Unpin(c);
    }
    for (auto* c : refused) {
      c->Shutdown(grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "unknown token"));
      Unpin(c);
    }
    for (auto* c : silent) {
      c->Shutdown(grpc::Status(
          grpc::StatusCode::UNAUTHENTICATED,
          absl::StrCat("no Hello within ", absl::FormatDuration(options_.hello_timeout))));
      Unpin(c);
    }
    if (!silent.empty()) {
      Warn("streams without Hello",
           absl::StrCat("closed ", silent.size(), " stream(s) that sent no Hello within ",
                        absl::FormatDuration(options_.hello_timeout)));
    }
    for (const auto& n : notes) spdlog::warn("{}", n);
    for (const auto& n : cut_notes) spdlog::error("{}", n);
    for (const Gone& g : gone) {
      // A bot between matches (arena stopped its process while it was idle)
      // loses nothing: said, not warned.
      if (g.seated) {
        spdlog::warn("bot {} did not come back within {}; its open decisions fail",
                     g.bot, absl::FormatDuration(options_.reconnect_grace));
      } else {
        spdlog::log(ConnectionLevel(),
                    "bot {} did not come back within {} (it holds no seat in a "
                    "live match)",
                    g.bot, absl::FormatDuration(options_.reconnect_grace));
      }
      BotGone(g.bot, g.last_conn, v1::FAULT_KIND_DISCONNECTED, GoneDetail(g.bot));
    }
    mu_.Lock();
  }
}

}  // namespace arena
