#!/usr/bin/env bash
# scripts/fuzz-campaign.sh TARGET SECONDS [--jobs N] [--no-merge]
# Runs one libFuzzer target (ASan + UBSan, the `fuzz` preset) from its corpus with its dictionary,
# merges inputs that add coverage into corpus/TARGET (names = sha1), minimizes every crash into
# corpus/regressions/TARGET, and prints executions, exec/s, coverage, corpus size and crashes.
# Work files go to out/fuzz/TARGET/. Exit status: 0 clean, 1 crashes found, 2 usage/build error.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: $0 TARGET SECONDS [--jobs N] [--no-merge]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
target=$1 seconds=$2; shift 2
jobs=1 merge=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --jobs) jobs=${2:?}; shift 2 ;;
    --no-merge) merge=0; shift ;;
    *) usage ;;
  esac
done
binary=build/fuzz/fuzz/$target
if [[ ! -x $binary || -n "$(find fuzz ops properties -newer "$binary" -name '*.[ch]*' -print -quit 2>/dev/null)" ]]; then
  [[ -f build/fuzz/CMakeCache.txt ]] || cmake --preset fuzz >/dev/null
  cmake --build build/fuzz --target "$target" >/dev/null || { echo "build of $target failed" >&2; exit 2; }
fi
[[ -x $binary ]] || { echo "no fuzz target $target" >&2; exit 2; }

work=out/fuzz/$target
rm -rf "$work"
mkdir -p "$work/new" "$work/artifacts" "corpus/$target" "corpus/regressions/$target"
log=$work/fuzz.log
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
flags=(-dict="corpus/$target.dict" -max_total_time="$seconds" -print_final_stats=1
       -artifact_prefix="$work/artifacts/" -timeout=25 -rss_limit_mb=4096)
max_len=$(sed -n 's/^max_len = //p' "corpus/$target.options")
[[ -n $max_len ]] && flags+=(-max_len="$max_len")
grep -q '^only_ascii = 1' "corpus/$target.options" && flags+=(-only_ascii=1)
if [[ $jobs -gt 1 ]]; then flags+=(-fork="$jobs" -ignore_crashes=1); fi
set +e
"$binary" "${flags[@]}" "$work/new" "corpus/$target" "corpus/regressions/$target" >"$log" 2>&1
fuzz_status=$?
set -e

crashes=0
for crash in "$work"/artifacts/*; do
  [[ -f $crash ]] || continue
  crashes=$((crashes + 1))
  minimized=$work/minimized
  "$binary" -minimize_crash=1 -runs=20000 -exact_artifact_path="$minimized" "$crash" >>"$work/minimize.log" 2>&1 || true
  [[ -s $minimized ]] || cp "$crash" "$minimized"
  name=$(sha1sum "$minimized" | cut -d' ' -f1)
  mv "$minimized" "corpus/regressions/$target/$name"
  echo "crash minimized into corpus/regressions/$target/$name"
done

if [[ $merge -eq 1 ]]; then
  before=$(find "corpus/$target" -type f | wc -l)
  "$binary" -merge=1 "corpus/$target" "$work/new" >"$work/merge.log" 2>&1 || true
  after=$(find "corpus/$target" -type f | wc -l)
  echo "merged $((after - before)) inputs into corpus/$target ($after files)"
fi

stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
last=$(grep -E '^#[0-9]+' "$log" | grep -E 'cov: ' | tail -1 || true)
echo "target:        $target (${seconds}s, $jobs job(s), exit $fuzz_status)"
echo "executions:    $(stat number_of_executed_units)"
echo "exec/s:        $(stat average_exec_per_sec)"
echo "coverage:      $(sed -nE 's/.*cov: ([0-9]+) ft: ([0-9]+).*/\1 edges, \2 features/p' <<<"$last")"
echo "corpus:        $(sed -nE 's/.*corp: ([0-9]+\/[0-9]+[a-zA-Z]*).*/\1/p' <<<"$last")"
echo "peak rss:      $(stat peak_rss_mb) MB"
echo "crashes:       $crashes"
[[ $crashes -eq 0 ]]
