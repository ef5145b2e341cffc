#!/bin/bash
# gradconf check on the clock (issue: "--budget means time"): a budget is spent, not overrun;
# --replay of its report reruns the same cases with the same verdicts; a campaign killed mid-run
# (one process, and the parent of --jobs 2, whose shards must end with it) leaves a report that
# reads back; trend works over three reports.
# Usage: campaign_clock_test.sh GRADCONF WORK_DIR timed|killed
#   timed   1 and 2, which time a campaign: ctest runs them alone (RUN_SERIAL);
#   killed  3 and 4, which time nothing and run beside other tests.
set -uo pipefail
gradconf=$1 work=$2 part=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
has_round() { grep -qs '"cases": [1-9]' "$1"; }

timed() {
  # 1. The budget is spent, within 85%..135% (the last round is sized to fit what is left). The
  # budget is 12 s, or three times the self-test and pace round on a machine where those take longer.
  # The 48-fork law is left out (and the replay below must leave it out too, from the report):
  # the clock is the same for every law, and that law alone took most of the pace round.
  skip=(--skip-law host_fork_under_load)
  start=$(date +%s.%N)
  "$gradconf" check --budget 1 --op nsa_compress "${skip[@]}" --no-progress --out "$work/pace" > /dev/null ||
    fail "check --budget 1 exited $?"
  budget=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { t = 3 * (e - s); print (t > 12 ? int(t + 1) : 12) }')
  start=$(date +%s.%N)
  "$gradconf" check --budget "${budget}s" --op nsa_compress "${skip[@]}" --no-progress --out "$work/timed" > "$work/timed.txt"
  status=$?
  end=$(date +%s.%N)
  [ $status -eq 0 ] || { cat "$work/timed.txt"; fail "check --budget ${budget}s exited $status"; }
  awk -v s="$start" -v e="$end" -v b="$budget" 'BEGIN { t = e - s; exit !(t >= b * 0.85 && t <= b * 1.35) }' ||
    fail "check --budget ${budget}s took $(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }') s"
  grep -q ' in [2-9][0-9]* rounds\| in [1-9][0-9][0-9]* rounds' "$work/timed.txt" ||
    { cat "$work/timed.txt"; fail "a ${budget} s campaign ran fewer than 2 rounds"; }

  # 2. --replay reruns exactly: every cell row the same but its time.
  "$gradconf" check --replay "$work/timed/report.json" --no-progress --out "$work/replayed" \
    > "$work/replayed.txt" || fail "check --replay exited $?"
  rows() { grep -E '^\| [A-Za-z0-9]+ \| [A-Za-z0-9_.+]+ \| [a-z-]+ \| [a-z0-9]+ \| [A-Z]+ ' "$1" |
    sed -E 's/\| <?[0-9.]+ \|$/|/'; }
  [ "$(rows "$work/timed/summary.md" | wc -l)" -gt 50 ] || fail "too few cell rows to compare"
  diff <(rows "$work/timed/summary.md") <(rows "$work/replayed/summary.md") > "$work/replay.diff" ||
    { head -20 "$work/replay.diff"; fail "the replayed campaign differs"; }
  ! rows "$work/replayed/summary.md" | grep -q "host_fork_under_load" ||
    fail "the replay ran a law the campaign left out"
  grep -q 'Laws left out of this campaign: `host_fork_under_load`' "$work/replayed/summary.md" ||
    fail "the replayed report does not say which law was left out"

  echo "ok: budget spent, replay exact"
}

killed() {
  # 3. Killed mid-run, one process and two: the report of the rounds that finished reads back.
  for jobs in 1 2; do
    out="$work/killed$jobs"
    # No self-test: what is killed here is the rounds, and the first round comes ~20 s sooner.
    setsid "$gradconf" check --budget 20m --jobs $jobs --op nsa_compress nsa_selected_attention \
      --no-self-test --skip-law host_fork_under_load --no-progress --out "$out" > "$out.txt" 2>&1 &
    leader=$!
    # Killed a moment after its first report with a round in it: mid-run on any machine (a fixed
    # 25 s came before the self-test and the first round had finished on a slower one).
    for _ in $(seq 300); do
      has_round "$out/report.json" && break
      kill -0 "$leader" 2> /dev/null || break
      sleep 1
    done
    has_round "$out/report.json" ||
      { kill -9 -- -"$leader" 2> /dev/null; fail "--jobs $jobs: no report of a round within 300 s"; }
    sleep 2
    if [ $jobs -eq 1 ]; then
      kill -9 -- -"$leader" 2> /dev/null
    else
      # The parent alone, as a CI system's timeout may do: its shards must end with it.
      kill -9 "$leader" 2> /dev/null
    fi
    wait "$leader" 2> /dev/null
    sleep 2
    if pgrep -f -- "--out $out/shards" > /dev/null; then
      pkill -9 -f -- "--out $out/shards"
      fail "--jobs $jobs: shard processes outlived their killed parent"
    fi
    [ -f "$out/report.json" ] || fail "--jobs $jobs: the killed campaign left no report.json"
    "$gradconf" merge-reports "$out" --out "$out-read" > /dev/null
    status=$?
    [ $status -eq 0 ] || [ $status -eq 3 ] || fail "--jobs $jobs: the killed campaign's report does not read back ($status)"
    has_round "$out/report.json" || fail "--jobs $jobs: the killed report has no round"
  done

  # 4. trend over three reports.
  for seed in 1 2 3; do
    "$gradconf" check --cases 4 --seed $seed --op nsa_compress --no-self-test --no-progress \
      --out "$work/nights/night$seed" > /dev/null || fail "night $seed"
  done
  "$gradconf" trend "$work/nights" --out "$work/trend" > /dev/null || fail "trend exited $?"
  grep -q "trend over 3 reports" "$work/trend/trend.md" || fail "trend.md does not cover 3 reports"
  grep -q "<polyline" "$work/trend/trend.html" || fail "trend.html has no margin line"
  echo "ok: killed campaigns leave reports, trend over 3 nights"
}

case $part in
  timed | killed) "$part" ;;
  *) fail "unknown part '$part' (timed or killed)" ;;
esac
