// StepWebServer: `racelab step --web` (docs/step.md "In a browser") — one StepSession served as
// one self-contained page (step_page.h: inline CSS, JS and SVG, nothing fetched from elsewhere),
// its view pushed as Server-Sent Events (GET /events: an `event: view` with view_json.h's object
// on every change, a comment line every 10 s, an `event: bye` when the server stops) and its keys
// as POSTs (/next, /next/LABEL, /back, /level: the next isolation level, /quit). GET /state is the
// view once.
//
// Who may use it: a request whose Host header does not name the loopback address served (when it
// is one), or that lacks the token (when one is set: ?token=… or the X-Racelab-Token header), gets
// 403; a POST without the header `X-Racelab: step` (the page sends it; a form on another site
// cannot) gets 403 too. The CLI refuses a non-loopback address without a token.
//
// Capacity: 48 request threads; each open page holds one for its event stream (47 pages at once).
//
// Deadlines: a connection is read for at most 1 s and written for at most 1 s per write; one
// request per connection (no keep-alive to wait out); an event stream checks for the server's stop
// every 100 ms. Stop() therefore returns within about a second, with the port closed.
//
// Thread-safety: Start() and Stop() from one thread (the CLI's main thread). The handlers run on
// the HTTP library's threads; they call the StepSession's controller operations (Next, Reset)
// one at a time, under a lock of their own. `on_quit` is called once, on such a thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "harness/model/status.h"
#include "harness/step/step_session.h"
#include "harness/web/web_address.h"

namespace racelab::web {

struct WebOptions {
  WebAddress address;
  std::string token;                     // "" = none (loopback only: the CLI's rule)
  step::StepSession* session = nullptr;  // outlives the server
  std::function<void()> on_quit;         // the page's Quit (or q): quick, no StepSession call
};

class StepWebServer {
 public:
  explicit StepWebServer(WebOptions options);
  ~StepWebServer();  // Stop()
  StepWebServer(const StepWebServer&) = delete;
  StepWebServer& operator=(const StepWebServer&) = delete;

  // Binds the address and starts serving on a thread of its own. kUsage when the address cannot
  // be bound (the port in use, a host not this machine's); REQUIRES: not started.
  Status Start();
  int port() const;  // the port bound (after Start)
  // "http://127.0.0.1:PORT/" (+ "?token=…" when one is set). Bound to every address (0.0.0.0,
  // ::), the URL names this machine's host name (gethostname), which students' browsers can open
  // where 0.0.0.0 is no address to go to.
  std::string url() const;
  // Ends the event streams (each gets `event: bye`), closes the port and joins the threads.
  // Idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace racelab::web
