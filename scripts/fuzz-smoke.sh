#!/usr/bin/env bash
# scripts/fuzz-smoke.sh [SECONDS_PER_TARGET]: builds the `fuzz` preset (clang-14, libFuzzer,
# ASan+UBSan) and runs every fuzz target (the one list CMake writes, build/fuzz/fuzz/targets.txt)
# from its corpus and regressions. Default time per target: a 52 s budget shared by all targets,
# at least 4 s each, so CI time stays flat as ops are added (the slowest target, NSA's backward
# API at 1,170-1,670 exec/s in four smoke runs under ASan+UBSan on a 2-vCPU Zen 5, replays its
# ~1,100 corpus inputs in about 1.3 s of that); campaigns run for hours with
# scripts/fuzz-campaign.sh. New inputs go to a scratch directory, so the checked-in corpus is not
# modified. Any crash fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset fuzz >/dev/null
mapfile -t targets < build/fuzz/fuzz/targets.txt
budget_seconds=52
floor_seconds=4
share=$(( budget_seconds / ${#targets[@]} ))
seconds=${1:-$(( share > floor_seconds ? share : floor_seconds ))}
cmake --build --preset fuzz -j2 --target "${targets[@]}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
status=0
for target in "${targets[@]}"; do
  mkdir -p "$scratch/$target" "corpus/regressions/$target"
  if build/fuzz/fuzz/$target -dict="corpus/$target.dict" -max_total_time="$seconds" -timeout=25 \
       -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$scratch/$target/" \
       "$scratch/$target" "corpus/$target" "corpus/regressions/$target" >"$scratch/$target.log" 2>&1; then
    echo "$target: clean, $(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$target.log") runs," \
         "$(sed -n 's/^stat::average_exec_per_sec: *//p' "$scratch/$target.log") exec/s"
  else
    echo "$target: FAILED"; tail -60 "$scratch/$target.log"; status=1
  fi
done
exit $status
