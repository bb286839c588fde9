// The threads that build the live site's pages, so that the thread serving
// connections never does (arena/live/http_server.h).
//
// A page (a replay, the index, a live match's view) is built by a function
// given to Submit, on one of two lanes: kLight (the index, match lists:
// milliseconds; one thread) and kHeavy (replays and live matches, which
// re-simulate a record: up to seconds for a very long match; `heavy_threads`
// threads). Each lane runs at most its threads' builds at once, which bounds
// the memory they take, and queues at most `max_waiting` more; beyond that
// Submit refuses (the server answers 503), so a crowd asking for many long
// replays cannot queue work without bound. A lane's queue is first come,
// first served, and a light page never waits behind a heavy one.
//
// Requests for the same key while its build runs or waits join it (one
// build, every asker answered). Pages submitted as cacheable (a finished
// match's replay: its record never changes) are kept, the most recently
// used first, up to `cache_bytes` in all, and answered from there.
//
// Thread safety: every method from any thread. `done` runs on a worker
// thread, or on the caller's for a page already cached; it must not block.
// Stop (or the destructor) drops what waits (its `done`s are never called),
// waits for the builds running, and joins the threads.
#ifndef ARENA_ARENA_LIVE_PAGE_WORKERS_H_
#define ARENA_ARENA_LIVE_PAGE_WORKERS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace arena {

// An answer, as built: an HTTP status, its content type and body, and a
// Location (a redirect's, or what the builder passes on in it).
struct Page {
  int status = 200;
  std::string type = "text/html; charset=utf-8";
  std::string body;
  std::string location;
};

struct PageWorkersOptions {
  int heavy_threads = 2;
  int max_waiting = 64;                    // per lane, beyond the builds running
  size_t cache_bytes = size_t{64} << 20;   // cacheable pages kept, in all
};

class PageWorkers {
 public:
  enum class Lane { kLight, kHeavy };
  using Build = std::function<Page()>;
  using Done = std::function<void(std::shared_ptr<const Page>)>;

  explicit PageWorkers(PageWorkersOptions options);
  ~PageWorkers();
  PageWorkers(const PageWorkers&) = delete;
  PageWorkers& operator=(const PageWorkers&) = delete;

  // Answers `done` with the page of `key`: from the cache, by joining its
  // build under way, or by building it on `lane`. An empty key joins
  // nothing and is never cached. Returns false (and drops `done`) if the
  // lane's queue is full or the workers have stopped.
  bool Submit(Lane lane, const std::string& key, bool cacheable, Build build, Done done);
  void Stop();

  struct Counts {
    int64_t builds = 0;        // pages built
    int64_t cache_hits = 0;    // answered from the cache
    int64_t joined = 0;        // answered by a build another asker started
    int64_t refused = 0;       // Submit returned false
    size_t cached_bytes = 0;   // held in the cache now
  };
  Counts counts() const;

 private:
  struct Job {
    std::string key;
    bool cacheable = false;
    Build build;
    Done done;  // a job without a key: its one asker (keyed ones: askers_)
  };
  struct Queue {
    std::deque<Job> waiting;
    int running = 0;
  };
  void Work(Lane lane);
  void CacheLocked(const std::string& key, std::shared_ptr<const Page> page)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const PageWorkersOptions options_;
  mutable absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  Queue light_ ABSL_GUARDED_BY(mu_), heavy_ ABSL_GUARDED_BY(mu_);
  // Askers waiting for a key's build (queued or running).
  std::map<std::string, std::vector<Done>> askers_ ABSL_GUARDED_BY(mu_);
  // The cache: most recently used first.
  std::list<std::pair<std::string, std::shared_ptr<const Page>>> lru_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, decltype(lru_)::iterator> cached_ ABSL_GUARDED_BY(mu_);
  Counts counts_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;
};

}  // namespace arena

#endif  // ARENA_ARENA_LIVE_PAGE_WORKERS_H_
