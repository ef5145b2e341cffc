// fuzz_nc_api / fuzz_nc_grad_api (kFuzzedEntry): the API target of
// fuzz/common/api_target.h for one NsaCompress entry point.
#include "common/api_target.h"
#include "families/nsa_compress/gen.h"
#include "families/nsa_compress/traits.h"
#include "nsa_compress/decode.h"

namespace {

using Traits = gradconf::props::NsaCompressTraits;
using Problem = Traits::Problem;

// A `seed`-valid base for boundary edits (the breakers' edits are seed boundaries): half
// dtype, l and d multiples of 16 with l > d, D a multiple of 16, one window at least.
Problem seed_base(Problem p) {
  p.profile = gradconf::SpecProfile::kSeed;
  if (p.dtype != ACL_FLOAT16 && p.dtype != ACL_BF16) p.dtype = ACL_FLOAT16;
  if (p.block % 16 != 0 || p.stride % 16 != 0 || p.block <= p.stride) {
    p.block = 32;
    p.stride = 16;
  }
  if (p.dim % 16 != 0) p.dim = 16;
  if (p.compressed_rows() == 0) p.lengths.back() = p.block;
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const gradconf::fuzz::ApiTarget<Traits> target{
      gradconf::fuzz::kFuzzedEntry, gradconf::fuzz::nc::decode_problem, seed_base, Traits::tags,
      gradconf::props::nc::clause_breakers};
  return gradconf::fuzz::run_api_target(data, size, target);
}
