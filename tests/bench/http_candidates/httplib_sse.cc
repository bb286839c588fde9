// Server-sent events with cpp-httplib: a blocking thread per connection (a
// pool of 1,100 threads, so that 1,000 streams are held at all).
// Bench only: g++ -O2 httplib_sse.cc -lcpp-httplib -pthread
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  int port = argc > 1 ? atoi(argv[1]) : 18081;
  std::atomic<long> seq{0};
  httplib::Server svr;
  svr.new_task_queue = [] { return new httplib::ThreadPool(1100); };
  svr.set_read_timeout(10, 0);
  svr.Get("/events", [&](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("text/event-stream", [&](size_t, httplib::DataSink& sink) {
      long last = seq.load();
      while (seq.load() == last) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::string e = "data: {\"seq\":" + std::to_string(seq.load()) + "}\n\n";
      return sink.write(e.data(), e.size());
    });
  });
  svr.Get("/", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
  std::thread tick([&] { for (;;) { std::this_thread::sleep_for(std::chrono::seconds(1)); ++seq; } });
  svr.listen("127.0.0.1", port);
}
