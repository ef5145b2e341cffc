#include "families/nsa_compress/traits.h"
#include "families/nsa_compress/gen.h"

#include <algorithm>
#include <cmath>

#include "laws/batch_split.h"
#include "nsa_compress/clauses.h"

namespace gradconf::props {

using gradconf::nc::Role;

namespace {

/// The tokens of a batch of `length` that some window reads: windows start every d tokens and
/// read l, so they overlap (l >= d) or leave gaps of d - l tokens (l < d).
int64_t covered_tokens(int64_t length, int64_t block, int64_t stride) {
  const int64_t windows = gradconf::nc::windows_of(length, block, stride);
  return windows == 0 ? 0 : (windows - 1) * std::min(block, stride) + block;
}

}  // namespace

/// Zero by construction, whatever the inputs hold: inputGrad of every token no window reads (a
/// batch shorter than l, the tail after a batch's last window, the gaps when d > l), and all of
/// weightGrad when there is no window (T_cmp = 0). Unmarked, draws of short batches were
/// MISTRUSTED for zeros that the spec, not the inputs, put there.
std::vector<ExpectedOutput> NsaCompressTraits::reference(const Problem& p, const Call& call) {
  std::vector<ExpectedOutput> expected = TraitsDefaults::reference(p, call);
  int64_t unread_tokens = 0;
  for (int64_t length : p.lengths)
    unread_tokens += length - covered_tokens(length, p.block, p.stride);
  for (ExpectedOutput& e : expected) {
    if (e.name == "inputGrad") {
      e.structural_zeros = unread_tokens * p.heads * p.dim;
    } else if (e.name == "weightGrad" && p.compressed_rows() == 0) {
      e.structural_zeros = static_cast<int64_t>(e.values.size());
    }
  }
  return expected;
}

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
