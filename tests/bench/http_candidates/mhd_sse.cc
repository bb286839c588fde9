// Server-sent events with libmicrohttpd: one epoll thread; each event stream
// is a suspended connection, resumed once a second to send one event.
// Bench only (README.md here): g++ -O2 mhd_sse.cc -lmicrohttpd
#include <microhttpd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {
std::atomic<long> g_seq{0};
std::mutex g_mu;
std::vector<MHD_Connection*> g_waiting;  // suspended, waiting for an event

struct Stream {
  MHD_Connection* conn;
  long sent = -1;
  std::string pending;
};

ssize_t Reader(void* cls, uint64_t, char* buf, size_t max) {
  auto* s = static_cast<Stream*>(cls);
  if (s->pending.empty()) {
    long now = g_seq.load();
    if (now == s->sent) {
      std::lock_guard<std::mutex> l(g_mu);
      g_waiting.push_back(s->conn);
      MHD_suspend_connection(s->conn);
      return 0;
    }
    s->sent = now;
    s->pending = "data: {\"seq\":" + std::to_string(now) + "}\n\n";
  }
  size_t n = std::min(max, s->pending.size());
  memcpy(buf, s->pending.data(), n);
  s->pending.erase(0, n);
  return n;
}

void Free(void* cls) { delete static_cast<Stream*>(cls); }

MHD_Result Handler(void*, MHD_Connection* c, const char* url, const char*, const char*,
                   const char*, size_t*, void** ptr) {
  if (*ptr == nullptr) { *ptr = c; return MHD_YES; }
  if (strcmp(url, "/events") != 0) {
    MHD_Response* r = MHD_create_response_from_buffer(2, (void*)"ok", MHD_RESPMEM_PERSISTENT);
    MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
  }
  auto* s = new Stream{c};
  MHD_Response* r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 256, Reader, s, Free);
  MHD_add_response_header(r, "Content-Type", "text/event-stream");
  MHD_Result ret = MHD_queue_response(c, 200, r);
  MHD_destroy_response(r);
  return ret;
}
}  // namespace

int main(int argc, char** argv) {
  int port = argc > 1 ? atoi(argv[1]) : 18080;
  MHD_Daemon* d = MHD_start_daemon(
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, port, nullptr, nullptr,
      &Handler, nullptr, MHD_OPTION_CONNECTION_LIMIT, (unsigned)15000,
      MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
      (size_t)16384, MHD_OPTION_END);
  if (!d) { perror("start"); return 1; }
  for (;;) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    ++g_seq;
    std::vector<MHD_Connection*> w;
    { std::lock_guard<std::mutex> l(g_mu); w.swap(g_waiting); }
    for (auto* c : w) MHD_resume_connection(c);
  }
}
