// Server-sent events with Boost.Beast (Asio): one thread, every connection
// asynchronous; each stream waits on a shared one-second timer.
// Bench only: g++ -O2 beast_sse.cc -pthread
#include <boost/asio.hpp>
#include <boost/beast.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

struct Hub {
  long seq = 0;
  std::vector<std::shared_ptr<struct Session>> streams;  // held until closed
};

struct Session : std::enable_shared_from_this<Session> {
  beast::tcp_stream s;
  beast::flat_buffer buf;
  http::request_parser<http::empty_body> parser;
  Hub* hub;
  std::string out;
  bool writing = false;
  Session(tcp::socket sock, Hub* h) : s(std::move(sock)), hub(h) { parser.header_limit(8192); }
  void Start() {
    s.expires_after(std::chrono::seconds(10));
    http::async_read(s, buf, parser, [self = shared_from_this()](beast::error_code ec, size_t) {
      if (ec) return;
      self->s.expires_never();
      if (self->parser.get().target() == "/events") {
        self->out = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n";
        self->hub->streams.push_back(self);
      } else {
        self->out = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
      }
      self->Flush();
    });
  }
  void Push(const std::string& e) {
    out += e;
    if (out.size() > 65536) { beast::error_code ec; s.socket().close(ec); return; }
    if (!writing) Flush();
  }
  void Flush() {
    writing = true;
    auto data = std::make_shared<std::string>(std::move(out));
    out.clear();
    s.expires_after(std::chrono::seconds(30));  // a client that reads nothing is dropped
    asio::async_write(s, asio::buffer(*data), [self = shared_from_this(), data](beast::error_code ec, size_t) {
      self->writing = false;
      if (ec) { beast::error_code ignored; self->s.socket().close(ignored); return; }
      if (!self->out.empty()) self->Flush();
    });
  }
};

int main(int argc, char** argv) {
  int port = argc > 1 ? atoi(argv[1]) : 18083;
  asio::io_context io(1);
  Hub hub;
  tcp::acceptor acc(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  std::function<void()> accept = [&] {
    acc.async_accept([&](beast::error_code ec, tcp::socket sock) {
      if (!ec) std::make_shared<Session>(std::move(sock), &hub)->Start();
      accept();
    });
  };
  accept();
  asio::steady_timer t(io);
  std::function<void()> tick = [&] {
    t.expires_after(std::chrono::seconds(1));
    t.async_wait([&](beast::error_code) {
      ++hub.seq;
      std::string e = "data: {\"seq\":" + std::to_string(hub.seq) + "}\n\n";
      std::vector<std::shared_ptr<Session>> keep;
      for (auto& sp : hub.streams) {
        if (!sp->s.socket().is_open()) continue;
        sp->Push(e);
        keep.push_back(sp);
      }
      hub.streams.swap(keep);
      tick();
    });
  };
  tick();
  io.run();
}
