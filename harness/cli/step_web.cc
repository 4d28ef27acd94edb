// `racelab step --web` (step_web.h): the page's server and the terminal's wait for quit.
#include "harness/cli/step_web.h"

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <iostream>

#include "harness/model/terminal_text.h"
#include "harness/web/step_web_server.h"

namespace racelab::cli {
namespace {

constexpr int kPollSliceMs = 200;  // how often the wait looks at the stop flag

bool TokenChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

}  // namespace

Status CheckStepWebArgs(const std::string& address, const std::string& token) {
  auto parsed = web::ParseWebAddress(address);
  if (!parsed.ok()) return parsed.status();
  if (!token.empty()) {
    if (token.size() < 16 || token.size() > 128)
      return Status::Usage("--web-token: 16 to 128 characters (e.g. $(openssl rand -hex 16))");
    for (char c : token) {
      if (!TokenChar(c)) return Status::Usage("--web-token: only A-Z a-z 0-9 - _");
    }
  }
  if (!web::IsLoopbackHost(parsed.value().host) && token.empty()) {
    return Status::Usage(
        "--web " + address +
        ": that address is reachable from other machines, and the page runs SQL on your server: "
        "add --web-token TOKEN (the page's URL then carries ?token=TOKEN; e.g. --web-token "
        "$(openssl rand -hex 16)), or listen on 127.0.0.1");
  }
  return Status::Ok();
}

int RunStepWeb(const StepUi& ui, const std::string& address, const std::string& token,
               std::ostream& out) {
  std::atomic<bool> quit{false};
  web::WebOptions wo;
  wo.address = web::ParseWebAddress(address).value();
  wo.token = token;
  wo.session = ui.session;
  wo.on_quit = [&quit, &ui] {
    quit.store(true);
    ui.wakeup->Notify();
  };
  web::StepWebServer server(std::move(wo));
  if (Status s = server.Start(); !s.ok()) {
    std::cerr << "racelab: " << SanitizeForTerminal(s.message(), true) << "\n";
    return 2;
  }
  out << "racelab step: open " << server.url()
      << " (q + Enter here, the page's Quit or Ctrl-C ends the walk)" << std::endl;
  bool stdin_open = true;
  bool kept = false;
  std::string line;
  while (!quit.load() && !ui.stop->stop_requested()) {
    // --keep: once the walk has run every step, the students' connection string (as the pipe).
    if (ui.keep && ui.prepare_keep && !kept &&
        ui.session->view().phase == step::StepView::Phase::kFinished) {
      kept = true;
      out << SanitizeForTerminal(ui.prepare_keep(), true) << std::endl;
    }
    pollfd p[2] = {{ui.wakeup->fd(), POLLIN, 0}, {stdin_open ? STDIN_FILENO : -1, POLLIN, 0}};
    if (poll(p, 2, kPollSliceMs) <= 0) continue;
    if (p[0].revents & POLLIN) ui.wakeup->Drain();
    if (!(p[1].revents & (POLLIN | POLLHUP))) continue;
    char buf[256];
    const ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n <= 0) {
      stdin_open = false;  // the page alone drives the walk now
      continue;
    }
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] != '\n') {
        if (line.size() < 64) line += buf[i];
        continue;
      }
      if (line == "q" || line == "quit") quit.store(true);
      line.clear();
    }
  }
  server.Stop();
  out << "racelab step: the page's server stopped" << std::endl;
  return 0;
}

}  // namespace racelab::cli
