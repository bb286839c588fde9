#include "arena/cli/replay_bot_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "arena/cli/command.h"
#include "arena/common/descriptors.h"
#include "arena/records/repro_bundle.h"
#include "arena/tournament/launch.h"
#include "arena/tournament/sandbox.h"
#include "arena/v1/arena.grpc.pb.h"
#include "arena/views/replay.h"
#include "grpcpp/grpcpp.h"
#include "referee/clock/mono_clock.h"

namespace arena {
namespace {

constexpr int kMaxMessageBytes = 64 * 1024;  // as the referee's

// The referee's side of one stream. Before a valid Hello it is the
// stream's own; after, the Session's, which alone ends it (FinishOnce).
class Stream;

// What the driver (RunReplayBot's thread) and the streams share.
class Session {
 public:
  explicit Session(std::string token) : token_(std::move(token)) {}
  const std::string& token() const { return token_; }

  // A stream whose Hello carried the token: the bot, if none is yet.
  bool Register(Stream* s) {
    absl::MutexLock lock(&mu_);
    if (stream_ != nullptr || taken_) return false;
    stream_ = s;
    taken_ = true;
    return true;
  }
  void Push(const v1::BotMessage& m) {
    absl::MutexLock lock(&mu_);
    inbox_.push_back(m);
  }
  void Closed(Stream* s) {
    absl::MutexLock lock(&mu_);
    if (s == stream_) closed_ = true;
  }
  void Gone(Stream* s) {
    absl::MutexLock lock(&mu_);
    if (s == stream_) stream_ = nullptr;
  }
  // The bot's stream, once it said Hello (null before).
  Stream* WaitStream(absl::Time until) {
    absl::MutexLock lock(&mu_);
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stream_ != nullptr; };
    AwaitWithMonoTimeout(&mu_, absl::Condition(&ready), until - MonoNow());
    return stream_;
  }
  // The next message from the bot; nullopt at `until` or once the stream
  // has closed (`*closed` says which).
  std::optional<v1::BotMessage> Next(absl::Time until, bool* closed) {
    absl::MutexLock lock(&mu_);
    auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !inbox_.empty() || closed_;
    };
    AwaitWithMonoTimeout(&mu_, absl::Condition(&ready), until - MonoNow());
    *closed = closed_ && inbox_.empty();
    if (inbox_.empty()) return std::nullopt;
    v1::BotMessage m = std::move(inbox_.front());
    inbox_.pop_front();
    return m;
  }

 private:
  const std::string token_;
  absl::Mutex mu_;
  Stream* stream_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool taken_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<v1::BotMessage> inbox_ ABSL_GUARDED_BY(mu_);
};

class Stream : public grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage> {
 public:
  explicit Stream(Session* session) : session_(session) { StartRead(&in_); }

  void Send(v1::RefereeMessage m) {
    const v1::RefereeMessage* write = nullptr;
    {
      absl::MutexLock lock(&mu_);
      if (finish_called_) return;
      out_.push_back(std::move(m));
      if (!writing_) write = &out_.front();
      writing_ = true;
    }
    if (write != nullptr) StartWrite(write);
  }

  void FinishOnce(grpc::Status status) {
    {
      absl::MutexLock lock(&mu_);
      if (finish_called_) return;
      finish_called_ = true;
      if (writing_) {
        pending_ = std::move(status);  // after the queued writes
        return;
      }
    }
    Finish(status);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      if (registered_) {
        session_->Closed(this);
      } else {
        FinishOnce(grpc::Status(grpc::StatusCode::CANCELLED, "stream ended"));
      }
      return;
    }
    if (!registered_) {
      if (!in_.has_hello() || in_.hello().token() != session_->token()) {
        FinishOnce(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                                "the first message must be Hello with ARENA_TOKEN"));
        return;
      }
      if (!session_->Register(this)) {
        FinishOnce(grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                                "arena replay-bot plays one stream, and it has had it"));
        return;
      }
      registered_ = true;
    } else {
      session_->Push(in_);
    }
    StartRead(&in_);
  }

  void OnWriteDone(bool ok) override {
    const v1::RefereeMessage* next = nullptr;
    std::optional<grpc::Status> finish;
    {
      absl::MutexLock lock(&mu_);
      out_.pop_front();
      if (ok && !out_.empty()) {
        next = &out_.front();
      } else {
        writing_ = false;
        if (finish_called_ && pending_) finish = std::move(*pending_);
      }
    }
    if (next != nullptr) StartWrite(next);
    if (finish) Finish(*finish);
  }

  void OnDone() override {
    session_->Gone(this);
    delete this;
  }

 private:
  Session* const session_;
  v1::BotMessage in_;
  bool registered_ = false;  // the reactions' own (one read at a time)
  absl::Mutex mu_;
  std::deque<v1::RefereeMessage> out_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_called_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<grpc::Status> pending_ ABSL_GUARDED_BY(mu_);
};

class Service : public v1::Referee::CallbackService {
 public:
  explicit Service(Session* session) : session_(session) {}
  grpc::ServerBidiReactor<v1::BotMessage, v1::RefereeMessage>* Play(
      grpc::CallbackServerContext*) override {
    return new Stream(session_);
  }

 private:
  Session* const session_;
};

// How the bot is started: the program found as the sandbox finds it, the
// environment it gets there.
struct BotLaunch {
  std::string program;             // COMMAND's first word, found on `path` ("" if not)
  std::string path;                // the PATH it was looked up on
  std::vector<std::string> envp;   // KEY=VALUE, all of it
  std::string environment;         // in words, for the first lines printed
};

// `name` as execvp would find it on `path` (a PATH value): itself if it
// holds a slash, else the first executable file of that name in its folders
// ("" if none).
std::string FindProgram(const std::string& name, const std::string& path) {
  if (name.find('/') != std::string::npos) return name;
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    const std::string file = absl::StrCat(dir.empty() ? "." : dir, "/", name);
    struct stat st;
    if (::stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(file.c_str(), X_OK) == 0) {
      return file;
    }
  }
  return "";
}

// The bot's environment and program. By default the sandbox's, as a
// tournament or check-bot starts it (PrepareBotExec, arena/tournament/
// sandbox.h): its PATH, LANG, and HOME and TMPDIR, which are the sandbox's
// private /tmp there and a fresh folder of the replay's own (`tmp`) here,
// and nothing of the caller's (no PYTHONPATH, no virtualenv first on PATH).
// With `inherit`, the caller's own, as `--sandbox none` gives it.
BotLaunch MakeBotLaunch(const std::string& command0, bool inherit, const std::string& tmp,
                        const std::string& address, const std::string& token,
                        const std::string& name) {
  BotLaunch l;
  SandboxOptions sandbox;
  sandbox.enabled = !inherit;
  const BotExec exec = PrepareBotExec(sandbox, 0, command0, address, token, name);
  for (const std::string& kv : exec.envp) {
    const size_t eq = kv.find('=');
    const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
    if (key == "PATH") l.path = value;
    l.envp.push_back(!inherit && value == "/tmp" ? absl::StrCat(key, "=", tmp) : kv);
  }
  l.program = FindProgram(command0, l.path);
  l.environment = inherit ? "your environment (--inherit_env)"
                          : absl::StrCat("the sandbox's environment (PATH=", l.path,
                                         ", HOME and TMPDIR a folder of its own; "
                                         "--inherit_env for yours)");
  return l;
}

// The bot's process: its own process group, output to a log.
class BotRun {
 public:
  ~BotRun() { Stop(); }
  absl::Status Start(const std::vector<std::string>& argv, const std::string& log,
                     const BotLaunch& launch) {
    log_ = log;
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return absl::UnavailableError(absl::StrCat("cannot create ", log));
    std::vector<char*> args, envp;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& kv : launch.envp) envp.push_back(const_cast<char*>(kv.c_str()));
    envp.push_back(nullptr);
    // Made before fork: the child only writes it.
    const std::string not_found =
        absl::StrCat("arena replay-bot: cannot run ", argv[0], ": not found on PATH=",
                     launch.path, "\n");
    pid_ = ::fork();
    if (pid_ < 0) {
      ::close(fd);
      return absl::UnavailableError(absl::StrCat("fork: ", std::strerror(errno)));
    }
    if (pid_ == 0) {
      ::setpgid(0, 0);
      const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (null >= 0) ::dup2(null, 0);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      CloseDescriptorsFrom(3);  // nothing of arena's reaches the bot
      ResetSignalsForExec();
      if (launch.program.empty()) {
        (void)!::write(2, not_found.data(), not_found.size());
        ::_exit(127);
      }
      ::execve(launch.program.c_str(), args.data(), envp.data());
      std::fprintf(stderr, "arena replay-bot: cannot run %s: %s\n", launch.program.c_str(),
                   std::strerror(errno));
      ::_exit(127);
    }
    ::setpgid(pid_, pid_);
    ::close(fd);
    return absl::OkStatus();
  }
  // How the process ended, if it has ("exited with code 3").
  std::optional<std::string> Ended() {
    if (pid_ > 0) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        if (WIFSIGNALED(status)) {
          how_ = absl::StrCat("killed by signal ", WTERMSIG(status), " (",
                              ::strsignal(WTERMSIG(status)), ")");
        } else {
          how_ = absl::StrCat("exited with code ", WEXITSTATUS(status));
        }
      }
    }
    return pid_ > 0 ? std::nullopt : std::optional<std::string>(how_);
  }
  // Waits up to `grace` for the process to end.
  std::optional<std::string> WaitEnd(absl::Duration grace) {
    const absl::Time until = MonoNow() + grace;
    for (;;) {
      if (auto how = Ended()) return how;
      if (MonoNow() >= until) return std::nullopt;
      absl::SleepFor(absl::Milliseconds(20));
    }
  }
  void Stop() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGTERM);
    if (WaitEnd(absl::Seconds(1))) return;
    ::kill(-pid_, SIGKILL);
    WaitEnd(absl::Seconds(2));
  }
  // The last lines of its output, indented.
  std::string Tail(int max_lines = 12) const {
    std::ifstream in(log_, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    if (text.size() > 4000) text = text.substr(text.size() - 4000);
    std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
    if (lines.empty()) return "    (no output)\n";
    if (static_cast<int>(lines.size()) > max_lines) {
      lines.erase(lines.begin(), lines.end() - max_lines);
    }
    return absl::StrCat("    ", absl::StrJoin(lines, "\n    "), "\n");
  }

 private:
  pid_t pid_ = -1;
  std::string how_, log_;
};

// The game's words for a match's actions: a state of its game (null if
// unknown here) and its cards.
struct Words {
  std::unique_ptr<State> reference;
  std::vector<v1::ReplayCard> cards;
};

// "#3 (play 7 of Moons)": the legal action `index` of `r`, by its label.
std::string ActionText(const Words& words, const v1::DecisionRequest& r, int index) {
  if (index < 0 || index >= r.legal_actions_size()) return absl::StrCat("#", index);
  return absl::StrCat("#", index, " (",
                      LegalActionText(words.reference.get(), r, index, words.cards), ")");
}

// The recorded answer in words: "#0 (play Ace of Waves)" or the fault.
std::string Recorded(const v1::ReproExchange& x) {
  const v1::ReproAnswer& a = x.answer();
  if (!a.recorded()) return "(not recorded)";
  if (a.fault() != v1::FAULT_KIND_UNSPECIFIED) return a.fault_detail();
  return absl::StrCat("#", a.action(), " (", a.label(), ")",
                      a.note().empty() ? "" : absl::StrCat(", its note: ", a.note()));
}

// Removes a folder with everything in it when it goes.
struct TempDir {
  std::string path;
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

}  // namespace

absl::StatusOr<ReplayBotOptions> ReplayBotArgs(int argc, char** argv,
                                               const std::vector<char*>& positional) {
  ReplayBotOptions rb;
  char** const end = argv + argc;
  char** const dashes = std::find_if(argv + 1, end, [](char* a) { return std::string(a) == "--"; });
  if (dashes != end) rb.command.assign(dashes + 1, end);
  // The flag parser leaves "arena replay-bot BUNDLE" and the command's words.
  if (dashes == end || rb.command.empty() || positional.size() != 3 + rb.command.size()) {
    return absl::InvalidArgumentError(
        "usage: arena replay-bot BUNDLE [--decision_ms MS] -- COMMAND [ARGS...]");
  }
  for (char** a = argv + 1; a != dashes; ++a) {
    const std::string s = *a;
    if (absl::StartsWith(s, "--decision_ms") || absl::StartsWith(s, "-decision_ms")) {
      rb.decision_ms_given = true;
    }
  }
  rb.bundle = positional[2];
  return rb;
}

int RunReplayBot(const ReplayBotOptions& o) {
  if (o.decision_ms_given && (o.decision_ms < 1 || o.decision_ms > 3'600'000)) {
    return Fail(absl::InvalidArgumentError(
        absl::StrCat("--decision_ms=", o.decision_ms, ": 1 to 3600000 (an hour)")));
  }
  if (o.command.empty()) {
    return Fail(absl::InvalidArgumentError(
        "replay-bot needs the bot's command after --: arena replay-bot BUNDLE -- COMMAND [ARGS...]"));
  }
  auto bundle = ReadReproBundle(o.bundle);
  if (!bundle.ok()) return Fail(bundle.status());
  const v1::ReproBundle& b = *bundle;
  auto token = NewToken();
  if (!token.ok()) return Fail(token.status());

  TempDir dir;
  {
    std::error_code ec;
    std::string tmpl =
        (std::filesystem::temp_directory_path(ec) / "arena-replay-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      return Fail(absl::UnavailableError(
          absl::StrCat("cannot create a folder like ", tmpl, ": ", std::strerror(errno))));
    }
    dir.path = tmpl;
  }
  const std::string socket = dir.path + "/referee.sock";
  std::string address = socket.size() < 100 ? "unix:" + socket : "127.0.0.1:0";
  Session session(*token);
  Service service(&session);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(),
                           address.rfind("unix:", 0) == 0 ? nullptr : &port);
  builder.SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr) {
    return Fail(absl::UnavailableError(absl::StrCat("cannot listen on ", address)));
  }
  if (port > 0) address = absl::StrCat("127.0.0.1:", port);

  Words words;
  words.reference = ReferenceState(b.match_start());
  if (words.reference != nullptr) words.cards = CardCatalogue(*words.reference);
  const int n = b.exchanges_size();
  std::cout << "replaying " << o.bundle << ": match " << b.match_id() << ", " << b.game()
            << ", seat " << b.seat() << " (" << b.bot() << "), " << n
            << " requests; recorded fault at the last: " << b.fault().detail() << "\n";
  const std::string bot_tmp = dir.path + "/tmp";
  if (::mkdir(bot_tmp.c_str(), 0700) != 0) {
    return Fail(absl::UnavailableError(
        absl::StrCat("cannot create ", bot_tmp, ": ", std::strerror(errno))));
  }
  const BotLaunch launch =
      MakeBotLaunch(o.command[0], o.inherit_env, bot_tmp, address, *token, b.bot());
  std::cout << "the bot: " << (launch.program.empty() ? o.command[0] : launch.program);
  for (size_t i = 1; i < o.command.size(); ++i) std::cout << " " << o.command[i];
  std::cout << ", with " << launch.environment << "\n";
  BotRun bot;
  if (absl::Status s = bot.Start(o.command, dir.path + "/bot.log", launch); !s.ok()) {
    return Fail(s);
  }
  const auto crashed = [&](const std::string& when, const std::string& how) {
    std::cout << "  CRASHED " << when << ": the bot " << how << "; its last output:\n"
              << bot.Tail();
  };

  int failures = 0, differ = 0, fixed = 0;
  bool over = false;  // the bot is gone: nothing more is sent
  Stream* stream = nullptr;
  const absl::Time connect_until = MonoNow() + o.connect_timeout;
  while (stream == nullptr) {
    stream = session.WaitStream(std::min(connect_until, MonoNow() + absl::Milliseconds(50)));
    if (stream != nullptr) break;
    if (auto how = bot.Ended()) {
      crashed("before it connected", *how);
      ++failures;
      over = true;
      break;
    }
    if (MonoNow() >= connect_until) {
      std::cout << "  the bot did not connect within "
                << absl::FormatDuration(o.connect_timeout) << "; its output:\n"
                << bot.Tail();
      ++failures;
      over = true;
      break;
    }
  }
  if (!over) {
    v1::RefereeMessage m;
    m.mutable_welcome()->set_bot_name(b.bot());
    m.mutable_welcome()->set_protocol_version(1);
    m.mutable_welcome()->set_referee_version(absl::StrCat("arena-replay-bot/", ARENA_VERSION));
    stream->Send(m);
    m.Clear();
    *m.mutable_match_start() = b.match_start();
    if (o.decision_ms > 0) m.mutable_match_start()->mutable_time_control()->set_decision_ms(o.decision_ms);
    stream->Send(m);
  }
  for (int i = 0; i < n && !over; ++i) {
    const v1::ReproExchange& x = b.exchanges(i);
    v1::RefereeMessage m;
    *m.mutable_decision_request() = x.request();
    v1::DecisionRequest& r = *m.mutable_decision_request();
    const int64_t deadline_ms = o.decision_ms > 0 ? o.decision_ms : r.deadline_ms();
    r.set_deadline_ms(deadline_ms);
    const int legal = r.legal_actions_size();
    std::cout << "[" << i + 1 << "/" << n << "] step " << r.step() << ", decision "
              << r.decision_id() << " (" << legal << " legal): ";
    const absl::Time sent = MonoNow();
    const absl::Time deadline = sent + absl::Milliseconds(deadline_ms);
    // A late answer is waited for as long again (1 to 10 s more).
    const absl::Time give_up =
        deadline + std::clamp(absl::Milliseconds(deadline_ms), absl::Seconds(1), absl::Seconds(10));
    stream->Send(m);
    std::optional<v1::Decision> answer;
    absl::Time answered;
    std::string gone;  // how the bot ended, if it did
    while (!answer) {
      bool closed = false;
      auto in = session.Next(std::min(give_up, MonoNow() + absl::Milliseconds(50)), &closed);
      if (in) {
        if (in->has_decision() && in->decision().match_id() == r.match_id() &&
            in->decision().decision_id() == r.decision_id()) {
          answer = in->decision();
          answered = MonoNow();
        } else {
          v1::RefereeMessage notice;
          notice.mutable_notice()->set_kind(in->has_decision() ? v1::NOTICE_KIND_STALE
                                                               : v1::NOTICE_KIND_MALFORMED);
          notice.mutable_notice()->set_match_id(in->decision().match_id().substr(0, 64));
          notice.mutable_notice()->set_decision_id(in->decision().decision_id());
          notice.mutable_notice()->set_message("not an answer to the open request");
          stream->Send(notice);
        }
        continue;
      }
      if (auto how = bot.Ended()) {
        gone = *how;
        break;
      }
      if (closed) {
        // A crash closes the stream too: give the process a moment to say so.
        gone = bot.WaitEnd(absl::Milliseconds(500)).value_or("");
        if (gone.empty()) gone = "closed its stream (still running)";
        break;
      }
      if (MonoNow() >= give_up) break;
    }
    if (!gone.empty()) {
      std::cout << "no answer\n";
      crashed(absl::StrCat("at request ", i + 1), gone);
      ++failures;
      over = true;
      break;
    }
    const std::string recorded = Recorded(x);
    if (!answer) {
      std::cout << "NO ANSWER within " << deadline_ms << " ms (nor "
                << absl::ToInt64Milliseconds(give_up - deadline)
                << " ms after); recorded: " << recorded << "\n";
      ++failures;
      continue;
    }
    const int a = answer->action_index();
    const int64_t took = absl::ToInt64Milliseconds(answered - sent);
    if (answered > deadline) {
      std::cout << "LATE: " << ActionText(words, r, a) << " after " << took << " ms, deadline "
                << deadline_ms << " ms; recorded: " << recorded << "\n";
      ++failures;
      continue;
    }
    if (a < 0 || a >= legal) {
      std::cout << "ILLEGAL: index " << a << " is not in [0, " << legal
                << "); recorded: " << recorded << "\n";
      v1::RefereeMessage notice;
      notice.mutable_notice()->set_kind(v1::NOTICE_KIND_ILLEGAL);
      notice.mutable_notice()->set_match_id(r.match_id());
      notice.mutable_notice()->set_decision_id(r.decision_id());
      notice.mutable_notice()->set_message(absl::StrCat("action index ", a, " is not in [0, ", legal, ")"));
      stream->Send(notice);
      ++failures;
      continue;
    }
    const v1::ReproAnswer& was = x.answer();
    if (was.recorded() && was.fault() == v1::FAULT_KIND_UNSPECIFIED && was.action() == a) {
      std::cout << "same: #" << a << " (" << was.label() << ") in " << took << " ms\n";
    } else if (was.recorded() && was.fault() != v1::FAULT_KIND_UNSPECIFIED) {
      std::cout << "now answers " << ActionText(words, r, a) << " in " << took
                << " ms; recorded: " << recorded << "\n";
      ++fixed;
    } else {
      std::cout << "DIFFERENT: now " << ActionText(words, r, a) << " in " << took << " ms; recorded "
                << recorded << "\n";
      ++differ;
    }
  }
  if (stream != nullptr) {
    stream->FinishOnce(grpc::Status::OK);  // the end of a tournament
    stream = nullptr;
  }
  if (!over && !bot.WaitEnd(absl::Seconds(3))) {
    std::cout << "(the bot did not exit within 3 s of the stream's end; stopped)\n";
  }
  bot.Stop();
  server->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));  // gRPC takes a wall-clock time
  if (failures > 0) {
    std::cout << "FAILED: " << failures << " of " << n
              << " requests not answered legally in time (the recorded fault was "
              << v1::FaultKind_Name(b.fault().kind()) << ")\n";
    return 1;
  }
  std::cout << "OK: every request answered legally in time";
  if (differ > 0) std::cout << "; " << differ << " answered differently than recorded";
  if (fixed > 0) std::cout << "; the recorded fault no longer happens";
  std::cout << "\n";
  return 0;
}

}  // namespace arena
