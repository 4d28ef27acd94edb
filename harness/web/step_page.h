// The page `racelab step --web` serves (step_web_server.h): step_page.html, embedded at build time
// (CMakeLists.txt makes step_page.cc from step_page.cc.in). One self-contained HTML file: inline
// CSS, JS and SVG; it reads GET /events (view_json.h's objects) and POSTs /next, /next/LABEL,
// /back and /quit with the header X-Racelab: step, carrying the URL's ?token=… along.
//
// Thread-safety: a constant.
#pragma once

namespace racelab::web {

const char* StepPage();

}  // namespace racelab::web
