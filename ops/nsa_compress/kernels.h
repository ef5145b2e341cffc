// NOTE: the forward has one writer per compressed row (window, head): it sums the window's l
// token rows in order. The backward gathers per token instead of scattering per window: a token
// sums the windows that cover it in window order (several when l > d), so inputGrad has one
// writer per element. In the same pass the token adds <outputGrad row, its input row> to the
// weightGrad partial of its chunk (chunks fixed by the problem, workspace.h); the partials are
// then summed in chunk order. Bitwise identical results for any thread count.
#ifndef GRADCONF_OPS_NSA_COMPRESS_KERNELS_H_
#define GRADCONF_OPS_NSA_COMPRESS_KERNELS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"
#include "nsa_compress/clauses.h"
#include "nsa_compress/faults.h"
#include "nsa_compress/workspace.h"

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
  if constexpr (kFault != Fault::kLengthsNotPrefix) {
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
  if constexpr (kFault == Fault::kWindowStartOffByOne) {
    if (offset + 1 + s.block <= length) return offset + 1;
  }
  return offset;
}

/// Windows of a batch the kernels compute.
template <Fault kFault>
int64_t windows_computed(const Batch& b) {
  if constexpr (kFault == Fault::kLastWindowDropped) return std::max<int64_t>(0, b.windows - 1);
  return b.windows;
}

/// weight[j, n] (the mutant reads the (l, N) storage as if it were (N, l)).
template <Fault kFault, typename View>
double weight_at(const View& weight, const Sizes& s, int64_t j, int64_t n) {
  if constexpr (kFault == Fault::kWeightTransposed) {
    const int64_t flat = n * s.block + j;
    return static_cast<double>(weight(flat / s.heads, flat % s.heads));
  }
  return static_cast<double>(weight(j, n));
}

/// The row of (token, head) of a (T, N, D) view, converted to the compute type.
template <typename T, typename Acc>
void load_row(const StridedView<const T, 3>& v, int64_t token, int64_t head, Acc* out) {
  const T* row = &v(token, head, 0);
  const int64_t stride = v.strides[2], dim = v.dims[2];
  if (stride == 1) {
    for (int64_t d = 0; d < dim; ++d) out[d] = static_cast<Acc>(row[d]);
  } else {
    for (int64_t d = 0; d < dim; ++d) out[d] = static_cast<Acc>(row[d * stride]);
  }
}

/// The row of (token, head) in the compute type: the view's own memory when it already is
/// (contiguous, same type), else converted into `buffer`.
template <typename T, typename Acc>
const Acc* row_in_compute_type(const StridedView<const T, 3>& v, int64_t token, int64_t head,
                               Acc* buffer) {
  if constexpr (std::is_same_v<T, Acc>) {
    if (v.strides[2] == 1) return &v(token, head, 0);
  }
  load_row(v, token, head, buffer);
  return buffer;
}

/// kUnitStride: a planted fault that ignores the view's last stride (it stays inside the view's
/// span: d < D).
template <bool kUnitStride = false, typename T, typename Acc>
void store_row(const StridedView<T, 3>& v, int64_t token, int64_t head, const Acc* values) {
  T* row = &v(token, head, 0);
  const int64_t stride = kUnitStride ? 1 : v.strides[2], dim = v.dims[2];
  for (int64_t d = 0; d < dim; ++d) row[d * stride] = static_cast<T>(values[d]);
}

template <typename T, Fault kFault>
void forward_kernel(const Plan& plan) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  if (s.compressed == 0 || s.heads == 0 || s.dim == 0) return;
  const auto input = view_of<const T, 3>(plan.input);
  const auto weight = view_of<const T, 2>(plan.weight);
  const auto output = view_of<T, 3>(plan.output);
  const std::vector<Batch> batches = effective_batches<kFault>(plan);
  parallel_for(0, s.compressed, 4, [&](int64_t lo, int64_t hi) {
    std::vector<Acc> acc(static_cast<size_t>(s.dim)), row(static_cast<size_t>(s.dim));
    auto batch =
        std::upper_bound(batches.begin(), batches.end(), lo,
                         [](int64_t c, const Batch& b) { return c < b.first_window + b.windows; });
    for (int64_t c = lo; c < hi; ++c) {
      while (batch != batches.end() && c >= batch->first_window + batch->windows) ++batch;
      const bool computed =
          batch != batches.end() && c - batch->first_window < windows_computed<kFault>(*batch);
      for (int64_t n = 0; n < s.heads; ++n) {
        std::fill(acc.begin(), acc.end(), Acc(0));
        if (computed) {
          const int64_t first =
              batch->tokens.begin +
              window_offset<kFault>(c - batch->first_window, s, batch->tokens.length());
          for (int64_t j = 0; j < s.block; ++j) {
            const Acc w = static_cast<Acc>(weight_at<kFault>(weight, s, j, n));
            const Acc* x = row_in_compute_type(input, first + j, n, row.data());
            for (int64_t d = 0; d < s.dim; ++d) acc[d] += w * x[d];
          }
        }
        store_row(output, c, n, acc.data());
      }
    }
  });
}

template <typename T, Fault kFault>
void backward_kernel(const Plan& plan, std::byte* workspace) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  const auto input = view_of<const T, 3>(plan.input);
  const auto weight = view_of<const T, 2>(plan.weight);
  const auto output_grad = view_of<const T, 3>(plan.output_grad);
  const auto input_grad = view_of<T, 3>(plan.input_grad);
  const auto weight_grad = view_of<T, 2>(plan.weight_grad);
  const std::vector<Batch> batches = effective_batches<kFault>(plan);
  // Phase 1 sized this workspace (NC-LIMIT-02) for the same sizes.
  const bool convert = converts_output_grad<T>(plan.output_grad);
  const BackwardWorkspace plan_ws = *backward_workspace(s, sizeof(Acc), convert);
  auto* grad = reinterpret_cast<Acc*>(workspace);
  auto* partials = reinterpret_cast<double*>(workspace + plan_ws.grad_bytes);
  const int64_t row_size = s.heads * s.dim, block_heads = s.block * s.heads;

  // outputGrad in the compute type, contiguous: each of its rows is read by l tokens.
  if (convert && s.compressed > 0 && row_size > 0) {
    parallel_for(0, s.compressed * s.heads, 64, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        load_row(output_grad, r / s.heads, r % s.heads, grad + r * s.dim);
      }
    });
  }
  auto output_grad_row = [&](int64_t row, int64_t n) -> const Acc* {
    if (convert) return grad + (row * s.heads + n) * s.dim;
    return reinterpret_cast<const Acc*>(&output_grad(row, n, 0));
  };
  constexpr bool kUnitStride = kFault == Fault::kIgnoredInputGradStride;

  if (plan_ws.chunks == 0) {  // nothing to sum: every inputGrad row is zero
    const std::vector<Acc> zeros(static_cast<size_t>(s.dim), Acc(0));
    for (int64_t t = 0; t < s.tokens; ++t) {
      for (int64_t n = 0; n < s.heads; ++n) store_row(input_grad, t, n, zeros.data());
    }
  }
  const int64_t per_chunk = plan_ws.chunks > 0 ? chunk_tokens(s.tokens) : 0;
  if (plan_ws.chunks > 0) {
    parallel_for(0, plan_ws.chunks, 1, [&](int64_t lo, int64_t hi) {
      std::vector<Acc> x(static_cast<size_t>(s.dim)), g(static_cast<size_t>(s.dim));
      std::vector<Acc> abs_grad(kFault == Fault::kAbsOutputGrad ? static_cast<size_t>(s.dim) : 0);
      for (int64_t chunk = lo; chunk < hi; ++chunk) {
        double* partial = partials + chunk * block_heads;
        if constexpr (kFault != Fault::kPartialsAssumedZero) {
          std::fill(partial, partial + block_heads, 0.0);
        }
        const int64_t t0 = chunk * per_chunk, t1 = std::min(s.tokens, t0 + per_chunk);
        auto batch = std::upper_bound(batches.begin(), batches.end(), t0,
                                      [](int64_t t, const Batch& b) { return t < b.tokens.end; });
        for (int64_t t = t0; t < t1; ++t) {
          while (batch != batches.end() && t >= batch->tokens.end) ++batch;
          int64_t i_lo = 0, i_hi = -1, p = 0, length = 0, first = 0, covered_end = 0;
          if (batch != batches.end() && t >= batch->tokens.begin) {
            p = t - batch->tokens.begin;
            length = batch->tokens.length();
            first = batch->first_window;
            const int64_t computed = windows_computed<kFault>(*batch);
            i_lo = p >= s.block ? (p - s.block) / s.stride : 0;
            i_hi = std::min(computed - 1, p / s.stride);
            covered_end =
                computed > 0 ? window_offset<kFault>(computed - 1, s, length) + s.block : 0;
          }
          for (int64_t n = 0; n < s.heads; ++n) {
            std::fill(g.begin(), g.end(), Acc(0));
            bool loaded = false, covered = false;
            const Acc* xs = nullptr;
            for (int64_t i = i_lo; i <= i_hi; ++i) {
              const int64_t offset = window_offset<kFault>(i, s, length);
              if (p < offset || p >= offset + s.block) continue;
              const int64_t j = p - offset;
              if (!loaded) {
                xs = row_in_compute_type(input, t, n, x.data());
                loaded = true;
              }
              const Acc w = static_cast<Acc>(weight_at<kFault>(weight, s, j, n));
              const Acc* og = output_grad_row(first + i, n);
              if constexpr (kFault == Fault::kAbsOutputGrad) {
                for (int64_t d = 0; d < s.dim; ++d) abs_grad[d] = std::abs(og[d]);
                og = abs_grad.data();
              }
              if constexpr (kFault == Fault::kLastWriterWins) {
                for (int64_t d = 0; d < s.dim; ++d) g[d] = w * og[d];
              } else {
                for (int64_t d = 0; d < s.dim; ++d) g[d] += w * og[d];
              }
              partial[j * s.heads + n] += static_cast<double>(dot_lanes(og, xs, s.dim));
              covered = true;
            }
            if constexpr (kFault == Fault::kTailUnwritten) {
              if (!covered && length > 0 && p >= covered_end) continue;
            }
            store_row<kUnitStride>(input_grad, t, n, g.data());
          }
        }
      }
    });
  }

  // weightGrad: the chunks' partials in chunk order.
  parallel_for(0, block_heads, 64, [&](int64_t lo, int64_t hi) {
    for (int64_t e = lo; e < hi; ++e) {
      double sum = 0;
      for (int64_t chunk = 0; chunk < plan_ws.chunks; ++chunk)
        sum += partials[chunk * block_heads + e];
      weight_grad(e / s.heads, e % s.heads) = static_cast<T>(sum);
    }
  });
}

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_KERNELS_H_
