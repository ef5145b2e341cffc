// fuzz_grid_sampler2d_api / fuzz_grid_sampler2d_backward_api (kFuzzedEntry): the API
// target of fuzz/common/api_target.h for one GridSampler2D entry point.
#include <algorithm>

#include "common/api_target.h"
#include "families/grid_sampler2d/gen.h"
#include "families/grid_sampler2d/traits.h"
#include "grid_sampler2d/decode.h"

namespace {

using Traits = gradconf::props::GridSampler2DTraits;
using Problem = Traits::Problem;
using gradconf::Direction;

Problem decode(FuzzedDataProvider& fdp, Direction direction) {
  return gradconf::fuzz::gs::decode_problem(fdp, direction);
}

Problem non_empty(Problem p) {
  for (int64_t* dim : {&p.n, &p.c, &p.out_h, &p.out_w}) *dim = std::max<int64_t>(*dim, 1);
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gradconf::fuzz::ApiTarget<Traits> target{gradconf::fuzz::kFuzzedEntry, decode,
                                                        non_empty, Traits::tags,
                                                        gradconf::props::gs::clause_breakers};
  return gradconf::fuzz::run_api_target(data, size, target);
}
