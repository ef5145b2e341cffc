// Every law of ARCHITECTURE.md "Properties", instantiated for GridSampler2D and
// GridSampler2DBackward on the shipped backend. A failure prints the law's detail (with the
// problem's repro line) and RapidCheck's reproduce string.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "gen/grid_sampler2d_gen.h"
#include "laws/grid_sampler2d_traits.h"
#include "laws/laws.h"
#include "property_support.h"

namespace gradconf::props {
namespace {

using Traits = GridSampler2DTraits;
using Problem = Traits::Problem;
using grid_sampler2d::Entry;
using gs::GenOptions;
using testing::rc_assert_law;

const Backend& backend() { return Traits::default_backend(); }

GenOptions entry(Entry e) {
  GenOptions options;
  options.entry = e;
  return options;
}

// A few axes per property keep RapidCheck's tag-set table readable; the coverage test below
// checks every axis.
constexpr uint32_t kShownAxes = gs::kAxisDtype | gs::kAxisInterpolation | gs::kAxisPadding;

Problem draw(const GenOptions& options) {
  const Problem p = *gs::gen_problem(options);
  gs::classify(p, kShownAxes);
  return p;
}

// Law 1.
RC_GTEST_PROP(GridSampler2DLaws, forward_matches_reference, ()) {
  rc_assert_law(matches_reference<Traits>(draw(entry(Entry::kForward)), backend()));
}
RC_GTEST_PROP(GridSampler2DLaws, backward_matches_reference, ()) {
  rc_assert_law(matches_reference<Traits>(draw(entry(Entry::kBackward)), backend()));
}

// Law 2: the forward is linear in input, so inputGrad is its exact adjoint.
RC_GTEST_PROP(GridSampler2DLaws, backward_is_the_adjoint_of_the_forward_in_input, ()) {
  rc_assert_law(adjoint_identity<Traits>(draw(entry(Entry::kBackward)), backend()));
}

// Law 3: gradients against central differences of the forward (double, extended profile).
RC_GTEST_PROP(GridSampler2DLaws, backward_matches_finite_differences, ()) {
  const Problem p = draw(entry(Entry::kBackward));
  const auto direction_seed = *rc::gen::arbitrary<uint64_t>();
  rc_assert_law(finite_differences<Traits>(p, backend(), direction_seed));
}

// Law 4.
RC_GTEST_PROP(GridSampler2DLaws, backward_is_linear_in_the_incoming_gradient, ()) {
  const Problem p = draw(entry(Entry::kBackward));
  const double a = *rc::gen::element(-2.0, -0.5, 0.25, 1.0, 3.0);
  const double b = *rc::gen::element(-1.0, 0.5, 2.0);
  rc_assert_law(linear_in_incoming_gradient<Traits>(p, backend(), a, b));
}

// Law 5.
RC_GTEST_PROP(GridSampler2DLaws, forward_is_stride_invariant, ()) {
  rc_assert_law(stride_invariance<Traits>(draw(entry(Entry::kForward)), backend()));
}
RC_GTEST_PROP(GridSampler2DLaws, backward_is_stride_invariant, ()) {
  rc_assert_law(stride_invariance<Traits>(draw(entry(Entry::kBackward)), backend()));
}

// Law 6.
RC_GTEST_PROP(GridSampler2DLaws, forward_dtypes_agree, ()) {
  rc_assert_law(dtype_agreement<Traits>(draw(entry(Entry::kForward)), backend()));
}
RC_GTEST_PROP(GridSampler2DLaws, backward_dtypes_agree, ()) {
  rc_assert_law(dtype_agreement<Traits>(draw(entry(Entry::kBackward)), backend()));
}

// Law 7.
RC_GTEST_PROP(GridSampler2DLaws, forward_is_deterministic, ()) {
  rc_assert_law(determinism<Traits>(draw(entry(Entry::kForward)), backend()));
}
RC_GTEST_PROP(GridSampler2DLaws, backward_is_deterministic, ()) {
  rc_assert_law(determinism<Traits>(draw(entry(Entry::kBackward)), backend()));
}

// Law 8.
RC_GTEST_PROP(GridSampler2DLaws, forward_splits_over_the_batch, ()) {
  const Problem p = draw(entry(Entry::kForward));
  const int64_t split = *rc::gen::inRange<int64_t>(0, p.n + 1);
  rc_assert_law(batch_split<Traits>(p, backend(), split));
}
RC_GTEST_PROP(GridSampler2DLaws, backward_splits_over_the_batch, ()) {
  const Problem p = draw(entry(Entry::kBackward));
  const int64_t split = *rc::gen::inRange<int64_t>(0, p.n + 1);
  rc_assert_law(batch_split<Traits>(p, backend(), split));
}

// Law 9.
RC_GTEST_PROP(GridSampler2DLaws, forward_keeps_the_workspace_contract, ()) {
  rc_assert_law(workspace_contract<Traits>(draw(entry(Entry::kForward)), backend()));
}
RC_GTEST_PROP(GridSampler2DLaws, backward_keeps_the_workspace_contract, ()) {
  rc_assert_law(workspace_contract<Traits>(draw(entry(Entry::kBackward)), backend()));
}

// Law 10: one clause broken at its boundary (or the same edit kept valid), both entries.
RC_GTEST_PROP(GridSampler2DLaws, errors_keep_the_error_contract, ()) {
  const gs::BoundaryCase bc = *gs::gen_boundary_case();
  gs::classify(bc);
  const ClauseExpectation expected{bc.clause_id, bc.expected_status, bc.just_valid};
  std::ostringstream repro;
  repro << bc;
  rc_assert_law(error_contract<Traits>(bc.call, expected, repro.str(), backend()));
}

// Null outputMask (GS-MASK-01 early-out) and empty tensors belong to the valid space too.
RC_GTEST_PROP(GridSampler2DLaws, backward_with_null_masks_matches_reference, ()) {
  GenOptions options = entry(Entry::kBackward);
  options.allow_null_mask = true;
  rc_assert_law(matches_reference<Traits>(draw(options), backend()));
}

RC_GTEST_PROP(GridSampler2DLaws, repro_lines_round_trip, ()) {
  GenOptions options;
  options.allow_null_mask = true;
  options.profile = *rc::gen::element(SpecProfile::kSeed, SpecProfile::kExtended);
  rc_assert_law(repro_round_trip(draw(options)));
}

}  // namespace
}  // namespace gradconf::props
