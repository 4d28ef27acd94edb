// step mode's page and its event stream over HTTP (step_web_server.h), on cpp-httplib.
#include "harness/web/step_web_server.h"

#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "harness/web/step_page.h"
#include "harness/web/view_json.h"

namespace racelab::web {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

constexpr milliseconds kStreamSlice{100};  // how often an event stream looks for Stop()
constexpr milliseconds kHeartbeat{10000};  // a comment line keeps proxies and the browser happy
constexpr milliseconds kReadyWait{2000};   // Start(): until the listening thread runs
// Request threads: each open page holds one for its event stream (a class on --web-token may
// open many); the rest serve the POSTs. cpp-httplib's default is 8.
constexpr size_t kThreads = 48;

void Reply(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  std::string body = "{\"ok\":";
  body += status == 200 ? "true" : "false";
  body += ",\"message\":\"";
  for (char c : message) {
    if (c == '"' || c == '\\') body += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    body += c;
  }
  body += "\"}";
  res.set_content(body, "application/json");
}

}  // namespace

struct StepWebServer::Impl {
  WebOptions options;
  httplib::Server server;
  std::thread listener;
  int port = 0;
  bool started = false;
  std::atomic<bool> stopping{false};
  std::atomic<bool> quit_sent{false};
  std::mutex control;  // one controller operation at a time (step_session.h)

  std::mutex streams_mu;
  std::condition_variable streams_cv;
  int streams = 0;  // guarded by streams_mu

  bool Allowed(const httplib::Request& req, httplib::Response& res) {
    if (!HostHeaderAllowed(req.get_header_value("Host"), options.address)) {
      res.status = 403;
      res.set_content("racelab: this page answers to its own address only\n", "text/plain");
      return false;
    }
    if (!options.token.empty()) {
      std::string given = req.has_param("token") ? req.get_param_value("token")
                                                 : req.get_header_value("X-Racelab-Token");
      if (!SameToken(given, options.token)) {
        res.status = 403;
        res.set_content("racelab: the page's URL carries a token: open the one racelab printed\n",
                        "text/plain");
        return false;
      }
    }
    if (req.method == "POST" && req.get_header_value("X-Racelab") != "step") {
      res.status = 403;
      res.set_content("racelab: a POST needs the header X-Racelab: step\n", "text/plain");
      return false;
    }
    return true;
  }

  void Events(httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    {
      std::lock_guard<std::mutex> lock(streams_mu);
      ++streams;
    }
    auto seen = std::make_shared<uint64_t>(~uint64_t{0});
    auto beat = std::make_shared<Clock::time_point>(Clock::now() + kHeartbeat);
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, seen, beat](size_t, httplib::DataSink& sink) {
          for (;;) {
            if (stopping.load()) {
              const std::string bye = "event: bye\ndata: {}\n\n";
              sink.write(bye.data(), bye.size());
              sink.done();
              return true;
            }
            // version() counts across walks (view().version starts again with each): read it
            // first, so a change after it is sent again, never lost.
            if (const uint64_t now = options.session->version(); now != *seen) {
              *seen = now;
              const std::string event =
                  "event: view\ndata: " + ViewJson(options.session->view()) + "\n\n";
              return sink.write(event.data(), event.size());
            }
            if (Clock::now() >= *beat) {
              *beat = Clock::now() + kHeartbeat;
              return sink.write(": beat\n\n", 8);
            }
            options.session->AwaitChange(*seen, Clock::now() + kStreamSlice);
          }
        },
        [this](bool) {
          std::lock_guard<std::mutex> lock(streams_mu);
          --streams;
          streams_cv.notify_all();
        });
  }

  void Routes() {
    server.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
    server.set_keep_alive_max_count(1);
    server.set_read_timeout(1, 0);
    server.set_write_timeout(1, 0);
    server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      return Allowed(req, res) ? httplib::Server::HandlerResponse::Unhandled
                               : httplib::Server::HandlerResponse::Handled;
    });
    server.set_default_headers({{"X-Content-Type-Options", "nosniff"},
                                {"Referrer-Policy", "no-referrer"},
                                {"Cache-Control", "no-store"}});
    server.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Content-Security-Policy",
                     "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                     "connect-src 'self'; img-src data:");
      res.set_content(StepPage(), "text/html; charset=utf-8");
    });
    server.Get("/state", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(ViewJson(options.session->view()), "application/json");
    });
    server.Get("/events", [this](const httplib::Request&, httplib::Response& res) { Events(res); });
    server.Post("/next", [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(control);
      auto next = options.session->Next();
      if (!next.ok()) return Reply(res, 409, next.status().message());
      Reply(res, 200, next.value().value_or(""));
    });
    server.Post(R"(/next/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(control);
      Status s = options.session->Next(req.matches[1].str());
      Reply(res, s.ok() ? 200 : 409, s.message());
    });
    server.Post("/back", [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(control);
      Status s = options.session->Reset();
      Reply(res, s.ok() ? 200 : 409, s.message());
    });
    server.Post("/level", [this](const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(control);
      Status s = options.session->SwitchLevel("");
      Reply(res, s.ok() ? 200 : 409, s.message());
    });
    server.Post("/quit", [this](const httplib::Request&, httplib::Response& res) {
      Reply(res, 200, "racelab is quitting");
      if (!quit_sent.exchange(true) && options.on_quit) options.on_quit();
    });
  }
};

StepWebServer::StepWebServer(WebOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->Routes();
}

StepWebServer::~StepWebServer() { Stop(); }

Status StepWebServer::Start() {
  Impl& m = *impl_;
  const WebAddress& a = m.options.address;
  if (a.port == 0) {
    m.port = m.server.bind_to_any_port(a.host);
    if (m.port <= 0) return Status::Usage("--web " + a.host + ":0: cannot listen on " + a.host);
  } else {
    if (!m.server.bind_to_port(a.host, a.port))
      return Status::Usage(
          "--web " + a.host + ":" + std::to_string(a.port) +
          ": cannot listen there (the port in use, or not this machine's address)");
    m.port = a.port;
  }
  m.options.address.port = m.port;  // the Host header check names the port bound
  m.started = true;
  m.listener = std::thread([&m] { m.server.listen_after_bind(); });
  // stop() before the loop runs would be lost (cpp-httplib 0.11): wait until it runs.
  const auto deadline = Clock::now() + kReadyWait;
  while (!m.server.is_running() && Clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(1));
  if (!m.server.is_running()) {
    Stop();
    return Status::Internal("--web: the HTTP server did not start within 2 s");
  }
  return Status::Ok();
}

int StepWebServer::port() const { return impl_->port; }

std::string StepWebServer::url() const {
  std::string host = impl_->options.address.host;
  if (host == "0.0.0.0" || host == "::") {
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') host = name;
  }
  std::string u = "http://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) +
                  ":" + std::to_string(impl_->port) + "/";
  if (!impl_->options.token.empty()) u += "?token=" + impl_->options.token;
  return u;
}

void StepWebServer::Stop() {
  Impl& m = *impl_;
  if (!m.started) return;
  m.started = false;
  m.stopping.store(true);
  {
    // Each stream sees `stopping` within a slice and says bye; a stuck one is cut by stop().
    std::unique_lock<std::mutex> lock(m.streams_mu);
    m.streams_cv.wait_for(lock, 4 * kStreamSlice, [&m] { return m.streams == 0; });
  }
  m.server.stop();
  if (m.listener.joinable()) m.listener.join();
}

}  // namespace racelab::web
