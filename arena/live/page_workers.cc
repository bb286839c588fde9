#include "arena/live/page_workers.h"

#include <algorithm>
#include <utility>

#include "arena/common/thread_priority.h"

namespace arena {

PageWorkers::PageWorkers(PageWorkersOptions options) : options_(options) {
  const int heavy = std::max(1, options_.heavy_threads);
  threads_.emplace_back([this] { Work(Lane::kLight); });
  for (int i = 0; i < heavy; ++i) threads_.emplace_back([this] { Work(Lane::kHeavy); });
}

PageWorkers::~PageWorkers() { Stop(); }

void PageWorkers::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return;
    stopped_ = true;
    light_.waiting.clear();
    heavy_.waiting.clear();
    askers_.clear();
  }
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

bool PageWorkers::Submit(Lane lane, const std::string& key, bool cacheable, Build build,
                         Done done) {
  std::shared_ptr<const Page> hit;
  {
    absl::MutexLock lock(&mu_);
    if (stopped_) return false;
    if (!key.empty()) {
      if (auto c = cached_.find(key); c != cached_.end()) {
        lru_.splice(lru_.begin(), lru_, c->second);  // most recently used
        hit = c->second->second;
        ++counts_.cache_hits;
      } else if (auto a = askers_.find(key); a != askers_.end()) {
        a->second.push_back(std::move(done));
        ++counts_.joined;
        return true;
      }
    }
    if (!hit) {
      Queue& q = lane == Lane::kLight ? light_ : heavy_;
      if (static_cast<int>(q.waiting.size()) >= options_.max_waiting) {
        ++counts_.refused;
        return false;
      }
      Job job{key, cacheable && !key.empty(), std::move(build), nullptr};
      if (key.empty()) {
        job.done = std::move(done);
      } else {
        askers_[key].push_back(std::move(done));
      }
      q.waiting.push_back(std::move(job));
      return true;
    }
  }
  done(std::move(hit));  // outside the lock: it may post, or submit again
  return true;
}

void PageWorkers::Work(Lane lane) {
  NameThisThread(lane == Lane::kLight ? "live-pages" : "live-replays");
  // Like the site's other threads, the pages wait for a contest on the same
  // machine, not the contest for them (thread_priority.h).
  RunThisThreadWhenIdle();
  for (;;) {
    Job job;
    {
      absl::MutexLock lock(&mu_);
      Queue& q = lane == Lane::kLight ? light_ : heavy_;
      auto ready = [&] { return stopped_ || !q.waiting.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (stopped_) return;
      job = std::move(q.waiting.front());
      q.waiting.pop_front();
      ++q.running;
    }
    auto page = std::make_shared<const Page>(job.build());
    std::vector<Done> dones;
    {
      absl::MutexLock lock(&mu_);
      Queue& q = lane == Lane::kLight ? light_ : heavy_;
      --q.running;
      ++counts_.builds;
      if (job.key.empty()) {
        dones.push_back(std::move(job.done));
      } else if (auto a = askers_.find(job.key); a != askers_.end()) {
        dones = std::move(a->second);
        askers_.erase(a);
      }
      if (job.cacheable && page->status == 200) CacheLocked(job.key, page);
    }
    for (Done& d : dones) {
      if (d) d(page);
    }
  }
}

void PageWorkers::CacheLocked(const std::string& key, std::shared_ptr<const Page> page) {
  const size_t bytes = page->body.size() + key.size();
  if (bytes > options_.cache_bytes) return;  // larger than the whole cache
  if (auto c = cached_.find(key); c != cached_.end()) {
    counts_.cached_bytes -= c->second->second->body.size() + key.size();
    lru_.erase(c->second);
    cached_.erase(c);
  }
  lru_.emplace_front(key, std::move(page));
  cached_[key] = lru_.begin();
  counts_.cached_bytes += bytes;
  while (counts_.cached_bytes > options_.cache_bytes && !lru_.empty()) {
    auto& [old_key, old_page] = lru_.back();
    counts_.cached_bytes -= old_page->body.size() + old_key.size();
    cached_.erase(old_key);
    lru_.pop_back();
  }
}

PageWorkers::Counts PageWorkers::counts() const {
  absl::MutexLock lock(&mu_);
  return counts_;
}

}  // namespace arena
