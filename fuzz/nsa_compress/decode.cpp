#include "nsa_compress/decode.h"

#include <array>
#include <limits>

#include "common/fuzz_support.h"

namespace gradconf::fuzz::nc {

using gradconf::nc::Problem;
using gradconf::nc::Role;

Problem decode_problem(FuzzedDataProvider& fdp, Direction direction) {
  Problem p;
  p.entry = direction;
  p.dtype = pick(fdp, std::array{ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE});
  p.profile = p.dtype == ACL_FLOAT || p.dtype == ACL_DOUBLE
                  ? SpecProfile::kExtended
                  : pick(fdp, std::array{SpecProfile::kExtended, SpecProfile::kSeed,
                                         SpecProfile::kCannLatest});
  p.heads = fdp.ConsumeIntegralInRange<int64_t>(1, 3);
  // cann-latest is seed with l == d allowed (errata E-NC-1).
  const bool seed = p.profile != SpecProfile::kExtended;
  const int64_t first_k = p.profile == SpecProfile::kCannLatest ? 0 : 1;
  p.dim = seed ? pick(fdp, std::array<int64_t, 2>{16, 32})
               : pick(fdp, std::array<int64_t, 4>{16, 1, 3, 5});
  if (seed) {
    p.stride = pick(fdp, std::array<int64_t, 2>{16, 32});
    p.block = p.stride + 16 * fdp.ConsumeIntegralInRange<int64_t>(first_k, 3);
  } else {
    p.block = fdp.ConsumeIntegralInRange<int64_t>(1, 9);
    p.stride = fdp.ConsumeIntegralInRange<int64_t>(1, 5);
  }
  p.lengths.resize(fdp.ConsumeIntegralInRange<size_t>(1, 4));
  for (int64_t& length : p.lengths) {
    length = fdp.ConsumeIntegralInRange<int64_t>(0, p.block + 2 * p.stride + 3);
  }
  // `seed` rejects T_cmp = 0 (NC-EMPTY-01): its problems hold a window at least.
  if (seed && p.compressed_rows() == 0) p.lengths.back() = p.block;
  p.null_seq_len = p.lengths.size() == 1 && fdp.ConsumeBool();
  p.null_layout = fdp.ConsumeBool();
  for (Role role : p.roles()) {
    const bool output =
        role == Role::kOutput || role == Role::kInputGrad || role == Role::kWeightGrad;
    p.layout(role) = decode_layout(fdp, static_cast<int>(p.dims(role).size()), !output);
  }
  p.seed = fdp.ConsumeIntegralInRange<uint64_t>(1, std::numeric_limits<int64_t>::max());
  return p;
}

}  // namespace gradconf::fuzz::nc
