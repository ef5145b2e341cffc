// fuzz_nsa_api / fuzz_nsa_grad_api (kFuzzedEntry): the API target of
// fuzz/common/api_target.h for one NsaSelectedAttention entry point.
#include "common/api_target.h"
#include "families/nsa_selected_attention/entries.h"
#include "families/nsa_selected_attention/gen.h"
#include "families/nsa_selected_attention/traits.h"
#include "nsa_selected_attention/decode.h"

namespace {

using Traits = gradconf::props::NsaSelectedAttentionTraits;
using Problem = Traits::Problem;

// A `seed`-valid base for boundary edits: head dims 128, blocks of 16, groups of at most 2, no
// more than 2 queries and K + 1 blocks per sequence. (Groups of 32, 4 queries and K + 2 blocks
// made boundary checks calls of 100,000 elements and more, a third of fuzz_nsa_grad_api's time,
// in the harness's per-element loops. NSA-HEAD-01's breaker sets G = 32 itself.)
Problem seed_base(Problem p) {
  p.profile = gradconf::SpecProfile::kSeed;
  p.q_heads = p.kv_heads * std::min<int64_t>(p.q_heads / p.kv_heads, 2);
  if (p.seqs.size() > 2) p.seqs.resize(2);
  if (p.dtype != ACL_FLOAT16 && p.dtype != ACL_BF16) p.dtype = ACL_FLOAT16;
  p.dim_qk = p.dim_qk == 192 ? 192 : 128;
  p.dim_v = p.dim_v == 192 ? 192 : 128;
  for (auto& [q, kv] : p.seqs) {
    kv = std::min(kv / p.block, p.count + 1) * 16;
    q = std::min<int64_t>(q, 2);
  }
  p.block = 16;
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gradconf::fuzz::ApiTarget<Traits> target{gradconf::fuzz::kFuzzedEntry,
                                                        gradconf::fuzz::nsa::decode_problem,
                                                        seed_base,
                                                        Traits::tags,
                                                        gradconf::props::nsa::clause_breakers,
                                                        gradconf::props::nsa::make_validation_call};
  return gradconf::fuzz::run_api_target(data, size, target);
}
