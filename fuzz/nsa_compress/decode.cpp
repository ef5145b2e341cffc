#include "nsa_compress/decode.h"

#include <array>
#include <limits>

#include "common/fuzz_support.h"
#include "families/nsa_compress/gen.h"
#include "families/nsa_compress/ranges.h"

namespace gradconf::fuzz::nc {

using gradconf::nc::Problem;
using gradconf::nc::Role;
namespace ranges = props::nc_ranges;

Problem decode_problem(FuzzedDataProvider& fdp, Direction direction) {
  Problem p = start_problem<Problem>(fdp, direction, ranges::kFloatDtypes);
  p.profile = pick_profile(fdp, p.dtype == ACL_FLOAT || p.dtype == ACL_DOUBLE);
  p.heads = fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxHeads);
  // cann-latest is seed with l == d allowed (errata E-NC-1). Short windows (k <= 3) keep the
  // math targets fast.
  const bool seed = p.profile != SpecProfile::kExtended;
  const int64_t first_k = p.profile == SpecProfile::kCannLatest ? 0 : 1;
  p.dim = seed ? pick(fdp, ranges::kSeedDims)
               : pick(fdp, std::array<int64_t, 4>{16, 1, 3, ranges::kMaxExtendedDim});
  if (seed) {
    p.stride = pick(fdp, ranges::kSeedStrides);
    p.block = p.stride + ranges::kBlockStep * fdp.ConsumeIntegralInRange<int64_t>(first_k, 3);
  } else {
    p.block = fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxExtendedBlock);
    p.stride = fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxExtendedStride);
  }
  p.lengths.resize(fdp.ConsumeIntegralInRange<size_t>(1, ranges::kMaxBatches));
  for (int64_t& length : p.lengths) {
    const int64_t longest = p.block + ranges::kMaxExtraWindows * p.stride + p.stride - 1;
    length = fdp.ConsumeIntegralInRange<int64_t>(0, longest);
  }
  // `seed` rejects T_cmp = 0 (NC-EMPTY-01): its problems hold a window at least.
  if (seed && p.compressed_rows() == 0) p.lengths.back() = p.block;
  p.null_seq_len = p.lengths.size() == 1 && fdp.ConsumeBool();
  p.null_layout = fdp.ConsumeBool();
  decode_layouts(fdp, p, props::nc::layout_rule);
  p.seed = fdp.ConsumeIntegralInRange<uint64_t>(1, std::numeric_limits<int64_t>::max());
  return p;
}

}  // namespace gradconf::fuzz::nc
