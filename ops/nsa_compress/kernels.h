// NOTE: the forward has one writer per compressed row (window, head), the task that owns the
// window: it sums the window's l token rows in order (walking its windows' tokens once, adding
// each token to the windows that cover it). The backward gathers per token instead of scattering
// per window: a token sums the windows that cover it in window order (several when l > d), so
// inputGrad has one writer per element. In the same pass the token adds <outputGrad row, its input
// row> to the weightGrad partial of its chunk (chunks fixed by the problem, workspace.h); the
// partials are then summed in chunk order. Bitwise identical results for any thread count. On CPUs
// with AVX512_BF16 the 16-bit rows are summed two heads at a time (head_pairs_avx512.h), the same
// bits. This file: the plan and what both kernels read; forward_kernel.h and backward_kernel.h.
#ifndef GRADCONF_OPS_NSA_COMPRESS_KERNELS_H_
#define GRADCONF_OPS_NSA_COMPRESS_KERNELS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/isa.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"
#include "nsa_compress/clauses.h"
#include "nsa_compress/faults.h"

namespace gradconf::nc {

/// A validated call as phase 1 hands it to phase 2: copies of the views and the batch table.
struct Plan {
  aclTensor input, weight;
  aclTensor output;                                // forward
  aclTensor output_grad, input_grad, weight_grad;  // backward
  std::vector<int64_t> act_seq_len;                // empty: null (one batch)
  std::vector<Batch> batches;
  Sizes sizes;
};

/// The batch table the kernels use (a planted fault may misread actSeqLen).
template <Fault kFault>
std::vector<Batch> effective_batches(const Plan& plan) {
  if (!planted<kFault>(Fault::kLengthsNotPrefix)) {
    return plan.batches;
  } else {
    // Mutant: the prefix sums taken as lengths, clamped to the tokens and rows that exist.
    const Sizes& s = plan.sizes;
    std::vector<Batch> batches;
    int64_t begin = 0, first = 0;
    for (int64_t length : plan.act_seq_len) {
      const int64_t end = std::min(s.tokens, begin + length);
      const int64_t windows =
          std::min(windows_of(end - begin, s.block, s.stride), s.compressed - first);
      batches.push_back({{begin, end}, windows, first});
      begin = end;
      first += windows;
    }
    return plan.act_seq_len.empty() ? plan.batches : batches;
  }
}

/// Offset of window i inside its batch of `length` tokens.
template <Fault kFault>
int64_t window_offset(int64_t i, const Sizes& s, int64_t length) {
  const int64_t offset = i * s.stride;
  if (planted<kFault>(Fault::kWindowStartOffByOne)) {
    if (offset + 1 + s.block <= length) return offset + 1;
  }
  return offset;
}

/// Windows of a batch the kernels compute.
template <Fault kFault>
int64_t windows_computed(const Batch& b) {
  if (planted<kFault>(Fault::kLastWindowDropped)) return std::max<int64_t>(0, b.windows - 1);
  return b.windows;
}

/// weight[j, n] (the mutant reads the (l, N) storage as if it were (N, l)).
template <Fault kFault, typename View>
double weight_at(const View& weight, const Sizes& s, int64_t j, int64_t n) {
  if (planted<kFault>(Fault::kWeightTransposed)) {
    const int64_t flat = n * s.block + j;
    return static_cast<double>(weight(flat / s.heads, flat % s.heads));
  }
  return static_cast<double>(weight(j, n));
}

/// weight[j, n] in the compute type, head by head: weights[n * l + j].
template <typename T, Fault kFault, typename Acc = compute_t<T>>
std::vector<Acc> weights_by_head(const Plan& plan) {
  const Sizes& s = plan.sizes;
  const auto weight = view_of<const T, 2>(plan.weight);
  std::vector<Acc> weights(static_cast<size_t>(s.heads * s.block));
  for (int64_t n = 0; n < s.heads; ++n) {
    for (int64_t j = 0; j < s.block; ++j) {
      weights[n * s.block + j] = static_cast<Acc>(weight_at<kFault>(weight, s, j, n));
    }
  }
  return weights;
}

/// Outputs this large are written with streaming stores: nobody reads them back soon, and their
/// lines would only evict the inputs from the caches.
inline constexpr int64_t kStreamingBytes = int64_t{8} << 20;

/// How many tokens ahead the kernels ask for a token's input rows.
inline constexpr int64_t kTokensAhead = 4;

/// Bytes of a token's input rows (every head) when they are one run (the packed layout), else 0.
/// Asked for a few tokens ahead, into L2: the hardware prefetcher alone left the first load of
/// each row waiting (a quarter of the bf16 backward kernel's samples, bench/README session 60).
template <typename T>
int64_t packed_token_bytes(const StridedView<const T, 3>& input) {
  const int64_t heads = input.dims[1], dim = input.dims[2];
  const auto row_elements = checked_mul(heads, dim);
  if (!row_elements || input.strides[2] != 1 || input.strides[1] != dim ||
      input.strides[0] != *row_elements)
    return 0;
  return checked_mul(*row_elements, int64_t{sizeof(T)}).value_or(0);
}

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_KERNELS_H_
