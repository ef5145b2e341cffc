#!/usr/bin/env bash
# scripts/laws-sanitized.sh [CASES]: runs every registered law of every op on CASES cases each
# (default 100; the host-process laws keep their own smaller counts) with AddressSanitizer and
# UndefinedBehaviorSanitizer. The law suite is built in the `fuzz` preset's tree (clang-14,
# ASan+UBSan), whose backend, harness and generators the fuzz targets share, so only the test
# objects are extra (the preset leaves out the planted-fault library, which no law loads). A
# kernel that reads or writes a byte outside its tensors fails here even where the values it
# computes look right, which the unsanitized `property` label cannot see. The sanitizers
# instrument the library and the fuzz harnesses; the kit and the references (the oracle) are
# compiled without them (the top CMakeLists.txt), their allocations still ASan's.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-100}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j2 --target gradconf_law_tests
# Leaks are the fuzz smoke's to find (LeakSanitizer at exit); here a report would also stop the
# host-process laws' children, which exit through the host's atexit handlers on purpose. A 32 MB
# quarantine (default 256) still holds every buffer a law's call frees, and keeps the process small
# enough that the host laws' fork() stays cheap: it cut the suite's system time by a third.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:quarantine_size_mb=32}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The laws run one at a time and a small problem keeps about one core busy, so the suite runs as
# one gtest shard per core, side by side (on 2 cores: 55 s instead of 100 s).
shards=$(nproc)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for ((shard = 0; shard < shards; ++shard)); do
  # host_fork_under_load is left out: clang-14's ASan runtime does not hold its allocator's locks
  # across fork(), so a child forked while another thread is inside malloc can hang in malloc: the
  # law would blame the library for the sanitizer's lock (the unsanitized suite runs it).
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard RC_PARAMS="max_success=$cases" \
    build/fuzz/tests/gradconf_law_tests \
    --gtest_filter='Laws/*:-*host_fork_under_load*' --gtest_brief=1 >"$logs/$shard.log" 2>&1 &
  pids+=($!)
done
status=0
for ((shard = 0; shard < shards; ++shard)); do
  if ! wait "${pids[$shard]}"; then status=1; fi
  echo "--- laws, shard $shard of $shards"
  cat "$logs/$shard.log"
done
exit $status
