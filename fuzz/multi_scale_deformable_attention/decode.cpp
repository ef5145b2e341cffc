#include "multi_scale_deformable_attention/decode.h"

#include <array>
#include <limits>

#include "common/fuzz_support.h"
#include "families/multi_scale_deformable_attention/gen.h"
#include "families/multi_scale_deformable_attention/ranges.h"

namespace gradconf::fuzz::msda {

using gradconf::msda::LocationFill;
using gradconf::msda::Problem;
using gradconf::msda::Role;
namespace ranges = props::msda_ranges;

Problem decode_problem(FuzzedDataProvider& fdp, Direction direction) {
  Problem p = start_problem<Problem>(fdp, direction, ranges::kFloatDtypes);
  p.profile = pick_profile(fdp, p.dtype == ACL_DOUBLE);
  p.shape_dtype = fdp.ConsumeBool() ? ACL_INT32 : ACL_INT64;
  p.start_dtype = fdp.ConsumeBool() ? ACL_INT32 : ACL_INT64;
  p.batch = fdp.ConsumeIntegralInRange<int64_t>(0, ranges::kFuzzMaxBatch);
  p.heads = fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxHeads);
  // C: a `seed` C or 0 (empty); extended also mmcv's and Deformable-DETR's odd shapes.
  const auto& seed_channels = ranges::kSeedChannels;
  const size_t odd = p.profile == SpecProfile::kExtended ? ranges::kOddChannels.size() : 0;
  const auto c = fdp.ConsumeIntegralInRange<size_t>(0, seed_channels.size() + odd);
  p.channels = c < seed_channels.size()    ? seed_channels[c]
               : c == seed_channels.size() ? 0
                                           : ranges::kOddChannels[c - seed_channels.size() - 1];
  p.queries = fdp.ConsumeIntegralInRange<int64_t>(0, ranges::kFuzzMaxQueries);
  p.points = fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxPoints);
  p.levels.resize(fdp.ConsumeIntegralInRange<size_t>(1, ranges::kMaxLevels));
  for (auto& level : p.levels) {
    level = {fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxLevelSide),
             fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxLevelSide)};
  }
  p.extra_keys =
      fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<int64_t>(0, ranges::kFuzzMaxExtraKeys) : 0;
  decode_layouts(fdp, p, props::msda::layout_rule);
  p.location_fill =
      pick(fdp, std::array{LocationFill::kUniform, LocationFill::kSpecials, LocationFill::kSmooth});
  p.zero_weights = fdp.ConsumeBool();
  p.seed = fdp.ConsumeIntegralInRange<uint64_t>(1, std::numeric_limits<int64_t>::max());
  return p;
}

}  // namespace gradconf::fuzz::msda
