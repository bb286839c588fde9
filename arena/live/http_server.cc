#include "arena/live/http_server.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "arena/common/descriptors.h"
#include "arena/common/thread_priority.h"
#include "arena/live/page_workers.h"
#include "referee/clock/mono_clock.h"
#include "spdlog/spdlog.h"

namespace arena {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr int64_t kMaxMatchesPerRequest = 5000;

std::chrono::nanoseconds Chrono(absl::Duration d) { return absl::ToChronoNanoseconds(d); }

// A match id or page name: [A-Za-z0-9_-], 1 to 200 characters.
bool SafeName(absl::string_view s) {
  if (s.empty() || s.size() > 200) return false;
  for (char c : s) {
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) {
      return false;
    }
  }
  return true;
}

// "a=1&b=2" -> {a: 1, b: 2}; values that are not integers are left out.
std::map<std::string, int64_t> Numbers(absl::string_view query) {
  std::map<std::string, int64_t> out;
  for (absl::string_view kv : absl::StrSplit(query, '&', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> p = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    int64_t v;
    if (absl::SimpleAtoi(p.second, &v)) out[std::string(p.first)] = v;
  }
  return out;
}

// One server-sent event of `json` (a line break in it starts a new data line).
std::shared_ptr<const std::string> SseEvent(absl::string_view json) {
  return std::make_shared<const std::string>(
      absl::StrCat("data: ", absl::StrReplaceAll(json, {{"\n", "\ndata: "}}), "\n\n"));
}

}  // namespace

class Session;

struct LiveServer::Impl {
  LiveSite* fixed = nullptr;  // the site served, or:
  SiteFront* front = nullptr;  // a front, and its live site of the moment
  std::shared_ptr<LiveSite> site() const {
    // The fixed site outlives the server: an owner-less pointer to it.
    return front != nullptr ? front->live()
                            : std::shared_ptr<LiveSite>(std::shared_ptr<void>(), fixed);
  }
  // The site that serves the match `name` (an id or a replay's page name).
  std::shared_ptr<LiveSite> SiteOf(const std::string& name) const {
    return front != nullptr ? front->LiveOf(name) : site();
  }
  bool Poll(bool last) const { return front != nullptr ? front->Poll(last) : fixed->Poll(last); }
  ServeOptions options;
  // Before io: sessions destroyed with io's handlers still count down.
  std::atomic<int> open{0};
  std::atomic<int64_t> refused{0};
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer heartbeat{io};
  std::string address;
  // The open event streams, held here between their writes (io thread only).
  std::vector<std::shared_ptr<Session>> streams;
  std::atomic<bool> broadcast_pending{false};
  std::atomic<int> site_streams{0};  // the index's event streams open (about)
  absl::Notification stop;
  absl::Notification drained;  // Stop: every stream flushed, or given up
  std::thread io_thread, poll_thread;
  bool stopped = false;
  // Builds pages off the io thread; after io (destroyed first), since what
  // it calls posts to io.
  std::unique_ptr<PageWorkers> workers;
  // The index page of the site's version `index_version` (built once a
  // version, by the light lane).
  absl::Mutex index_mu;
  int64_t index_version ABSL_GUARDED_BY(index_mu) = -1;
  std::shared_ptr<const Page> index_page ABSL_GUARDED_BY(index_mu);
  // Match streams' views being built (io thread only): at most one build a
  // match at a time; one asked meanwhile runs after it.
  std::set<std::string> match_builds, match_rebuilds;

  void Accept();
  // io thread: builds the spectator view of `match_id` for its streams (on
  // a worker), then pushes it to them.
  void RefreshMatch(const std::string& match_id);
  void PushMatch(const std::string& match_id, const Page& view);
  void Broadcast();  // io thread
  void CountStreams();  // io thread: site_streams from `streams`
  void Heartbeat();
  // io thread: notifies `drained` once every stream has closed (each closes
  // when its last event is in the kernel's hands, which delivers it even
  // after the process ends), or at `give_up`.
  void NotifyWhenDrained(absl::Time give_up);
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  enum class Kind { kPlain, kSite, kMatch };

  Session(tcp::socket socket, LiveServer::Impl* server)
      : stream_(std::move(socket)), server_(server) {
    ++server_->open;
  }
  ~Session() { --server_->open; }

  void Start() { ReadRequest(); }
  Kind kind() const { return kind_; }
  bool closed() const { return closed_; }

  // Queues `data` for an event stream; a client that lets more than
  // max_queued_bytes pile up is dropped.
  void Push(std::shared_ptr<const std::string> data) {
    if (closed_) return;
    if (queued_ + data->size() > server_->options.max_queued_bytes) {
      Close();
      return;
    }
    queued_ += data->size();
    queue_.push_back(std::move(data));
    if (!writing_) WriteNext();
  }

  // The site stream's state: what the page holds, and the version sent.
  LiveSite::PageState page;
  int64_t version = -1;
  // The match stream's: its match, and what it last sent.
  std::string match_id;
  std::string last_json;
  bool close_after_flush = false;

  // Closes once what is queued is written.
  void CloseWhenFlushed() {
    if (!writing_ && queue_.empty()) {
      Close();
    } else {
      close_after_flush = true;
    }
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.close();
  }

 private:
  void ReadRequest() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_->options.max_header_bytes));
    parser_->body_limit(0);
    // The whole header within header_timeout, however slowly it comes.
    stream_.expires_after(Chrono(server_->options.header_timeout));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       self->OnRequest(ec);
                     });
  }

  void OnRequest(beast::error_code ec) {
    if (ec == http::error::header_limit) {
      Respond(http::status::request_header_fields_too_large, "text/plain",
              "request header too large\n", /*close=*/true);
      return;
    }
    if (ec == http::error::body_limit || ec == http::error::unexpected_body) {
      Respond(http::status::payload_too_large, "text/plain", "no body is taken\n", true);
      return;
    }
    if (ec) {
      Close();  // timeout, a broken request, or the client went away
      return;
    }
    const auto& req = parser_->get();
    version_ = req.version();
    keep_alive_ = req.keep_alive();
    if (req.method() != http::verb::get) {
      Respond(http::status::method_not_allowed, "text/plain", "GET only\n", true);
      return;
    }
    Route(std::string(req.target()));
  }

  void Route(const std::string& target) {
    std::shared_ptr<LiveSite> site = server_->site();
    const size_t q = target.find('?');
    const std::string path = target.substr(0, q);
    const std::string query = q == std::string::npos ? "" : target.substr(q + 1);
    auto not_found = [&] { Respond(http::status::not_found, "text/plain", "not found\n"); };
    using Lane = PageWorkers::Lane;
    if (server_->front != nullptr) {
      if (std::optional<SiteFront::Route> r = server_->front->RouteOf(path)) {
        Offload(Lane::kLight, r->key, r->cacheable, path, std::move(r->build));
        return;
      }
    }
    if (path == "/" || path == "/index.html") {
      const int64_t version = site->version();
      {
        absl::MutexLock lock(&server_->index_mu);
        if (server_->index_version == version && server_->index_page) {
          RespondPage(*server_->index_page);
          return;
        }
      }
      LiveServer::Impl* server = server_;
      Offload(Lane::kLight, absl::StrCat("index@", version), false, path, [server, site, version] {
        Page page;
        page.body = site->IndexPage();
        auto built = std::make_shared<const Page>(page);
        absl::MutexLock lock(&server->index_mu);
        if (version > server->index_version) {
          server->index_version = version;
          server->index_page = built;
        }
        return page;
      });
      return;
    }
    if (path == "/events") {
      auto n = Numbers(query);
      page.have = n.count("have") ? n["have"] : 0;
      StartStream(Kind::kSite);
      return;
    }
    if (path == "/matches.json") {
      auto n = Numbers(query);
      const int64_t from = n.count("from") ? n["from"] : 0;
      const int64_t to = n.count("to") ? std::min(n["to"], from + kMaxMatchesPerRequest)
                                       : from + kMaxMatchesPerRequest;
      Offload(Lane::kLight, "", false, path, [site, from, to] {
        Page page;
        page.type = "application/json";
        page.body = site->MatchesJson(from, to);
        return page;
      });
      return;
    }
    constexpr absl::string_view kReplays = "/replays/", kLive = "/live/";
    constexpr absl::string_view kSteps = ".steps.json";
    if (absl::StartsWith(path, kReplays) && absl::EndsWith(path, kSteps)) {
      // A chunk of a long match's steps, fetched by its page as the viewer
      // moves; cached like the page (a finished record never changes).
      const std::string name =
          path.substr(kReplays.size(), path.size() - kReplays.size() - kSteps.size());
      auto n = Numbers(query);
      if (!SafeName(name) || !n.count("chunk") || n["chunk"] < 0 || n["chunk"] > (1 << 20)) {
        return not_found();
      }
      const int chunk = static_cast<int>(n["chunk"]);
      site = server_->SiteOf(name);
      Offload(Lane::kHeavy, absl::StrCat("chunk:", name, ":", chunk), true, path,
              [site, name, chunk] {
                return RecordPage(site->ReplayStepsChunk(name, chunk), "application/json");
              });
      return;
    }
    if (absl::StartsWith(path, kReplays) && absl::EndsWith(path, ".html")) {
      const std::string name = path.substr(kReplays.size(), path.size() - kReplays.size() - 5);
      if (!SafeName(name)) return not_found();
      site = server_->SiteOf(name);
      // A finished record never changes: its page is cached.
      Offload(Lane::kHeavy, absl::StrCat("replay:", name), true, path, [site, name] {
        return RecordPage(site->ReplayPage(name), "text/html; charset=utf-8");
      });
      return;
    }
    if (absl::StartsWith(path, kLive) && absl::EndsWith(path, "/events")) {
      const std::string id = path.substr(kLive.size(), path.size() - kLive.size() - 7);
      if (!SafeName(id)) return not_found();
      site = server_->SiteOf(id);
      // Whether the match is there is known once its view is read: off this
      // thread, then the stream starts here.
      auto self = shared_from_this();
      asio::io_context* io = &server_->io;
      const bool queued = server_->workers->Submit(
          Lane::kHeavy, absl::StrCat("live-check:", id), false,
          [site, id, server = server_, path] {
            if (server->options.before_page_build) server->options.before_page_build(path);
            bool ended = false;
            Page page;
            if (!site->LiveMatchJson(id, &ended).ok()) page = NotFoundPage();
            return page;
          },
          [self, io, id](std::shared_ptr<const Page> page) {
            asio::post(*io, [self, page, id] {
              if (page->status != 200) {
                self->RespondPage(*page);
                return;
              }
              self->match_id = id;
              self->StartStream(Kind::kMatch);
            });
          });
      if (!queued) Busy();
      return;
    }
    if (absl::StartsWith(path, kLive) && absl::EndsWith(path, ".html")) {
      const std::string id = path.substr(kLive.size(), path.size() - kLive.size() - 5);
      if (!SafeName(id)) return not_found();
      site = server_->SiteOf(id);
      Offload(Lane::kHeavy, absl::StrCat("live:", id), false, path, [site, id] {
        Page page;
        auto built = site->LiveMatchPage(id);
        if (built.ok()) {
          page.body = *std::move(built);
          return page;
        }
        const std::string finished = site->FinishedPage(id);
        if (finished.empty()) return NotFoundPage();
        page.status = 302;
        page.type = "text/plain";
        page.body = "the match has ended\n";
        page.location = absl::StrCat("../replays/", finished, ".html");
        return page;
      });
      return;
    }
    not_found();
  }

  // What a finished record's page (or a part of it) answers: the page as
  // `type`, 404 for a name that is no record's, 500 if it does not verify.
  static Page RecordPage(absl::StatusOr<std::string> built, const std::string& type) {
    Page page;
    if (built.ok()) {
      page.type = type;
      page.body = *std::move(built);
    } else if (absl::IsNotFound(built.status())) {
      page = NotFoundPage();
    } else {
      page.status = 500;
      page.type = "text/plain";
      page.body = absl::StrCat("this record does not verify: ", built.status().message(), "\n");
    }
    return page;
  }

  static Page NotFoundPage() {
    Page page;
    page.status = 404;
    page.type = "text/plain";
    page.body = "not found\n";
    return page;
  }

  // Builds a page on a worker (`lane`; requests of the same non-empty `key`
  // share one build, cached if `cacheable`) and answers with it once built;
  // this thread goes on serving meanwhile. A lane whose queue is full: 503.
  void Offload(PageWorkers::Lane lane, const std::string& key, bool cacheable,
               const std::string& path, std::function<Page()> build) {
    auto self = shared_from_this();
    asio::io_context* io = &server_->io;
    LiveServer::Impl* server = server_;
    const bool queued = server_->workers->Submit(
        lane, key, cacheable,
        [server, path, build = std::move(build)] {
          if (server->options.before_page_build) server->options.before_page_build(path);
          return build();
        },
        [self, io](std::shared_ptr<const Page> page) {
          asio::post(*io, [self, page] { self->RespondPage(*page); });
        });
    if (!queued) Busy();
  }

  void Busy() {
    Respond(http::status::service_unavailable, "text/plain",
            "too many pages are being built; try again in a moment\n", false, "", "2");
  }

  void RespondPage(const Page& page) {
    Respond(static_cast<http::status>(page.status), page.type, page.body, false, page.location);
  }

  void Respond(http::status status, const std::string& type, std::string body,
               bool close = false, const std::string& location = "",
               const std::string& retry_after = "") {
    auto res = std::make_shared<http::response<http::string_body>>(status, version_);
    res->set(http::field::content_type, type);
    res->set(http::field::cache_control, "no-store");
    res->set("X-Content-Type-Options", "nosniff");
    // The pages are self-contained: inline style and script, data: images;
    // the script may reach this server only.
    res->set("Content-Security-Policy",
             "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
             "img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'");
    if (!location.empty()) res->set(http::field::location, location);
    if (!retry_after.empty()) res->set(http::field::retry_after, retry_after);
    res->body() = std::move(body);
    res->keep_alive(keep_alive_ && !close);
    res->prepare_payload();
    stream_.expires_after(Chrono(server_->options.write_timeout));
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
                        if (ec || !res->keep_alive()) {
                          self->Close();
                          return;
                        }
                        self->ReadRequest();
                      });
  }

  void StartStream(Kind kind) {
    kind_ = kind;
    beast::error_code ignored;
    stream_.socket().set_option(
        asio::socket_base::send_buffer_size(server_->options.stream_send_buffer), ignored);
    http::response<http::empty_body> res{http::status::ok, version_};
    res.set(http::field::content_type, "text/event-stream");
    res.set(http::field::cache_control, "no-store");
    res.set("X-Content-Type-Options", "nosniff");
    res.keep_alive(false);  // the stream ends with the connection
    std::ostringstream header;
    header << res.base();
    // The client's first event: the state now (or, for a match, once the
    // server has read it).
    Push(std::make_shared<const std::string>(header.str() + "retry: 2000\n\n"));
    server_->streams.push_back(shared_from_this());
    if (kind == Kind::kSite) {
      ++server_->site_streams;
      std::shared_ptr<LiveSite> site = server_->site();
      version = site->version();
      Push(SseEvent(site->UpdateJson(&page)));
    } else {
      server_->RefreshMatch(match_id);
    }
  }

  void WriteNext() {
    writing_ = true;
    std::shared_ptr<const std::string> data = queue_.front();
    stream_.expires_after(Chrono(server_->options.write_timeout));
    asio::async_write(stream_, asio::buffer(*data),
                      [self = shared_from_this(), data](beast::error_code ec, std::size_t) {
                        self->writing_ = false;
                        self->queued_ -= data->size();
                        self->queue_.pop_front();
                        if (ec) {
                          self->Close();
                        } else if (!self->queue_.empty()) {
                          self->WriteNext();
                        } else if (self->close_after_flush) {
                          self->Close();
                        }
                      });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_{8192};
  std::optional<http::request_parser<http::empty_body>> parser_;
  LiveServer::Impl* server_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  Kind kind_ = Kind::kPlain;
  std::deque<std::shared_ptr<const std::string>> queue_;
  size_t queued_ = 0;
  bool writing_ = false;
  bool closed_ = false;
};

void LiveServer::Impl::Accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (!ec) {
      if (open.load() >= options.max_connections) {
        ++refused;
        beast::error_code ignored;
        socket.close(ignored);
      } else {
        // Asio accepts without SOCK_CLOEXEC: a viewer's connection must not
        // cross into a bot started later (arena/common/descriptors.h).
        SetCloseOnExec(socket.native_handle());
        std::make_shared<Session>(std::move(socket), this)->Start();
      }
    } else if (ec == asio::error::no_descriptors) {
      // Out of descriptors: wait a moment rather than spin.
      auto t = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(50));
      t->async_wait([this, t](beast::error_code) { Accept(); });
      return;
    }
    Accept();
  });
}

void LiveServer::Impl::Broadcast() {
  broadcast_pending = false;
  std::shared_ptr<LiveSite> site = this->site();
  const int64_t version = site->version();
  // Pages in the same state get the same bytes (and then hold the same).
  std::map<std::tuple<int64_t, int64_t, int64_t>,
           std::pair<std::shared_ptr<const std::string>, LiveSite::PageState>>
      by_state;
  std::set<std::string> matches;  // watched
  std::vector<std::shared_ptr<Session>> keep;
  for (auto& s : streams) {
    if (s->closed()) continue;
    keep.push_back(s);
    if (s->kind() == Session::Kind::kSite) {
      if (s->version == version) continue;
      auto& [event, after] =
          by_state[std::make_tuple(s->page.have, s->page.standings, s->page.summary)];
      if (!event) {
        after = s->page;
        event = SseEvent(site->UpdateJson(&after));
      }
      s->version = version;
      s->page = after;
      s->Push(event);
    } else if (s->kind() == Session::Kind::kMatch) {
      matches.insert(s->match_id);
    }
  }
  streams.swap(keep);
  CountStreams();
  for (const std::string& id : matches) RefreshMatch(id);
}

void LiveServer::Impl::RefreshMatch(const std::string& match_id) {
  if (match_builds.count(match_id)) {
    match_rebuilds.insert(match_id);  // once this one is in
    return;
  }
  match_builds.insert(match_id);
  std::shared_ptr<LiveSite> s = SiteOf(match_id);
  const bool queued = workers->Submit(
      PageWorkers::Lane::kHeavy, "", false,
      [s, match_id] {
        // The view as JSON in the body, and the replay's page name in
        // `location` once the match has ended.
        Page view;
        bool ended = false;
        auto json = s->LiveMatchJson(match_id, &ended);
        if (json.ok()) view.body = *std::move(json);
        if (ended) view.location = s->FinishedPage(match_id);
        if (!json.ok()) view.status = 404;
        return view;
      },
      [this, match_id](std::shared_ptr<const Page> view) {
        asio::post(io, [this, match_id, view] {
          match_builds.erase(match_id);
          PushMatch(match_id, *view);
          if (match_rebuilds.erase(match_id)) RefreshMatch(match_id);
        });
      });
  if (!queued) {
    match_builds.erase(match_id);  // the next broadcast tries again
  }
}

void LiveServer::Impl::PushMatch(const std::string& match_id, const Page& view) {
  for (auto& s : streams) {
    if (s->closed() || s->kind() != Session::Kind::kMatch || s->match_id != match_id) continue;
    if (!view.location.empty()) {
      s->Push(SseEvent(absl::StrCat("{\"ended\":true,\"replay\":\"../replays/", view.location,
                                    ".html\"}")));
      s->CloseWhenFlushed();
    } else if (!view.body.empty() && view.body != s->last_json) {
      s->last_json = view.body;
      s->Push(SseEvent(absl::StrCat("{\"replay\":", view.body, "}")));
    }
  }
}

void LiveServer::Impl::CountStreams() {
  int n = 0;
  for (const auto& s : streams) n += s->kind() == Session::Kind::kSite;
  site_streams = n;
}

void LiveServer::Impl::NotifyWhenDrained(absl::Time give_up) {
  const bool all_closed = std::all_of(streams.begin(), streams.end(),
                                      [](const auto& s) { return s->closed(); });
  if (all_closed || MonoNow() >= give_up) {
    drained.Notify();
    return;
  }
  auto t = std::make_shared<asio::steady_timer>(io, std::chrono::milliseconds(2));
  t->async_wait([this, t, give_up](beast::error_code) { NotifyWhenDrained(give_up); });
}

void LiveServer::Impl::Heartbeat() {
  heartbeat.expires_after(Chrono(options.heartbeat));
  heartbeat.async_wait([this](beast::error_code ec) {
    if (ec) return;
    auto beat = std::make_shared<const std::string>(": \n\n");
    std::vector<std::shared_ptr<Session>> keep;
    for (auto& s : streams) {
      s->Push(beat);
      if (!s->closed()) keep.push_back(s);
    }
    streams.swap(keep);
    CountStreams();
    Heartbeat();
  });
}

absl::Duration PushInterval(absl::Duration push_every, int streams, int max_updates_per_second) {
  if (max_updates_per_second <= 0) return push_every;
  return std::max(push_every, absl::Seconds(1) * streams / max_updates_per_second);
}

LiveServer::LiveServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

LiveServer::~LiveServer() { Stop(); }

absl::StatusOr<std::unique_ptr<LiveServer>> LiveServer::Start(LiveSite* site,
                                                              const ServeOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->fixed = site;
  return Start(std::move(impl), options);
}

absl::StatusOr<std::unique_ptr<LiveServer>> LiveServer::Start(SiteFront* front,
                                                              const ServeOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->front = front;
  return Start(std::move(impl), options);
}

absl::StatusOr<std::unique_ptr<LiveServer>> LiveServer::Start(std::unique_ptr<Impl> impl,
                                                              const ServeOptions& options) {
  impl->options = options;
  PageWorkersOptions wo;
  wo.heavy_threads = options.page_threads;
  wo.max_waiting = options.max_waiting_pages;
  wo.cache_bytes = options.page_cache_bytes;
  impl->workers = std::make_unique<PageWorkers>(wo);
  const size_t colon = options.address.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(options.address.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("--serve ", options.address, ": expected HOST:PORT, e.g. 127.0.0.1:8080"));
  }
  std::string host = options.address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost") host = "127.0.0.1";
  beast::error_code ec;
  const auto ip = asio::ip::make_address(host, ec);
  if (ec) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--serve ", options.address, ": '", host, "' is not an IP address (", ec.message(), ")"));
  }
  // Each connection is a descriptor: as many as the hard limit allows.
  struct rlimit rl;
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }
  const tcp::endpoint endpoint(ip, static_cast<unsigned short>(port));
  impl->acceptor.open(endpoint.protocol(), ec);
  if (!ec) SetCloseOnExec(impl->acceptor.native_handle());  // no bot gets the listener
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(endpoint, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat("--serve ", options.address, ": cannot listen: ", ec.message()));
  }
  const tcp::endpoint bound = impl->acceptor.local_endpoint();
  impl->address = absl::StrCat(ip.is_v6() ? "[" : "", bound.address().to_string(),
                               ip.is_v6() ? "]" : "", ":", bound.port());
  impl->Poll(/*last=*/false);
  Impl* p = impl.get();
  p->Accept();
  p->Heartbeat();
  // Both threads yield to a contest on the same machine (thread_priority.h):
  // they run in its idle moments, so the pages wait for the contest, not
  // the contest (nor a bot's clock) for the pages.
  p->io_thread = std::thread([p] {
    NameThisThread("live-http");
    RunThisThreadWhenIdle();
    p->io.run();
  });
  p->poll_thread = std::thread([p] {
    NameThisThread("live-poll");
    RunThisThreadWhenIdle();
    // Changes are pushed at most every push_every (a page redraws at most
    // that often anyway), or less often with many pages open
    // (PushInterval); one seen in between waits for its turn.
    bool unsent = false;
    absl::Time pushed = absl::InfinitePast();
    while (!WaitForNotificationMono(&p->stop, p->site()->options().poll)) {
      unsent |= p->Poll(/*last=*/false);
      const absl::Duration every =
          PushInterval(p->site()->options().push_every, p->site_streams.load(),
                       p->options.max_updates_per_second);
      if (unsent && MonoNow() - pushed >= every &&
          !p->broadcast_pending.exchange(true)) {
        unsent = false;
        pushed = MonoNow();
        asio::post(p->io, [p] { p->Broadcast(); });
      }
    }
  });
  return std::unique_ptr<LiveServer>(new LiveServer(std::move(impl)));
}

const std::string& LiveServer::address() const { return impl_->address; }
int LiveServer::connections() const { return impl_->open.load(); }
int64_t LiveServer::refused() const { return impl_->refused.load(); }

void LiveServer::Stop() {
  Impl* p = impl_.get();
  if (p == nullptr || p->stopped) return;
  p->stopped = true;
  p->stop.Notify();
  if (p->poll_thread.joinable()) p->poll_thread.join();
  // The last records are shown, and pushed, before the streams close.
  p->Poll(/*last=*/true);
  asio::post(p->io, [p] {
    p->Broadcast();
    beast::error_code ec;
    p->acceptor.close(ec);
    p->heartbeat.cancel();
    for (auto& s : p->streams) s->CloseWhenFlushed();
    p->NotifyWhenDrained(MonoNow() + p->options.last_flush);
  });
  // Then every connection is closed, however far its client got.
  WaitForNotificationMono(&p->drained, p->options.last_flush + absl::Seconds(5));
  p->workers->Stop();  // the builds under way end first; what waits is dropped
  p->io.stop();
  if (p->io_thread.joinable()) p->io_thread.join();
}

}  // namespace arena
