#!/bin/bash
# gradconf export / replay / compare round trip (issue: "export, replay through our own backend,
# compare: all pass; perturb one value, or one status: exactly that case fails").
# Usage: golden_round_trip.sh GRADCONF WORK_DIR
set -euo pipefail
gradconf=$1
work=$2
rm -rf "$work"
mkdir -p "$work/outs"

"$gradconf" export --op grid_sampler2d multi_scale_deformable_attention nsa_compress \
  nsa_selected_attention --count 3 --edge --seed 11 --out "$work/cases"
# Repro lines (what a failing law prints) export with the status the clause tables give them: a
# call GS-SHAPE-05 refuses (an input plane of height 0) expects 161002, a valid one 0.
"$gradconf" export --repro "grid_sampler2d_backward n1c4_ih0iw5_oh3ow3" \
  "grid_sampler2d_backward n1c4_ih6iw5_oh3ow3" --out "$work/cases/repro"
mv "$work/cases/repro/repro_0" "$work/cases/repro_refused"
mv "$work/cases/repro/repro_1" "$work/cases/repro_valid"
rmdir "$work/cases/repro"
grep -q '"status": 161002' "$work/cases/repro_refused/case.json" ||
  { echo "a repro line validation refuses was exported as expecting success"; exit 1; }
grep -q '"status": 0' "$work/cases/repro_valid/case.json" ||
  { echo "a valid repro line was not exported as expecting success"; exit 1; }
replay_all() {
  for c in "$work"/cases/*; do
    "$gradconf" replay "$c" --out "$work/outs/$(basename "$c")"
  done
}
replay_all
cases=$(ls "$work/cases" | wc -l)
[ "$cases" -ge 24 ] || { echo "expected at least 24 exported cases, got $cases"; exit 1; }
grep -l '"status": 161002' "$work"/cases/*/case.json > /dev/null ||
  { echo "no invalid (boundary) case was exported"; exit 1; }

"$gradconf" compare "$work/cases" "$work/outs" --out "$work/report_clean" > "$work/clean.txt" ||
  { cat "$work/clean.txt"; echo "the unperturbed round trip must pass"; exit 1; }

# expect_only_failure NAME: compare fails (exit 3) and names exactly that case.
expect_only_failure() {
  local name=$1 rc=0
  "$gradconf" compare "$work/cases" "$work/outs" --out "$work/report_$2" > "$work/$2.txt" || rc=$?
  [ "$rc" -eq 3 ] || { cat "$work/$2.txt"; echo "compare exited $rc, expected 3"; exit 1; }
  local failed
  failed=$(grep '^FAILED ' "$work/$2.txt" | sed 's/^FAILED \([^:]*\):.*/\1/')
  [ "$failed" = "$name" ] ||
    { cat "$work/$2.txt"; echo "expected exactly $name to fail, got: $failed"; exit 1; }
  grep -q "$name" "$work/report_$2/report.json" || { echo "report.json does not name $name"; exit 1; }
}

# One value: the last element of the first float32 output with data, set to FLT_MAX.
target=""
for f in "$work"/outs/*/*.npy; do
  if head -c 128 "$f" | grep -q "'<f4'" && [ "$(stat -c %s "$f")" -gt 128 ]; then
    target=$f
    break
  fi
done
[ -n "$target" ] || { echo "no float32 output to perturb"; exit 1; }
size=$(stat -c %s "$target")
printf '\xff\xff\x7f\x7f' | dd of="$target" bs=1 seek=$((size - 4)) conv=notrunc status=none
expect_only_failure "$(basename "$(dirname "$target")")" value
"$gradconf" replay "$work/cases/$(basename "$(dirname "$target")")" \
  --out "$(dirname "$target")"

# One status: a successful case reported as 161002.
status_file=$(grep -l '"status": 0' "$work"/outs/*/status.json | tail -1)
sed -i 's/"status": 0/"status": 161002/' "$status_file"
expect_only_failure "$(basename "$(dirname "$status_file")")" status
echo "golden round trip: $cases cases pass; one perturbed value and one perturbed status each fail exactly their case"
