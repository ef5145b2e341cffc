#!/usr/bin/env bash
# scripts/laws-sanitized.sh [CASES]: builds the law suite with AddressSanitizer and
# UndefinedBehaviorSanitizer (preset `laws-asan`, g++ RelWithDebInfo) and runs every registered law
# of every op on CASES cases each (default 30; the host-process laws keep their own smaller
# counts). A kernel that reads or writes a byte outside its tensors fails here even where the
# values it computes look right, which the unsanitized `property` label cannot see.
set -euo pipefail
cd "$(dirname "$0")/.."
cases=${1:-30}
cmake --preset laws-asan >/dev/null
cmake --build --preset laws-asan -j2 --target gradconf_property_tests
# Leaks are the fuzz smoke's to find (LeakSanitizer at exit); here a report would also stop the
# host-process laws' children, which exit through the host's atexit handlers on purpose.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
RC_PARAMS="max_success=$cases" build/laws-asan/tests/gradconf_property_tests \
  --gtest_filter='Laws/*' --gtest_brief=1
