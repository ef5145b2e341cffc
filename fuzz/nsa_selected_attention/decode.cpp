#include "nsa_selected_attention/decode.h"

#include <array>
#include <limits>

#include "common/fuzz_support.h"
#include "families/nsa_selected_attention/gen.h"
#include "families/nsa_selected_attention/ranges.h"

namespace gradconf::fuzz::nsa {

using gradconf::nsa::Problem;
using gradconf::nsa::Role;
using gradconf::nsa::TopkFill;
namespace ranges = props::nsa_ranges;

// `seed` problems keep head dims 128/192 (twenty times the data of an `extended` one), so the
// targets draw them one time in 32 of the half-precision problems: one byte, whose value modulo
// 32 is 0. (It was a pick of four, then byte % 16 == 0: a corpus input that was `seed` now
// decodes to a small `extended` problem, never the reverse. At 1 in 16 these problems and the
// groups of 32 below took 59% of fuzz_nsa_grad_api's time in 5% of its inputs.)
Problem decode_problem(FuzzedDataProvider& fdp, Direction direction) {
  Problem p = start_problem<Problem>(fdp, direction, ranges::kFloatDtypes);
  const bool seed =
      p.dtype != ACL_FLOAT && p.dtype != ACL_DOUBLE && fdp.ConsumeIntegralInRange<int>(0, 31) == 0;
  p.profile = seed ? SpecProfile::kSeed : SpecProfile::kExtended;
  p.kv_heads = fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxKvHeads);
  // Groups of 32 (the limit) multiply every tensor of the problem by ten: drawn one time in
  // 32, so they do not set the target's pace. One byte, as a pick of four would read, and its
  // value modulo 4 keeps the groups 1, 2, 3 that pick gave (the corpus keeps its meaning).
  int64_t group = 1;
  if (seed) {
    group = pick(fdp, std::array<int64_t, 2>{1, 2});
  } else {
    const int code = fdp.ConsumeIntegralInRange<int>(0, 31);
    group = code % 4 < 3 ? code % 4 + 1 : (code == 3 ? ranges::kMaxGroup : 1 + code / 4 % 3);
  }
  p.q_heads = p.kv_heads * group;
  p.dim_qk = seed ? pick(fdp, ranges::kSeedHeadDims)
                  : fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxExtendedHeadDim);
  p.dim_v = seed ? pick(fdp, ranges::kSeedHeadDims)
                 : fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxExtendedHeadDim);
  p.block = seed ? ranges::kSeedBlocks[0]
                 : fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxExtendedBlock);
  p.count = fdp.ConsumeIntegralInRange<int64_t>(1, ranges::kMaxCount);
  p.seqs.resize(fdp.ConsumeIntegralInRange<size_t>(1, ranges::kMaxBatches));
  for (auto& [q, kv] : p.seqs) {
    kv = p.block * (p.count + fdp.ConsumeIntegralInRange<int64_t>(0, ranges::kMaxExtraKvBlocks));
    const int64_t most = seed ? ranges::kFuzzMaxSeedQueries : ranges::kFuzzMaxQueries;
    q = fdp.ConsumeIntegralInRange<int64_t>(1, std::min<int64_t>(kv, most));
  }
  p.sparse_mode = fdp.ConsumeBool() ? 2 : 0;
  p.topk_fill = fdp.ConsumeBool() ? TopkFill::kCausal : TopkFill::kArbitrary;
  p.with_mask = fdp.ConsumeBool();
  p.null_attention_out = direction == Direction::kBackward && fdp.ConsumeBool();
  p.scale = fdp.ConsumeBool() ? 0.0 : fdp.ConsumeIntegralInRange<int>(1, 64) / 64.0;
  decode_layouts(fdp, p, props::nsa::layout_rule);
  p.seed = fdp.ConsumeIntegralInRange<uint64_t>(1, std::numeric_limits<int64_t>::max());
  return p;
}

}  // namespace gradconf::fuzz::nsa
