// The --out folder of one `racelab run` (docs/report-schema.md "When reports are written"): a run
// never replaces reports it did not write without saying so, and two runs never write into one
// folder at the same time.
//
// - Open() creates the folder when needed, proves it writable and holds it for the run (flock on
// the
//   folder itself, so nothing is left behind and a killed run's hold ends with it): a second run
//   into the same folder while one runs is refused (kUsage, exit 2) before it starts anything or
//   writes anything. It also notes which report files of an earlier run the folder holds
//   (racelab.json, racelab.md, racelab-summary.md, racelab.junit.xml, racelab.html,
//   racelab-compare.md, racelab-compare.junit.xml — only these names are ever moved or replaced;
//   other files are not touched).
// - MakeRoom(), before this run's first report file: an earlier run that ran trials (its
// racelab.json
//   has results; or there is no readable racelab.json, so it cannot be told) has its report files
//   moved into `previous/` inside the folder, replacing the report files there, and a line on
//   stderr says so with the earlier run's date and result count. An earlier run that ran no trial
//   (a mistyped scenario, a server that could not be reached: results empty) is replaced, and the
//   line says so — `previous/` then still holds the last run that ran trials. So no run that ran no
//   trial ever pushes a run with results out of reach, and every replacement is said.
// Thread-safety: main thread.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "harness/model/status.h"

namespace racelab::cli {

class ReportFolder {
 public:
  // kUsage: the folder cannot be created or written, or another racelab run holds it.
  static Result<std::unique_ptr<ReportFolder>> Open(const std::string& dir);
  ~ReportFolder();  // releases the hold
  ReportFolder(const ReportFolder&) = delete;
  ReportFolder& operator=(const ReportFolder&) = delete;

  // Makes room for this run's reports as described above, once (later calls return OK and do
  // nothing); what it did is written to `note` ("racelab: …" lines). kInternal: the earlier reports
  // could not be moved (the caller exits 3); none of this run's may then be written.
  Status MakeRoom(std::ostream& note);

  const std::string& dir() const { return dir_; }

  // The file names above (every reporter's file and `racelab compare`'s).
  static std::vector<std::string> ReportFileNames();

 private:
  ReportFolder(std::string dir, int fd) : dir_(std::move(dir)), fd_(fd) {}
  std::string dir_;
  int fd_;                            // the folder, flock'ed
  std::vector<std::string> earlier_;  // report files of an earlier run, found by Open
  bool made_room_ = false;
};

}  // namespace racelab::cli
