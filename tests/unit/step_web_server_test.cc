// step mode's page server (harness/web/step_web_server.h) on the scripted FakeEngine, through a
// real HTTP client (cpp-httplib's) on 127.0.0.1: the page is served whole, the view arrives as a
// Server-Sent Event and again after a POST /next, a request that names another host, lacks the
// token or a POST's X-Racelab header is refused, and Stop() ends an open event stream and closes
// the port within its deadline. The address rules (web_address.h) as plain functions. What a real
// server shows in the page is tested in a browser (tests/python/step_web_test.py).
#include "harness/web/step_web_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/web/view_json.h"
#include "harness/web/web_address.h"
#include "tests/unit/fake/fake_run.h"

namespace racelab::web {
namespace {

using fake::FakeEngine;
using fake::FakeScript;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

constexpr char kHoldWait[] = R"(name: fake-hold-wait
title: Hold and wait
teaches: b waits for a.
setup: CREATE TABLE runs (id int)
expect: { sqlstates: {} }
sessions:
  - name: a
    steps:
      - { begin: , name: begin }
      - { sql: "UPDATE runs SET id = 1", name: claim }
      - { commit: , name: commit }
  - name: b
    steps:
      - { begin: , name: begin }
      - { commit: , name: commit }
)";

TEST(WebAddressTest, ParsesPortsHostsAndRefusesTheRest) {
  auto a = ParseWebAddress("8080");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.value().host, "127.0.0.1");
  EXPECT_EQ(a.value().port, 8080);
  EXPECT_EQ(ParseWebAddress(":0").value().port, 0);
  EXPECT_EQ(ParseWebAddress("localhost:9000").value().host, "localhost");
  EXPECT_EQ(ParseWebAddress("[::1]:9000").value().host, "::1");
  EXPECT_EQ(ParseWebAddress("0.0.0.0:80").value().host, "0.0.0.0");
  for (const char* bad : {"", "x", "70000", "-1", "host:", "::1:80", "[::1]80", "1.2.3.4:8o"})
    EXPECT_FALSE(ParseWebAddress(bad).ok()) << bad;
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  for (const char* far : {"0.0.0.0", "192.168.1.2", "127.0.0.1.evil.com", "::", "example.com"})
    EXPECT_FALSE(IsLoopbackHost(far)) << far;
}

TEST(WebAddressTest, HostHeaderMustNameTheLoopbackAddressServed) {
  WebAddress served{"127.0.0.1", 8080};
  EXPECT_TRUE(HostHeaderAllowed("127.0.0.1:8080", served));
  EXPECT_TRUE(HostHeaderAllowed("localhost:8080", served));
  EXPECT_TRUE(HostHeaderAllowed("[::1]:8080", served));
  EXPECT_FALSE(HostHeaderAllowed("127.0.0.1:8081", served));
  EXPECT_FALSE(HostHeaderAllowed("evil.example:8080", served));  // DNS rebinding
  EXPECT_FALSE(HostHeaderAllowed("", served));
  EXPECT_TRUE(HostHeaderAllowed("anything", WebAddress{"0.0.0.0", 80}));  // the token guards it
  EXPECT_TRUE(SameToken("abc", "abc"));
  EXPECT_FALSE(SameToken("abc", "abd"));
  EXPECT_FALSE(SameToken("abc", "ab"));
}

class StepWebServerTest : public ::testing::Test {
 protected:
  void Start(const std::string& token = "") {
    items_ = fake::PlanText(kHoldWait);
    ASSERT_EQ(items_.size(), 1u);
    engine_ = std::make_unique<FakeEngine>(FakeScript());
    step::StepOptions o;
    o.engine = engine_.get();
    o.item = items_[0];
    session_ = std::make_unique<step::StepSession>(std::move(o));
    WebOptions w;
    w.token = token;
    w.session = session_.get();
    w.on_quit = [this] { quit_ = true; };
    server_ = std::make_unique<StepWebServer>(std::move(w));
    ASSERT_TRUE(server_->Start().ok());
    ASSERT_GT(server_->port(), 0);
    // The walk's gate exists once its first step is held (before, Next() says the walk is over).
    ASSERT_TRUE(session_->AwaitQuiet(-1, Clock::now() + std::chrono::seconds(5)));
  }
  void TearDown() override {
    if (server_) server_->Stop();
    if (session_) session_->Quit();
  }
  httplib::Client Client() {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_connection_timeout(2);
    c.set_read_timeout(5);
    return c;
  }
  static httplib::Headers Post() { return {{"X-Racelab", "step"}}; }

  std::vector<PlanItem> items_;
  std::unique_ptr<FakeEngine> engine_;
  std::unique_ptr<step::StepSession> session_;
  std::unique_ptr<StepWebServer> server_;
  std::atomic<bool> quit_{false};
};

TEST_F(StepWebServerTest, ServesThePageTheViewAndTheKeys) {
  Start();
  EXPECT_EQ(server_->url(), "http://127.0.0.1:" + std::to_string(server_->port()) + "/");
  httplib::Client c = Client();
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_THAT(page->get_header_value("Content-Type"), HasSubstr("text/html"));
  EXPECT_THAT(page->body, HasSubstr("<svg id=\"graph\""));
  EXPECT_THAT(page->body, HasSubstr("new EventSource(\"/events\""));
  // Nothing fetched from elsewhere: the one URL in it is the SVG namespace's name.
  std::string body = page->body;
  for (size_t at; (at = body.find("http://www.w3.org/2000/svg")) != std::string::npos;)
    body.erase(at, 26);
  EXPECT_EQ(body.find("http://"), std::string::npos);
  EXPECT_EQ(body.find("https://"), std::string::npos);

  // The first event is the view now: a at the gate with its BEGIN next.
  std::string stream;
  auto events = Client().Get("/events", [&](const char* data, size_t n) {
    stream.append(data, n);
    return stream.find("\n\n") == std::string::npos;  // one event, then hang up
  });
  ASSERT_EQ(stream.rfind("event: view\ndata: ", 0), 0u) << stream;
  auto first = nlohmann::json::parse(stream.substr(18, stream.find("\n\n") - 18));
  EXPECT_EQ(first["scenario"], "fake-hold-wait");
  EXPECT_EQ(first["sessions"][0]["label"], "a");
  EXPECT_EQ(first["sessions"][0]["next_step"], "begin");

  auto next = c.Post("/next", Post(), "", "text/plain");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200) << next->body;
  EXPECT_EQ(nlohmann::json::parse(next->body)["message"], "a");
  ASSERT_TRUE(session_->AwaitQuiet(0, Clock::now() + std::chrono::seconds(5)));
  auto state = nlohmann::json::parse(c.Get("/state")->body);
  EXPECT_EQ(state["sessions"][0]["state"], "in transaction");
  EXPECT_EQ(state["sessions"][0]["last_result"], "BEGIN");

  auto bad = c.Post("/next/zz", Post(), "", "text/plain");
  EXPECT_EQ(bad->status, 409);
  auto back = c.Post("/back", Post(), "", "text/plain");
  EXPECT_EQ(back->status, 200) << back->body;
  EXPECT_EQ(session_->view().walk, 2);
  // Level: a new walk at the next level (this item has one: the same level again).
  auto level = c.Post("/level", Post(), "", "text/plain");
  EXPECT_EQ(level->status, 200) << level->body;
  EXPECT_EQ(session_->view().walk, 3);
  EXPECT_EQ(session_->view().isolation, "read committed");
  EXPECT_FALSE(quit_);
  EXPECT_EQ(c.Post("/quit", Post(), "", "text/plain")->status, 200);
  EXPECT_TRUE(quit_);
}

TEST_F(StepWebServerTest, RefusesAnotherHostAPostWithoutItsHeaderAndAMissingToken) {
  Start();
  httplib::Client c = Client();
  EXPECT_EQ(c.Get("/", {{"Host", "evil.example:" + std::to_string(server_->port())}})->status, 403);
  EXPECT_EQ(c.Post("/next", "", "text/plain")->status, 403);  // a form on another site
  EXPECT_EQ(session_->view().sessions[0].state, step::SessionState::kIdle);  // nothing ran
  server_->Stop();
  server_.reset();
  session_->Quit();
  session_.reset();

  Start("0123456789abcdef");
  EXPECT_THAT(server_->url(), HasSubstr("/?token=0123456789abcdef"));
  httplib::Client t = Client();
  EXPECT_EQ(t.Get("/")->status, 403);
  EXPECT_EQ(t.Get("/?token=0123456789abcdeX")->status, 403);
  EXPECT_EQ(t.Get("/?token=0123456789abcdef")->status, 200);
  EXPECT_EQ(t.Post("/next?token=0123456789abcdef", Post(), "", "text/plain")->status, 200);
}

TEST_F(StepWebServerTest, StopEndsAnOpenStreamAndClosesThePort) {
  Start();
  const int port = server_->port();
  std::string stream;  // the reader's until it joins
  std::promise<void> opened;
  std::thread reader([&] {
    bool first = true;
    Client().Get("/events", [&](const char* data, size_t n) {
      stream.append(data, n);
      if (first) opened.set_value();
      first = false;
      return true;  // read until the server ends the stream
    });
    if (first) opened.set_value();  // no stream at all: the expectations below say so
  });
  ASSERT_EQ(opened.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  // An idle stream (the walk is quiet since Start()): it sits in its wait for a change.
  const auto t0 = Clock::now();
  server_->Stop();
  const auto stop_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  reader.join();
  EXPECT_LT(stop_ms, 1500);
  std::cout << "Stop() with an open stream: " << stop_ms << " ms\n";
  EXPECT_THAT(stream, HasSubstr("event: view\n"));
  EXPECT_THAT(stream, HasSubstr("event: bye\n"));  // the page knows racelab stopped
  // An idle walk sends its view once, not again and again.
  size_t views = 0;
  for (size_t at = 0; (at = stream.find("event: view\n", at)) != std::string::npos; ++at) ++views;
  EXPECT_EQ(views, 1u) << stream.substr(0, 2000);
  httplib::Client after("127.0.0.1", port);
  after.set_connection_timeout(1);
  EXPECT_FALSE(after.Get("/"));  // the port is closed
}

TEST_F(StepWebServerTest, TwelveOpenPagesLeaveRoomForTheKeys) {
  // cpp-httplib's default pool (8 threads) would be taken by the streams; a class has more pages.
  // (Opening twelve at once takes about a second: cpp-httplib 0.11 listens with a backlog of 5,
  // so some connects are retried after the kernel's 1 s SYN timeout.)
  Start();
  const auto t_open = Clock::now();
  constexpr int kPages = 12;
  std::vector<std::promise<void>> opened(kPages);
  std::vector<std::thread> readers;
  for (int i = 0; i < kPages; ++i) {
    readers.emplace_back([this, &opened, i] {
      bool first = true;
      Client().Get("/events", [&](const char*, size_t) {
        if (first) opened[i].set_value();
        first = false;
        return true;
      });
      if (first) opened[i].set_value();
    });
  }
  for (auto& o : opened)  // each promise is kept, opened or not: the readers always end
    EXPECT_EQ(o.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  const auto t_post = Clock::now();
  auto next = Client().Post("/next", Post(), "", "text/plain");
  EXPECT_TRUE(next && next->status == 200);
  std::cout << "open "
            << std::chrono::duration_cast<std::chrono::milliseconds>(t_post - t_open).count()
            << " ms, POST "
            << std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t_post).count()
            << " ms\n";
  const auto t0 = Clock::now();
  server_->Stop();
  for (auto& r : readers) r.join();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  EXPECT_LT(ms, 1500);
  std::cout << "Stop() with " << kPages << " open streams: " << ms << " ms\n";
}

}  // namespace
}  // namespace racelab::web
