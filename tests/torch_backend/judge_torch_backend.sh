#!/bin/sh
# judge_torch_backend.sh GRADCONF TORCH_BACKEND_SO OUT
# 1. Every law the PyTorch backend holds (all but the host-process laws host_at_exit and
#    host_fork_under_load, whose failures are PyTorch deviations PT113-AUTOGRAD-ATEXIT and
#    PT113-FORK-HANG in reports/errata.json) holds on the NSA ops, on a fixed number of cases: the
#    suite raises no false alarm on a correct implementation that rounds, sums and orders its
#    work differently from ours.
#    On GS and MSDA, whose deviations show on special coordinates (PT113-*), the layout,
#    batch-split and determinism laws: PyTorch sums in another order per shape, which rerun_bound
#    must allow; and a cancelling bicubic gridGrad, which cancellation_floor must allow.
# 2. The differential law works both ways on the NSA ops: PyTorch judged against our kernels and
#    ours against PyTorch, matches_backend holds on every case.
# 3. Golden cases of the NSA ops exported, replayed on PyTorch (`replay --backend`) and compared:
#    all pass.
# 4. The planted deviation nc.window_reversed (backends/torch/nsa_compress.cpp) is caught by the
#    law predicted for it, NsaCompress.matches_reference, and by matches_backend against ours,
#    whose message names PyTorch as the side off the reference.
set -u
gradconf=$1 backend=$2 out=$3
if [ -z "$backend" ] || [ ! -f "$backend" ]; then
  echo "skipped: backends/torch not built (libtorch not found)"
  exit 77
fi
laws="matches_reference adjoint_identity stride_invariance dtype_agreement determinism batch_split
      between_phases workspace_contract linear_in_incoming_gradient error_contract empty_problem
      finite_differences repro_round_trip host_concurrent_calls"
# expect_check EXIT WHAT OUT ARGS...: gradconf check (a fixed case count: the same cases on any
# machine) exits EXIT, its report in $out/OUT.
expect_check() {
  local expected=$1 what=$2 dir=$out/$3
  shift 3
  "$gradconf" check "$@" --no-self-test --no-progress --out "$dir"
  local status=$?
  [ $status -eq "$expected" ] || { echo "FAIL: $what (exit $status); see $dir/summary.md"; exit 1; }
}
# shellcheck disable=SC2086
expect_check 0 "the PyTorch backend failed a law it holds" clean --backend "$backend" \
  --op nsa_compress nsa_selected_attention --law $laws --cases 80
expect_check 0 "a layout or batch-split law raised an alarm on PyTorch" layouts \
  --backend "$backend" --op grid_sampler2d multi_scale_deformable_attention \
  --law stride_invariance batch_split determinism --cases 60
# One case through `run --repro`, on the same library.
"$gradconf" run --backend "$backend" --repro "nc_grad --dt=bf16 --seqs=0.40.17 n2d16l32s16" \
  > "$out/run.txt" || { echo "FAIL: run --repro on the PyTorch backend"; cat "$out/run.txt"; exit 1; }
grep -q "^backend: .*PyTorch" "$out/run.txt" || { echo "FAIL: run does not name the backend"; exit 1; }
# A bicubic gridGrad that cancels (176 float products of ~600 to an exact ~1e-14): PyTorch's float
# sums are off by ~5 u sum|terms|, which cancellation_floor allows and the table alone did not.
"$gradconf" run --backend "$backend" --repro "grid_sampler2d_backward --interp=bicubic --pad=border --values=dyadic --ac=1 --seed=1845388352600020870 --profile=cann-latest n2c11_ih12iw9_oh15ow7" \
  > "$out/run_cancelling.txt" ||
  { cat "$out/run_cancelling.txt"; echo "FAIL: false alarm on PyTorch's cancelling gridGrad"; exit 1; }
# A bicubic gridGrad whose one tap weight is a cubic 1e-7 from its root: the float weight is off
# by ~1e-6 of its monomials, which the reference's term magnitudes now count.
"$gradconf" run --backend "$backend" --repro "grid_sampler2d_backward --interp=bicubic --grid=specials --values=dyadic --layout-input=o0231 --layout-inputGrad=o3210 --seed=3650124565400389042 --profile=cann-latest n1c7_ih11iw1_oh8ow17" \
  > "$out/run_root.txt" ||
  { cat "$out/run_root.txt"; echo "FAIL: false alarm on PyTorch's float cubic weight"; exit 1; }
grep -q "Backend judged: .*PyTorch" "$out/clean/summary.md" ||
  { echo "FAIL: the report does not name the PyTorch backend"; exit 1; }
for pair in "$backend linked" "linked $backend"; do
  set -- $pair
  expect_check 0 "matches_backend raised an alarm between PyTorch and ours" against \
    --backend "$1" --against "$2" --op nsa_compress nsa_selected_attention \
    --law matches_backend --cases 40
  grep -q "Compared case by case with: " "$out/against/summary.md" ||
    { echo "FAIL: the report does not name the backend compared with"; exit 1; }
done
rm -rf "$out/golden" && mkdir -p "$out/golden/outs"
"$gradconf" export --op nsa_compress nsa_selected_attention --count 3 --seed 5 \
  --out "$out/golden/cases" > /dev/null || { echo "FAIL: export"; exit 1; }
for c in "$out"/golden/cases/*; do
  "$gradconf" replay "$c" --backend "$backend" --out "$out/golden/outs/$(basename "$c")" ||
    { echo "FAIL: replay --backend of $c"; exit 1; }
done
"$gradconf" compare "$out/golden/cases" "$out/golden/outs" --out "$out/golden/report" \
  > "$out/golden/compare.txt" ||
  { cat "$out/golden/compare.txt"; echo "FAIL: PyTorch's replayed golden cases"; exit 1; }
export GRADCONF_TORCH_PLANTED=nc.window_reversed
expect_check 3 "NsaCompress.matches_backend missed the planted nc.window_reversed" \
  planted_against --backend "$backend" --against linked --op NsaCompress --law matches_backend \
  --cases 40
grep -q "judged FAILED.*against PASSED" "$out/planted_against/summary.md" ||
  { echo "FAIL: matches_backend does not say which side is off the reference"; exit 1; }
expect_check 3 "NsaCompress.matches_reference missed the planted nc.window_reversed" planted \
  --backend "$backend" --op NsaCompress --law matches_reference --cases 40
echo "ok: the laws (matches_backend both ways) hold on the PyTorch backend, its replayed goldens pass, and the planted deviation is caught"
