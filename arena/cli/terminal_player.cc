#include "arena/cli/terminal_player.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "arena/views/replay.h"
#include "google/protobuf/util/message_differencer.h"
#include "referee/clock/mono_clock.h"
#include "referee/games/registry.h"

namespace arena {

std::string MinutesSeconds(absl::Duration d) {
  if (d < absl::Seconds(10)) {
    return absl::FormatDuration(
        absl::Trunc(std::max(d, absl::ZeroDuration()), absl::Milliseconds(100)));
  }
  const int64_t s = std::max<int64_t>(0, absl::ToInt64Seconds(d));
  return absl::StrCat(s / 60, ":", s % 60 < 10 ? "0" : "", s % 60);
}

TerminalPlayer::TerminalPlayer(std::string token, int input_fd, std::ostream* out)
    : token_(std::move(token)), input_fd_(input_fd), out_(out) {}

TerminalPlayer::~TerminalPlayer() { Close(); }

void TerminalPlayer::Connect(const std::string& address) {
  stub_ = v1::Referee::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  stream_ = stub_->Play(&context_);
  v1::BotMessage hello;
  hello.mutable_hello()->set_token(token_);
  hello.mutable_hello()->set_protocol_version(1);
  hello.mutable_hello()->set_client("arena-play/1");
  Send(hello);
  reader_ = std::thread([this] { ReadStream(); });
}

void TerminalPlayer::Send(const v1::BotMessage& message) {
  absl::MutexLock lock(&write_mu_);
  stream_->Write(message);
}

void TerminalPlayer::ReadStream() {
  v1::RefereeMessage m;
  while (stream_->Read(&m)) {
    absl::MutexLock lock(&mu_);
    switch (m.kind_case()) {
      case v1::RefereeMessage::kMatchStart:
        start_ = m.match_start();
        break;
      case v1::RefereeMessage::kDecisionRequest:
        requests_.push_back(
            {m.decision_request(),
             MonoNow() + absl::Milliseconds(m.decision_request().deadline_ms())});
        break;
      case v1::RefereeMessage::kMatchEnd:
        match_ended_ = true;
        break;
      case v1::RefereeMessage::kNotice:
        notices_.push_back(m.notice().message());
        break;
      default:  // Welcome; no Resync: the player never reconnects
        break;
    }
  }
  {
    absl::MutexLock lock(&write_mu_);
    stream_->WritesDone();
  }
  (void)stream_->Finish();
  absl::MutexLock lock(&mu_);
  stream_ended_ = true;
}

void TerminalPlayer::Close() {
  if (stream_ != nullptr) context_.TryCancel();
  if (reader_.joinable()) reader_.join();
}

TerminalPlayer::Input TerminalPlayer::ReadLine(absl::Duration wait, std::string* line) {
  const absl::Time until = MonoNow() + wait;
  for (;;) {
    if (const size_t nl = pending_input_.find('\n'); nl != std::string::npos) {
      *line = pending_input_.substr(0, nl);
      pending_input_.erase(0, nl + 1);
      return Input::kLine;
    }
    if (input_ended_) {
      if (pending_input_.empty()) return Input::kEnd;
      *line = std::move(pending_input_);  // a last line without its newline
      pending_input_.clear();
      return Input::kLine;
    }
    const int64_t ms = absl::ToInt64Milliseconds(until - MonoNow());
    if (ms <= 0) return Input::kNothing;
    pollfd p{input_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(ms));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return ready == 0 ? Input::kNothing : Input::kEnd;
    char buf[4096];
    const ssize_t n = ::read(input_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      input_ended_ = true;
    } else {
      pending_input_.append(buf, static_cast<size_t>(n));
    }
  }
}

bool TerminalPlayer::Finished(const std::function<bool()>& over) {
  std::vector<std::string> notices;
  bool done;
  {
    absl::MutexLock lock(&mu_);
    notices.swap(notices_);
    done = match_ended_ || stream_ended_;
  }
  for (const auto& n : notices) *out_ << "referee: " << n << "\n" << std::flush;
  return done || over();
}

void TerminalPlayer::PrintStart(const v1::MatchStart& start) {
  started_ = true;
  seat_ = start.seat();
  seat_bots_.assign(start.seat_bots().begin(), start.seat_bots().end());
  Options options(start.options().begin(), start.options().end());
  reference_ = ReferenceState(start);
  if (reference_ != nullptr) {
    cards_ = CardCatalogue(*reference_);
  } else if (CreateGame(start.game(), options, start.num_seats()).ok()) {
    *out_ << "(this arena's rules for " << start.game()
          << " differ from the match's: cards are shown by number)\n";
  }
  *out_ << "\n== match " << start.match_id() << ": " << start.game() << ", "
        << start.num_seats() << " seats; you are seat " << seat_ << "; "
        << MinutesSeconds(absl::Milliseconds(start.time_control().decision_ms()))
        << " per decision\n";
}

void TerminalPlayer::PrintRequest(const v1::DecisionRequest& r, absl::Duration left) {
  std::ostream& out = *out_;
  out << "\n-- step " << r.step() << ": your decision (seat " << seat_ << ")"
      << (r.simultaneous() ? ", taken by others at the same time" : "") << "\n";
  if (r.view().events_size() > 0) {
    out << "since your last decision:\n";
    for (const auto& e : r.view().events()) {
      out << "  - " << EventText(reference_.get(), e, cards_) << "\n";
    }
  }
  out << "you see: " << DescribeGamePart(r.view(), cards_) << "\n";
  out << "your moves:\n";
  for (int i = 0; i < r.legal_actions_size(); ++i) {
    out << "  " << i + 1 << ". " << LegalActionText(reference_.get(), r, i, cards_) << "\n";
  }
  out << "time left " << MinutesSeconds(left) << ". Your move (1-"
      << r.legal_actions_size() << ", q to leave the match): " << std::flush;
}

bool TerminalPlayer::Decide(const v1::DecisionRequest& r, absl::Time deadline,
                            const std::function<bool()>& over) {
  PrintRequest(r, deadline - MonoNow());
  const int n = r.legal_actions_size();
  bool told_late = false;
  for (;;) {
    std::string line;
    const Input in = ReadLine(absl::Milliseconds(100), &line);
    if (in == Input::kNothing) {
      if (!told_late && MonoNow() > deadline) {
        told_late = true;
        *out_ << "\ntime is up: the referee counts this decision as a timeout\n"
              << std::flush;
      } else if (told_late) {
        absl::MutexLock lock(&mu_);
        if (!requests_.empty()) return true;  // the match went on without it
      }
      if (Finished(over)) {
        *out_ << "\n" << std::flush;
        return true;
      }
      continue;
    }
    const std::string answer(absl::StripAsciiWhitespace(line));
    if (in == Input::kEnd || answer == "q" || answer == "quit") {
      *out_ << (in == Input::kEnd ? "\nend of input: " : "") << "you leave the match; "
            << "the referee records it as your forfeit\n" << std::flush;
      return false;
    }
    int choice = 0;
    if (absl::SimpleAtoi(answer, &choice) && choice >= 1 && choice <= n) {
      v1::BotMessage m;
      m.mutable_decision()->set_match_id(r.match_id());
      m.mutable_decision()->set_decision_id(r.decision_id());
      m.mutable_decision()->set_action_index(choice - 1);
      Send(m);
      *out_ << "you play " << choice << ": "
            << LegalActionText(reference_.get(), r, choice - 1, cards_) << "\n" << std::flush;
      return true;
    }
    *out_ << "'" << answer.substr(0, 40) << "' is not a move: type a number from 1 to " << n
          << " (q leaves the match); time left " << MinutesSeconds(deadline - MonoNow())
          << ": " << std::flush;
  }
}

bool TerminalPlayer::Play(const std::function<bool()>& over) {
  for (;;) {
    std::optional<Request> next;
    std::optional<v1::MatchStart> start;
    {
      absl::MutexLock lock(&mu_);
      AwaitWithMonoTimeout(&mu_, absl::Condition(
                               +[](TerminalPlayer* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) {
                                 return !p->requests_.empty() || p->match_ended_ ||
                                        p->stream_ended_ || !p->notices_.empty();
                               },
                               this),
                           absl::Milliseconds(100));
      if (!requests_.empty()) {
        next = std::move(requests_.front());
        requests_.pop_front();
      }
      if (!started_ && start_.has_value()) start = start_;
    }
    if (start.has_value()) PrintStart(*start);
    if (!next.has_value()) {
      if (Finished(over)) return false;
      continue;
    }
    if (!Decide(next->request, next->deadline, over)) {
      Close();  // the referee sees the seat go: its forfeit
      return true;
    }
  }
}

}  // namespace arena
