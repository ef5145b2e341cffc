#include "families/nsa_compress/traits.h"
#include "families/nsa_compress/gen.h"

#include <cmath>

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
  const std::vector<int64_t> prefix = nc::prefix_sums_of(call);
  const int64_t block = call.attr_int("compressBlockSize"),
                stride = call.attr_int("compressStride");
  // Token and compressed-row offsets of every batch boundary.
  std::vector<int64_t> token_at = {0}, row_at = {0};
  for (int64_t b = 0; b < static_cast<int64_t>(prefix.size()); ++b) {
    const int64_t length = prefix[static_cast<size_t>(b)] - token_at.back();
    token_at.push_back(prefix[static_cast<size_t>(b)]);
    row_at.push_back(row_at.back() + (length >= block ? (length - block) / stride + 1 : 0));
  }
  auto slice_rows = [](TensorSpec& t, int64_t lo, int64_t hi) {
    int64_t inner = 1;
    for (size_t d = 1; d < t.dims.size(); ++d) inner *= t.dims[d];
    t.dims[0] = hi - lo;
    if (t.values.empty()) return;
    t.values = std::vector<double>(t.values.begin() + lo * inner, t.values.begin() + hi * inner);
  };
  Call part = call;
  part.profile = SpecProfile::kExtended;
  const auto b0 = static_cast<size_t>(begin), b1 = static_cast<size_t>(end);
  for (TensorSpec& t : part.tensors) {
    if (t.name == "input" || t.name == "inputGrad") slice_rows(t, token_at[b0], token_at[b1]);
    if (t.name == "output" || t.name == "outputGrad") slice_rows(t, row_at[b0], row_at[b1]);
  }
  std::vector<int64_t> rebased;
  for (size_t b = b0; b < b1; ++b) rebased.push_back(prefix[b] - token_at[b0]);
  part.attr("actSeqLenOptional") = rebased;
  return part;
}

std::vector<std::string> NsaCompressTraits::tags(const Problem& p) { return nc::problem_tags(p); }

}  // namespace gradconf::props
