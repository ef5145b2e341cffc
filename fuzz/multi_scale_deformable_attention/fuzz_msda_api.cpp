// fuzz_msda_api / fuzz_msda_grad_api (kFuzzedEntry): the API target of
// fuzz/common/api_target.h for one MultiScaleDeformableAttention entry point.
#include <algorithm>

#include "common/api_target.h"
#include "families/multi_scale_deformable_attention/gen.h"
#include "families/multi_scale_deformable_attention/traits.h"
#include "multi_scale_deformable_attention/decode.h"

namespace {

using Traits = gradconf::props::MsdaTraits;
using Problem = Traits::Problem;

Problem non_empty(Problem p) {
  p.batch = std::max<int64_t>(p.batch, 1);
  p.queries = std::max<int64_t>(p.queries, 1);
  p.channels = std::max<int64_t>(p.channels, 8);
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gradconf::fuzz::ApiTarget<Traits> target{
      gradconf::fuzz::kFuzzedEntry, gradconf::fuzz::msda::decode_problem, non_empty, Traits::tags,
      gradconf::props::msda::clause_breakers};
  return gradconf::fuzz::run_api_target(data, size, target);
}
