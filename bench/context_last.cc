#include "bench/context_last.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

// Google Benchmark 1.7.1 exports its flags (BM_DEFINE_string is BENCHMARK_EXPORT) but its header
// declares none; these are the values benchmark::Initialize parsed, environment included.
namespace benchmark {
extern std::string FLAGS_benchmark_out;
extern std::string FLAGS_benchmark_out_format;
}  // namespace benchmark

namespace racelab::bench {
namespace {

using benchmark::BenchmarkReporter;

// What the reporters share: the families seen, and the late entries, made once.
class Late {
 public:
  explicit Late(const LateContext& make) : make_(make) {}
  void Saw(const std::vector<BenchmarkReporter::Run>& runs) {
    for (const auto& run : runs) {
      const std::string& f = run.run_name.function_name;
      if (std::find(families_.begin(), families_.end(), f) == families_.end())
        families_.push_back(f);
    }
  }
  const std::map<std::string, std::string>& Entries() {
    if (!made_) {
      made_ = true;
      entries_ = make_(families_);
      for (const auto& [key, value] : entries_) benchmark::AddCustomContext(key, value);
    }
    return entries_;
  }

 private:
  LateContext make_;
  std::vector<std::string> families_;
  bool made_ = false;
  std::map<std::string, std::string> entries_;
};

// Streams to `inner` as it goes (console), or holds everything until Finalize (json, csv).
class ContextLastReporter : public BenchmarkReporter {
 public:
  ContextLastReporter(std::unique_ptr<BenchmarkReporter> inner, bool hold, Late* late)
      : inner_(std::move(inner)), hold_(hold), late_(late) {}

  bool ReportContext(const Context& context) override {
    inner_->SetOutputStream(&GetOutputStream());
    inner_->SetErrorStream(&GetErrorStream());
    if (hold_) {
      context_.emplace(context);  // Context holds references: copied, never assigned
      return true;
    }
    return inner_->ReportContext(context);
  }
  void ReportRuns(const std::vector<Run>& runs) override {
    late_->Saw(runs);
    if (hold_) {
      held_.push_back(runs);
    } else {
      inner_->ReportRuns(runs);
    }
  }
  void Finalize() override {
    const auto& entries = late_->Entries();
    if (hold_) {
      // Context::global_context points at the map AddCustomContext filled: it has them now.
      if (context_) inner_->ReportContext(*context_);
      for (const auto& runs : held_) inner_->ReportRuns(runs);
    } else {
      for (const auto& [key, value] : entries) GetErrorStream() << key << ": " << value << "\n";
    }
    inner_->Finalize();
  }

 private:
  std::unique_ptr<BenchmarkReporter> inner_;
  bool hold_;
  Late* late_;
  std::optional<Context> context_;
  std::vector<std::vector<Run>> held_;
};

std::unique_ptr<BenchmarkReporter> FileReporter(const std::string& format) {
  // Deprecated in 1.7 and still one of the three formats Initialize accepts.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  if (format == "csv") return std::make_unique<benchmark::CSVReporter>();
#pragma GCC diagnostic pop
  if (format == "console")
    return std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_None);
  return std::make_unique<benchmark::JSONReporter>();  // Initialize accepts json, console, csv
}

}  // namespace

size_t RunBenchmarksContextLast(const LateContext& late) {
  Late shared(late);
  std::unique_ptr<BenchmarkReporter> display(benchmark::CreateDefaultDisplayReporter());
  const bool display_holds = dynamic_cast<benchmark::ConsoleReporter*>(display.get()) == nullptr;
  ContextLastReporter shown(std::move(display), display_holds, &shared);
  if (benchmark::FLAGS_benchmark_out.empty()) return benchmark::RunSpecifiedBenchmarks(&shown);
  const std::string& format = benchmark::FLAGS_benchmark_out_format;
  ContextLastReporter file(FileReporter(format), format != "console", &shared);
  return benchmark::RunSpecifiedBenchmarks(&shown, &file);
}

}  // namespace racelab::bench
