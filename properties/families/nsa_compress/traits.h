// NsaCompress's traits for the laws (properties/registry/registry.h, OpTraits).
#ifndef GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_TRAITS_H_
#define GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_TRAITS_H_

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "families/nsa_compress/entries.h"
#include "harness/backend.h"
#include "laws/law.h"
#include "registry/traits_defaults.h"

namespace gradconf::props {

struct NsaCompressTraits : TraitsDefaults<NsaCompressTraits, gradconf::nc::Problem> {
  static constexpr std::string_view kIncomingGradient = "outputGrad";
  /// Coverage tags of a problem (the generators' and fuzzers' vocabulary), for reports.
  static std::vector<std::string> tags(const Problem& p);

  static Call make_call(const Problem& p) { return nc::make_call(p); }
  static auto reference_values(const Problem& p, const Call& call) {
    return nc::reference_outputs(p, call);
  }
  static auto reference_magnitudes(const Problem& p, const Call& call) {
    return nc::reference_term_magnitudes(p, call);
  }
  static std::vector<ExpectedOutput> reference(const Problem& p, const Call& call);
  /// FLOAT and DOUBLE are `extended` dtypes.
  static constexpr std::array kExtendedOnlyDtypes = {ACL_FLOAT, ACL_DOUBLE};
  /// input and weight: the op is bilinear, both adjoint identities hold exactly.
  static std::vector<Differentiable> differentiable(const Problem& p);
  /// sum_j |g_j| * forward(|input|, |weight|)_j: the sum of |terms| of <forward, g>.
  static double adjoint_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                  const Differentiable& d);
  /// weightGrad sums T_cmp * D products; the forward l, inputGrad ceil(l / d).
  static int64_t accumulation_length(const Problem& p) {
    return std::max<int64_t>({4, p.block, p.compressed_rows() * p.dim});
  }
  /// The sequence batches of actSeqLen (one when it is null).
  static int64_t batch_size(const Problem& p) {
    return p.null_seq_len ? 1 : static_cast<int64_t>(p.lengths.size());
  }
  /// Batches [begin, end) of actSeqLen: their tokens, their compressed rows, rebased prefix sums.
  /// Parts run under `extended`, which accepts a part without windows (NC-EMPTY-01 is a seed
  /// restriction on shapes, not on the math): the kernels are the same.
  static Call slice_batch(const Call& call, int64_t begin, int64_t end);
  /// weightGrad sums over every batch.
  static bool summed_over_batch(const Call& call, int tensor) {
    return call.tensors[static_cast<size_t>(tensor)].name == "weightGrad";
  }
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_TRAITS_H_
