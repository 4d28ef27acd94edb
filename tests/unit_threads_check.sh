#!/usr/bin/env bash
# unit_threads_marked (tests/CMakeLists.txt): runs every unit test binary listed in $1 ("PATH threads"
# or "PATH none", one a line) under strace and fails when a binary marked THREADS starts no thread, or
# one not marked starts one — scripts/tsan runs only the marked ones under ThreadSanitizer, which
# reports races between threads only. A thread is a clone(2)/clone3(2) with CLONE_THREAD.
set -euo pipefail
list="$1"
command -v strace >/dev/null || { echo "unit_threads_marked: strace is missing (scripts/bootstrap)" >&2; exit 1; }
work="$(mktemp -d "${TMPDIR:-/tmp}/racelab-threads-check-XXXXXX")"
trap 'rm -rf "$work"' EXIT
status=0
checked=0
while read -r binary mark; do
  [ -n "$binary" ] || continue
  mkdir -p "$work/tmp"
  # The binary's own exit code is the unit tests' business (ctest runs them); only its threads count.
  TMPDIR="$work/tmp" timeout 300 strace -f -qq -e trace=clone,clone3 -o "$work/trace" "$binary" \
    >/dev/null 2>&1 || true
  threads="$(grep -c CLONE_THREAD "$work/trace" || true)"
  rm -rf "$work/tmp" "$work/trace"
  checked=$((checked + 1))
  if [ "$mark" = threads ] && [ "$threads" -eq 0 ]; then
    echo "$(basename "$binary") is marked THREADS but started no thread: drop the mark" >&2
    status=1
  elif [ "$mark" = none ] && [ "$threads" -gt 0 ]; then
    echo "$(basename "$binary") started $threads thread(s) but is not marked THREADS" \
      "(tests/unit/CMakeLists.txt): ThreadSanitizer (scripts/tsan) would not run it" >&2
    status=1
  fi
done <"$list"
[ "$checked" -gt 0 ] || { echo "unit_threads_marked: no binary listed in $list" >&2; exit 1; }
[ "$status" -ne 0 ] || echo "unit_threads_marked: $checked unit test binaries, each marked THREADS exactly when it starts threads"
exit "$status"
