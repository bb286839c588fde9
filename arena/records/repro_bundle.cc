#include "arena/records/repro_bundle.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "arena/common/json_file.h"
#include "arena/records/seat_transcript.h"
#include "referee/records/bot_note.h"
#include "google/protobuf/util/json_util.h"
#include "referee/records/record.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

std::string SafeName(const std::string& s) {
  std::string out = s.empty() ? "_" : s;
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  if (out == "." || out == "..") out = "_";
  return out;
}

absl::Status MakePrivateDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST) return absl::OkStatus();
  return absl::UnavailableError(
      absl::StrCat("cannot create ", dir, ": ", std::strerror(errno)));
}

// The bundle of `t` up to its first fault, or none (no fault, or a no-show).
bool BundleOf(const v1::RecordHeader& h, const SeatTranscript& t,
              v1::ReproBundle* b) {
  size_t at = 0;
  while (at < t.requests.size() &&
         t.requests[at].answer.source() != v1::SeatAction::SOURCE_REFEREE_FAULT) {
    ++at;
  }
  if (at == t.requests.size()) return false;
  const v1::SeatAction& faulted = t.requests[at].answer;
  if (faulted.fault() == v1::FAULT_KIND_NO_SHOW) return false;
  b->set_format_version(kReproBundleFormat);
  b->set_match_id(h.match_id());
  b->set_tournament_id(h.tournament_id());
  b->set_game(h.game());
  *b->mutable_options() = h.options();
  b->set_seat(t.seat);
  b->set_bot(h.seat_bots(t.seat));
  *b->mutable_match_start() = t.start;
  for (size_t i = 0; i <= at; ++i) {
    const SeatRequest& r = t.requests[i];
    v1::ReproExchange* x = b->add_exchanges();
    *x->mutable_request() = r.request;
    v1::ReproAnswer* a = x->mutable_answer();
    a->set_decision_id(r.request.decision_id());
    switch (r.answer.source()) {
      case v1::SeatAction::SOURCE_BOT:
        a->set_recorded(true);
        a->set_action(r.answer.action());
        a->set_label(r.answer.label());
        a->set_note(r.answer.note());  // the seat's own note, to its own author
        a->set_note_cut_bytes(r.answer.note_cut_bytes());
        break;
      case v1::SeatAction::SOURCE_REFEREE_FAULT:
        // Not the action the referee drew in its place: the bot never saw it.
        a->set_recorded(true);
        a->set_fault(r.answer.fault());
        a->set_fault_detail(r.answer.fault_detail());
        break;
      default:
        break;
    }
  }
  v1::ReproFault* f = b->mutable_fault();
  f->set_kind(faulted.fault());
  f->set_detail(faulted.fault_detail());
  f->set_step(t.requests[at].request.step());
  f->set_decision_id(t.requests[at].request.decision_id());
  return true;
}

absl::Status Bad(const std::string& what) {
  return absl::InvalidArgumentError(what);
}

}  // namespace

absl::StatusOr<std::vector<v1::ReproBundle>> MakeReproBundles(
    const std::vector<v1::RecordLine>& lines, const std::string& source) {
  auto transcripts = SeatTranscripts(lines, source);
  if (!transcripts.ok()) return transcripts.status();
  std::vector<v1::ReproBundle> out;
  for (const SeatTranscript& t : *transcripts) {
    v1::ReproBundle b;
    if (BundleOf(lines.front().header(), t, &b)) out.push_back(std::move(b));
  }
  return out;
}

std::string ReproBundlePath(const std::string& records_dir,
                            const std::string& match_id, const std::string& bot,
                            int seat) {
  return absl::StrCat(records_dir, "/", kReproDir, "/", SafeName(bot), "/",
                      SafeName(match_id), "-seat", seat, ".json");
}

absl::Status WriteReproBundle(const std::string& path,
                              const v1::ReproBundle& bundle) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const size_t up = dir.rfind('/');
  if (up != std::string::npos) {
    if (absl::Status s = MakePrivateDir(dir.substr(0, up)); !s.ok()) return s;
  }
  if (absl::Status s = MakePrivateDir(dir); !s.ok()) return s;
  google::protobuf::util::JsonPrintOptions po;
  po.add_whitespace = true;
  po.always_print_primitive_fields = true;
  po.preserve_proto_field_names = true;
  std::string json;
  if (auto st = google::protobuf::util::MessageToJsonString(bundle, &json, po); !st.ok()) {
    return absl::InternalError(absl::StrCat(path, ": ", st.ToString()));
  }
  // Private like the records it comes from: the organiser hands it out.
  return WriteFileAtomically(path, json, 0600);
}

absl::Status CheckReproBundle(const v1::ReproBundle& b) {
  if (b.format_version() != kReproBundleFormat) {
    return Bad(absl::StrCat("format_version is ", b.format_version(), ", not ",
                            kReproBundleFormat));
  }
  if (b.match_id().empty()) return Bad("match_id is missing");
  if (b.game().empty()) return Bad("game is missing");
  if (b.bot().empty()) return Bad("bot is missing");
  if (!b.has_match_start()) return Bad("match_start is missing");
  const v1::MatchStart& s = b.match_start();
  if (s.num_seats() < 1 || b.seat() < 0 || b.seat() >= s.num_seats()) {
    return Bad(absl::StrCat("seat ", b.seat(), " is not a seat of ",
                            s.num_seats(), " (match_start.num_seats)"));
  }
  if (s.match_id() != b.match_id()) {
    return Bad(absl::StrCat("match_start.match_id '", s.match_id(),
                            "' is not the bundle's match_id '", b.match_id(), "'"));
  }
  if (s.seat() != b.seat()) {
    return Bad(absl::StrCat("match_start.seat ", s.seat(), " is not the bundle's seat ",
                            b.seat()));
  }
  if (s.game() != b.game()) {
    return Bad(absl::StrCat("match_start.game '", s.game(), "' is not the bundle's game '",
                            b.game(), "'"));
  }
  if (b.exchanges().empty()) return Bad("exchanges is empty: no request to send");
  uint64_t last_id = 0;
  for (int i = 0; i < b.exchanges_size(); ++i) {
    const v1::ReproExchange& x = b.exchanges(i);
    const std::string at = absl::StrCat("exchanges[", i, "]");
    if (!x.has_request()) return Bad(absl::StrCat(at, ".request is missing"));
    const v1::DecisionRequest& r = x.request();
    if (r.match_id() != b.match_id()) {
      return Bad(absl::StrCat(at, ".request.match_id '", r.match_id(),
                              "' is not the bundle's match_id '", b.match_id(), "'"));
    }
    if (r.seat() != b.seat()) {
      return Bad(absl::StrCat(at, ".request.seat ", r.seat(), " is not the bundle's seat ",
                              b.seat()));
    }
    if (r.decision_id() <= last_id) {
      return Bad(absl::StrCat(at, ".request.decision_id ", r.decision_id(),
                              " does not follow the one before (", last_id, ")"));
    }
    last_id = r.decision_id();
    if (r.legal_actions().empty()) {
      return Bad(absl::StrCat(at, ".request.legal_actions is empty"));
    }
    if (r.deadline_ms() < 1 || r.deadline_ms() > 3'600'000) {
      return Bad(absl::StrCat(at, ".request.deadline_ms ", r.deadline_ms(),
                              " is not in [1, 3600000]"));
    }
    if (x.answer().decision_id() != r.decision_id()) {
      return Bad(absl::StrCat(at, ".answer.decision_id ", x.answer().decision_id(),
                              " is not its request's (", r.decision_id(), ")"));
    }
    // (replay-bot prints it: no control character, as a record holds it.)
    if (absl::Status s = CheckRecordedNote(x.answer().note(), x.answer().note_cut_bytes());
        !s.ok()) {
      return Bad(absl::StrCat(at, ".answer: ", s.message()));
    }
  }
  const v1::ReproFault& f = b.fault();
  if (f.kind() == v1::FAULT_KIND_UNSPECIFIED || !v1::FaultKind_IsValid(f.kind())) {
    return Bad(absl::StrCat("fault.kind ", f.kind(), " is not a fault"));
  }
  if (f.decision_id() != last_id) {
    return Bad(absl::StrCat("fault.decision_id ", f.decision_id(),
                            " is not the last request's (", last_id, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::ReproBundle> ReadReproBundle(const std::string& path) {
  if (absl::Status s = CheckRegularFile(path, /*follow_symlink=*/true); !s.ok()) return s;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  }
  std::string text;
  struct stat st;
  absl::Status status;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    status = absl::FailedPreconditionError(absl::StrCat(path, ": not a regular file"));
  } else if (st.st_size > kMaxReproBundleBytes) {
    status = absl::InvalidArgumentError(absl::StrCat(
        path, ": ", st.st_size, " bytes, more than a bundle's ", kMaxReproBundleBytes));
  } else {
    char buf[65536];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = absl::UnavailableError(absl::StrCat(path, ": ", std::strerror(errno)));
        break;
      }
      if (n == 0) break;
      text.append(buf, static_cast<size_t>(n));
      if (static_cast<int64_t>(text.size()) > kMaxReproBundleBytes) {
        status = absl::InvalidArgumentError(
            absl::StrCat(path, ": more than a bundle's ", kMaxReproBundleBytes, " bytes"));
        break;
      }
    }
  }
  ::close(fd);
  if (!status.ok()) return status;
  v1::ReproBundle b;
  google::protobuf::util::JsonParseOptions jo;
  jo.ignore_unknown_fields = false;
  if (auto st2 = google::protobuf::util::JsonStringToMessage(text, &b, jo); !st2.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a repro bundle (arena.v1.ReproBundle as JSON): ", st2.message().as_string()));
  }
  if (absl::Status s = CheckReproBundle(b); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a valid repro bundle: ", s.message()));
  }
  return b;
}

ReproBundleWriter::ReproBundleWriter(std::string records_dir)
    : dir_(std::move(records_dir)) {}

ReproBundleWriter::~ReproBundleWriter() { Finish(); }

std::function<bool(const MatchSummary&)> ReproBundleWriter::Hook(
    std::function<bool(const MatchSummary&)> next) {
  return [this, next = std::move(next)](const MatchSummary& m) {
    Add(m);
    return next ? next(m) : true;
  };
}

void ReproBundleWriter::Add(const MatchSummary& m) {
  std::vector<std::string> due;  // the faulty bots whose bundle is missing
  bool only_no_shows = !m.faults.empty();
  for (const SeatFault& f : m.faults) {
    if (f.kind != v1::FAULT_KIND_NO_SHOW) only_no_shows = false;
    if (f.kind == v1::FAULT_KIND_NO_SHOW || f.seat < 0 ||
        f.seat >= static_cast<int>(m.seat_bots.size())) {
      continue;
    }
    struct stat st;
    const std::string path = ReproBundlePath(dir_, m.match_id, m.seat_bots[f.seat], f.seat);
    if (::stat(path.c_str(), &st) != 0) due.push_back(m.seat_bots[f.seat]);
  }
  if (only_no_shows) {
    absl::MutexLock lock(&mu_);
    if (!finishing_) ++totals_.no_show;
    return;
  }
  if (due.empty()) return;
  absl::MutexLock lock(&mu_);
  if (finishing_) return;
  bool room = false;
  for (const std::string& bot : due) room = room || queued_per_bot_[bot] < kMaxMatchesPerBot;
  if (!room) {
    ++totals_.capped;
    return;
  }
  for (const std::string& bot : due) ++queued_per_bot_[bot];
  queue_.push_back(m.match_id);
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
}

ReproBundleWriter::Totals ReproBundleWriter::Finish() {
  {
    absl::MutexLock lock(&mu_);
    finishing_ = true;
  }
  if (thread_.joinable()) thread_.join();
  absl::MutexLock lock(&mu_);
  return totals_;
}

void ReproBundleWriter::Loop() {
  for (;;) {
    std::string id;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return !queue_.empty() || finishing_;
      };
      mu_.Await(absl::Condition(&ready));
      if (queue_.empty()) return;  // finishing, nothing left
      id = std::move(queue_.front());
      queue_.pop_front();
    }
    WriteMatch(id);
  }
}

void ReproBundleWriter::WriteMatch(const std::string& match_id) {
  int written = 0, failed = 0;
  std::string record = FindRecordFile(dir_, match_id);
  if (record.empty()) record = absl::StrCat(dir_, "/", match_id, kCompactSuffix);  // for the error
  auto lines = ReadRecordFile(record);
  auto bundles = lines.ok() ? MakeReproBundles(*lines, record)
                            : absl::StatusOr<std::vector<v1::ReproBundle>>(lines.status());
  if (!bundles.ok()) {
    spdlog::error("match {}: no repro bundle: {}", match_id, bundles.status().ToString());
    failed = 1;
  } else {
    for (const v1::ReproBundle& b : *bundles) {
      const std::string path = ReproBundlePath(dir_, b.match_id(), b.bot(), b.seat());
      if (absl::Status s = WriteReproBundle(path, b); !s.ok()) {
        spdlog::error("match {}: repro bundle of seat {} ({}) not written: {}", match_id,
                      b.seat(), b.bot(), s.ToString());
        ++failed;
      } else {
        ++written;
      }
    }
  }
  absl::MutexLock lock(&mu_);
  totals_.written += written;
  totals_.failed += failed;
}

}  // namespace arena
