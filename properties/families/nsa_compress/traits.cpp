#include "families/nsa_compress/traits.h"
#include "families/nsa_compress/gen.h"

#include <cmath>

#include "laws/batch_split.h"

namespace gradconf::props {

using gradconf::nc::Role;

std::vector<Differentiable> NsaCompressTraits::differentiable(const Problem&) {
  return {{"input", "output", "outputGrad", "inputGrad", true},
          {"weight", "output", "outputGrad", "weightGrad", true}};
}

double NsaCompressTraits::adjoint_magnitude(const Problem& p, const Call& forward,
                                            const Call& backward, const Differentiable& d) {
  return forward_magnitude(p, forward, backward, d, {"input", "weight"}, "output");
}

Call NsaCompressTraits::slice_batch(const Call& call, int64_t begin, int64_t end) {
  // output and outputGrad hold each batch's windows, input and inputGrad its tokens.
  Call part = slice_sequences(
      call, begin, end, [](const Call& c, const TensorSpec& t, const std::vector<int64_t>& tokens) {
        if (t.name != "output" && t.name != "outputGrad") return tokens;
        return nc::window_prefix(tokens, c.attr_int("compressBlockSize"),
                                 c.attr_int("compressStride"));
      });
  part.profile = SpecProfile::kExtended;
  return part;
}

std::vector<std::string> NsaCompressTraits::tags(const Problem& p) { return nc::problem_tags(p); }

}  // namespace gradconf::props
