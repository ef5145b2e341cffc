// MultiScaleDeformableAttention cases the generators do not draw, judged by law 1:
// Deformable-DETR's locations (the benchmarks' distribution: reference point + offsets) on levels
// of the model's shape, forward and backward, in every seed dtype.
#include <gtest/gtest.h>

#include "families/multi_scale_deformable_attention/traits.h"
#include "laws/matches_reference.h"
#include "support/planted_backend.h"

namespace {

using gradconf::msda::LocationFill;
using gradconf::msda::Problem;
using gradconf::props::Backend;
using gradconf::props::MsdaTraits;

// Encoder queries (the first 80 are the pixels of the levels) and decoder queries past them.
Problem detr_problem(aclDataType dtype, gradconf::Direction entry) {
  Problem p;
  p.entry = entry;
  p.dtype = dtype;
  p.batch = 2, p.heads = 2, p.channels = 16, p.queries = 96, p.points = 4;
  p.levels = {{8, 8}, {4, 4}};
  p.location_fill = LocationFill::kDetr;
  p.seed = 7;
  return p;
}

TEST(MsdaPinned, detr_locations_match_the_reference) {
  for (aclDataType dtype : {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}) {
    for (auto entry : {gradconf::Direction::kForward, gradconf::Direction::kBackward}) {
      const Problem p = detr_problem(dtype, entry);
      const auto result = gradconf::props::matches_reference<MsdaTraits>(p, Backend::linked());
      EXPECT_TRUE(result.holds) << result.detail;
      EXPECT_FALSE(result.mistrusted) << result.mistrust_reason;
    }
  }
}

// The same case can fail: planted swapped tap weights are caught on it.
TEST(MsdaPinned, detr_case_catches_a_planted_fault) {
  const Backend& planted =
      gradconf::testing::planted_backend("multi_scale_deformable_attention", "swapped_tap_weights");
  const auto result = gradconf::props::matches_reference<MsdaTraits>(
      detr_problem(ACL_FLOAT, gradconf::Direction::kBackward), planted);
  EXPECT_FALSE(result.holds);
}

}  // namespace
