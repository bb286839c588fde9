// The live site over HTTP: `arena serve DIR` and `arena tournament ...
// --serve ADDR` (what is served: arena/live/live_site.h; docs/live.md).
//
// Boost.Beast on one Asio thread (every connection asynchronous; the
// figures that chose it: docs/live.md), and one thread that polls the
// folder and pushes what changed to the open event streams. Routes, GET
// only (anything else 405); a match is named by its id, [A-Za-z0-9_-]
// only, looked up among the records listed; any other path is 404 (no
// request names a file, so "..", %2e%2e and links lead nowhere):
//   /, /index.html           the index, as `arena html` writes it, live
//   /events?have=N           server-sent events: the index's updates
//   /matches.json?from=A&to=B  match list entries (at most 5,000 a request)
//   /replays/<match>.html    a finished match's replay page
//   /replays/<match>.steps.json?chunk=K  chunk K of a long match's steps,
//                            which its page fetches as the viewer moves
//   /live/<match>.html       a match in progress, as a spectator sees it
//                            (302 to its replay once it has ended)
//   /live/<match>/events     server-sent events: that match's spectator view
// No request waits for a page to be built on the thread that serves
// connections: pages are built by worker threads, a replay's at most
// page_threads at a time and cached (arena/live/page_workers.h), the
// index's on a lane of its own, and each is written when ready; meanwhile
// every other request and stream is served.
// Bounds (ServeOptions): connections at once (more are closed as they
// come), a request's header size (431) and no body (413), the time to send
// a request's header (then closed: a slow or silent client holds a
// connection that long at most), the time any write may take, and the bytes
// queued for an event stream whose client does not read (then closed; its
// socket's send buffer is bounded too), and the updates sent a second (many
// open pages are updated less often: PushInterval).
// Read-only; binds 127.0.0.1 unless told otherwise.
//
// Thread safety: Start and Stop from one thread; the server runs on its own
// threads until Stop (or destruction). `site` (or `front`) must outlive the
// server.
#ifndef ARENA_ARENA_LIVE_HTTP_SERVER_H_
#define ARENA_ARENA_LIVE_HTTP_SERVER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "arena/live/live_site.h"
#include "arena/live/page_workers.h"

namespace arena {

struct ServeOptions {
  std::string address = "127.0.0.1:8080";  // HOST:PORT (port 0: any free one)
  int max_connections = 2048;
  size_t max_header_bytes = 8192;
  absl::Duration header_timeout = absl::Seconds(10);
  absl::Duration write_timeout = absl::Seconds(30);
  size_t max_queued_bytes = size_t{4} << 20;  // per event stream
  // An event stream's socket send buffer (the kernel's part of what a
  // client that reads nothing can hold; the system may double it).
  int stream_send_buffer = 128 << 10;
  absl::Duration heartbeat = absl::Seconds(15);  // a comment on idle streams
  // At Stop, how long the streams' last events may take to be written out:
  // a client that reads gets them within milliseconds; one that does not
  // read holds the end of the process no longer than this.
  absl::Duration last_flush = absl::Milliseconds(300);
  // Updates sent to the index's event streams a second, at most: with more
  // pages open than this allows every LiveOptions::push_every, the pushes
  // come less often (PushInterval), so that the server's work does not grow
  // without bound with its audience. The default keeps 1,000 pages at
  // push_every (within 1 s of a record) and 2,048 (max_connections) at
  // 1.4 s.
  int max_updates_per_second = 1500;
  // Pages are built off the thread that serves connections
  // (arena/live/page_workers.h): replays and live matches by page_threads
  // threads at once, the index and match lists by one more; at most
  // max_waiting_pages more wait in each lane (then 503 with Retry-After).
  // Finished matches' replay pages are kept up to page_cache_bytes.
  int page_threads = 2;
  int max_waiting_pages = 64;
  size_t page_cache_bytes = size_t{64} << 20;
  // For tests: called on a worker before each page it builds, with the
  // request's path ("/replays/x.html"), e.g. to make a build take seconds.
  std::function<void(const std::string& path)> before_page_build;
};

// How long the index's streams wait between pushes: push_every, or longer
// so that `streams` pages get at most max_updates_per_second updates a
// second between them.
absl::Duration PushInterval(absl::Duration push_every, int streams, int max_updates_per_second);

// A site in front of the live site, for a contest of several records
// folders one after another (a ladder's segments: arena/live/ladder_site.h):
// pages of its own at some paths, and the live site whose match routes
// (/live/, /replays/) are served now, which may change from one request to
// the next. The front's pages are built on a worker, like every page.
class SiteFront {
 public:
  struct Route {
    // Requests of the same non-empty key share one build; a cacheable
    // page is kept (PageWorkers), so a key must name what the page shows.
    std::string key;
    bool cacheable = false;
    std::function<Page()> build;
  };
  virtual ~SiteFront() = default;
  // The live site of the matches served now; never null.
  virtual std::shared_ptr<LiveSite> live() const = 0;
  // The live site that serves the match `name` (a match id, or a replay's
  // page name): live(), unless the front keeps earlier sites too. Never
  // null; on the thread serving connections: must not block.
  virtual std::shared_ptr<LiveSite> LiveOf(const std::string& name) const { return live(); }
  // On the server's polling thread only (and once at Start and Stop):
  // reads what changed, polling live() too; whether anything shown did.
  virtual bool Poll(bool last) = 0;
  // The front's page at `path` (the query left out), or nullopt: the live
  // site's routes then. On the thread serving connections: must not block.
  virtual std::optional<Route> RouteOf(const std::string& path) const = 0;
};

class LiveServer {
 public:
  // Binds and starts serving, and polling `site` every site->options().poll.
  // Errors: an address that does not parse or cannot be bound.
  static absl::StatusOr<std::unique_ptr<LiveServer>> Start(LiveSite* site,
                                                           const ServeOptions& options);
  // The same for a front (`front` must outlive the server).
  static absl::StatusOr<std::unique_ptr<LiveServer>> Start(SiteFront* front,
                                                           const ServeOptions& options);
  ~LiveServer();
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  // "HOST:PORT" as bound (the port chosen if 0 was asked).
  const std::string& address() const;
  // Connections open now, and refused at the bound so far.
  int connections() const;
  int64_t refused() const;
  // Polls once more (the records that landed are shown), pushes to every
  // stream, waits until each stream's last event is written out (at most
  // ServeOptions::last_flush for a client that does not read), and stops.
  // Idempotent.
  void Stop();

  struct Impl;  // (arena/live/http_server.cc)

 private:
  explicit LiveServer(std::unique_ptr<Impl> impl);
  static absl::StatusOr<std::unique_ptr<LiveServer>> Start(std::unique_ptr<Impl> impl,
                                                           const ServeOptions& options);
  std::unique_ptr<Impl> impl_;
};

}  // namespace arena

#endif  // ARENA_ARENA_LIVE_HTTP_SERVER_H_
