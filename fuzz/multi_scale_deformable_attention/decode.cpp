#include "multi_scale_deformable_attention/decode.h"

#include <array>
#include <limits>

#include "common/fuzz_support.h"

namespace gradconf::fuzz::msda {

using gradconf::msda::LocationFill;
using gradconf::msda::Problem;
using gradconf::msda::Role;

Problem decode_problem(FuzzedDataProvider& fdp, Direction direction) {
  Problem p;
  p.entry = direction;
  p.dtype = pick(fdp, std::array{ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE});
  p.profile = p.dtype == ACL_DOUBLE
                  ? SpecProfile::kExtended
                  : pick(fdp, std::array{SpecProfile::kExtended, SpecProfile::kSeed,
                                         SpecProfile::kCannLatest});
  p.shape_dtype = fdp.ConsumeBool() ? ACL_INT32 : ACL_INT64;
  p.start_dtype = fdp.ConsumeBool() ? ACL_INT32 : ACL_INT64;
  p.batch = fdp.ConsumeIntegralInRange<int64_t>(0, 2);
  p.heads = fdp.ConsumeIntegralInRange<int64_t>(1, 3);
  // extended accepts any C up to 256: mmcv's and Deformable-DETR's shapes and lane tails too.
  p.channels = p.profile == SpecProfile::kExtended
                   ? pick(fdp, std::array<int64_t, 10>{8, 16, 24, 32, 0, 64, 1, 2, 30, 71})
                   : pick(fdp, std::array<int64_t, 6>{8, 16, 24, 32, 0, 64});
  p.queries = fdp.ConsumeIntegralInRange<int64_t>(0, 4);
  p.points = fdp.ConsumeIntegralInRange<int64_t>(1, 3);
  p.levels.resize(fdp.ConsumeIntegralInRange<size_t>(1, 4));
  for (auto& level : p.levels) {
    level = {fdp.ConsumeIntegralInRange<int64_t>(1, 9), fdp.ConsumeIntegralInRange<int64_t>(1, 9)};
  }
  p.extra_keys = fdp.ConsumeBool() ? fdp.ConsumeIntegralInRange<int64_t>(0, 5) : 0;
  for (Role role : p.roles()) {
    const bool output = role == Role::kOutput || role == Role::kGradValue ||
                        role == Role::kGradLocation || role == Role::kGradAttnWeight;
    const bool index = role == Role::kSpatialShape || role == Role::kLevelStartIndex;
    p.layout(role) = decode_layout(fdp, static_cast<int>(p.dims(role).size()), !output && !index);
  }
  p.location_fill =
      pick(fdp, std::array{LocationFill::kUniform, LocationFill::kSpecials, LocationFill::kSmooth});
  p.zero_weights = fdp.ConsumeBool();
  p.seed = fdp.ConsumeIntegralInRange<uint64_t>(1, std::numeric_limits<int64_t>::max());
  return p;
}

}  // namespace gradconf::fuzz::msda
