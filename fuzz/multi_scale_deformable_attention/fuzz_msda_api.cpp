// fuzz_msda_api / fuzz_msda_grad_api (GRADCONF_FUZZ_BACKWARD): the API target of
// fuzz/common/api_target.h for one MultiScaleDeformableAttention entry point.
#include <algorithm>

#include "common/api_target.h"
#include "families/multi_scale_deformable_attention/gen.h"
#include "families/multi_scale_deformable_attention/traits.h"
#include "multi_scale_deformable_attention/decode.h"

namespace {

using Traits = gradconf::props::MsdaTraits;
using Problem = Traits::Problem;
using gradconf::Direction;

Problem non_empty(Problem p) {
  p.batch = std::max<int64_t>(p.batch, 1);
  p.queries = std::max<int64_t>(p.queries, 1);
  p.channels = std::max<int64_t>(p.channels, 8);
  return p;
}

std::vector<std::string> tags(const Problem& p) { return gradconf::props::msda::problem_tags(p); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
#ifdef GRADCONF_FUZZ_BACKWARD
  constexpr Direction kDirection = Direction::kBackward;
#else
  constexpr Direction kDirection = Direction::kForward;
#endif
  static const gradconf::fuzz::ApiTarget<Traits> target{
      kDirection, gradconf::fuzz::msda::decode_problem, non_empty, tags,
      gradconf::props::msda::clause_breakers};
  return gradconf::fuzz::run_api_target(data, size, target);
}
