// Server-sent events with civetweb: a worker thread per connection
// (num_threads 1,100, so that 1,000 streams are held at all).
// Bench only: g++ -O2 civet_sse.cc -lcivetweb -pthread
#include <civetweb.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

static std::atomic<long> g_seq{0};

static int Events(mg_connection* c, void*) {
  mg_printf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n");
  for (;;) {
    long last = g_seq.load();
    while (g_seq.load() == last) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::string e = "data: {\"seq\":" + std::to_string(g_seq.load()) + "}\n\n";
    if (mg_write(c, e.data(), e.size()) <= 0) break;
  }
  return 200;
}

static int Root(mg_connection* c, void*) {
  mg_printf(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  return 200;
}

int main(int argc, char** argv) {
  std::string port = argc > 1 ? argv[1] : "18082";
  const char* opts[] = {"listening_ports", port.c_str(), "num_threads", "1100",
                        "request_timeout_ms", "10000", nullptr};
  mg_init_library(0);
  mg_context* ctx = mg_start(nullptr, nullptr, opts);
  if (!ctx) return 1;
  mg_set_request_handler(ctx, "/events", Events, nullptr);
  mg_set_request_handler(ctx, "/$", Root, nullptr);
  for (;;) { std::this_thread::sleep_for(std::chrono::seconds(1)); ++g_seq; }
}
