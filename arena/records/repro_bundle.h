// Repro bundles (arena.v1.ReproBundle, proto/arena/v1/repro.proto): for a
// seat whose bot had a fault in a match (a timeout, an illegal index, a
// crash, a disconnection, a cut-off, not being there when asked; not a
// no-show, which was sent nothing), the messages that seat was sent up to
// and including the request of its first fault, its answers to them, the
// fault, and the ids of the match. Made from the finished record through
// SeatTranscripts (arena/records/seat_transcript.h): the referee's own code
// rebuilds what the seat was sent, and nothing else of the record (the seed,
// its reveal, the MatchEnd, other seats' views) is copied in.
//
// Files: `<records>/repro/<bot>/<match_id>-seat<S>.json`, one bundle as
// indented JSON (proto field names, every field present), mode 0600 in
// folders of mode 0700, written atomically (a temporary file renamed).
//
// ReproBundleWriter writes a tournament's bundles on a thread of its own,
// after each match's record is complete, so no match waits for them; a
// bundle that cannot be made or written is logged (spdlog, error) and
// costs nothing else: the record and the standings are never touched.
//
// ReadReproBundle reads a bundle as hostile input: a regular file of at most
// kMaxReproBundleBytes, protobuf's JSON parser (unknown fields and wrong
// types refused), then CheckReproBundle. Every error names the file and
// what is wrong.
//
// Thread safety: the functions are plain; a ReproBundleWriter may be fed
// from any thread (Add, the hook) and is finished by its owner.
#ifndef ARENA_ARENA_RECORDS_REPRO_BUNDLE_H_
#define ARENA_ARENA_RECORDS_REPRO_BUNDLE_H_

#include <cstdint>
#include <deque>
#include <map>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "arena/stats/standings.h"
#include "arena/v1/record.pb.h"
#include "arena/v1/repro.pb.h"

namespace arena {

inline constexpr int kReproBundleFormat = 1;
// The largest bundle ReadReproBundle reads (a whole Quodlibet partie's
// messages to one seat are some 2 MiB).
inline constexpr int64_t kMaxReproBundleBytes = int64_t{64} << 20;
// The folder of the bundles, inside a records folder.
inline constexpr char kReproDir[] = "repro";

// The bundles of one finished record: one per seat with a fault other than
// NO_SHOW, in seat order (none for a match without one).
absl::StatusOr<std::vector<v1::ReproBundle>> MakeReproBundles(
    const std::vector<v1::RecordLine>& lines, const std::string& source);

// `<records_dir>/repro/<bot>/<match_id>-seat<S>.json`; characters of the bot
// name or match id other than letters, digits, '.', '_' and '-' become '_'.
std::string ReproBundlePath(const std::string& records_dir,
                            const std::string& match_id, const std::string& bot,
                            int seat);

// Writes `bundle` to `path` (mode 0600, atomically), creating its missing
// folders with mode 0700.
absl::Status WriteReproBundle(const std::string& path,
                              const v1::ReproBundle& bundle);

// Reads and checks a bundle (see above).
absl::StatusOr<v1::ReproBundle> ReadReproBundle(const std::string& path);

// Whether a parsed bundle is one ReproBundle: format, ids, a MatchStart and
// requests that name its match and seat, requests in order of decision id,
// answers that name their request, a fault at the last request. Errors say
// which field (e.g. "exchanges[3].request.match_id").
absl::Status CheckReproBundle(const v1::ReproBundle& bundle);

class ReproBundleWriter {
 public:
  explicit ReproBundleWriter(std::string records_dir);
  ~ReproBundleWriter();  // Finish()
  ReproBundleWriter(const ReproBundleWriter&) = delete;
  ReproBundleWriter& operator=(const ReproBundleWriter&) = delete;

  // A tournament's on_recorded hook that queues each match with a fault and
  // then calls `next` (if any), returning its answer.
  std::function<bool(const MatchSummary&)> Hook(
      std::function<bool(const MatchSummary&)> next);
  // Queues the match if a seat of it had a fault other than NO_SHOW and its
  // bundles are not all written yet (a resumed tournament books its old
  // matches again). Its record must be complete in the records folder.
  void Add(const MatchSummary& match);

  struct Totals {
    int written = 0;
    int failed = 0;  // bundles, or records that gave none; each logged
    // Faulty matches given no bundle because each of their faulty bots
    // already had kMaxMatchesPerBot matches bundled: a bot that faults in
    // every match of a long tournament costs neither the disk nor the
    // writer's time without bound, and its first faults are the ones kept.
    int capped = 0;
    // Faulty matches whose every fault is a no-show: a withdrawn bot is sent
    // nothing, so there is nothing to bundle (nor is its cap touched). A
    // bot withdrawn early has few bundles and many such matches.
    int no_show = 0;
  };
  static constexpr int kMaxMatchesPerBot = 32;
  // Waits until every queued match is done; Add after it is ignored.
  Totals Finish();

 private:
  void Loop();
  void WriteMatch(const std::string& match_id);

  const std::string dir_;
  absl::Mutex mu_;
  std::deque<std::string> queue_ ABSL_GUARDED_BY(mu_);  // match ids
  std::map<std::string, int> queued_per_bot_ ABSL_GUARDED_BY(mu_);
  bool finishing_ ABSL_GUARDED_BY(mu_) = false;
  Totals totals_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;  // started by the first Add that queues
};

}  // namespace arena

#endif  // ARENA_ARENA_RECORDS_REPRO_BUNDLE_H_
