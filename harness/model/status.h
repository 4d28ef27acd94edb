// Status and Result<T>: expected failures as values.
//
// A Status carries a category (which maps to the CLI exit code, README "Exit codes") and a message
// meant for a person. Result<T> is either a value or a non-OK Status.
// Thread-safety: plain values; copy freely.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace racelab {

enum class StatusCode {
  kOk = 0,
  kUsage = 2,     // bad command line, scenario file error (exit 2)
  kDatabase = 3,  // connection/server error, deadline passed (exit 3)
  kInternal = 4,  // broken invariant or local system error (e.g. cannot create a directory)
};

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Usage(std::string msg) { return Status(StatusCode::kUsage, std::move(msg)); }
  static Status Database(std::string msg) { return Status(StatusCode::kDatabase, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {}  // NOLINT: REQUIRES: !status.ok()
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace racelab
