// NOTE: the forward has one writer per compressed row (window, head): it sums the window's l
// token rows in order. The backward gathers per token instead of scattering per window: a token
// sums the windows that cover it in window order (several when l > d), so inputGrad has one
// writer per element. In the same pass the token adds <outputGrad row, its input row> to the
// weightGrad partial of its chunk (chunks fixed by the problem, workspace.h); the partials are
// then summed in chunk order. Bitwise identical results for any thread count. On CPUs with
// AVX512_BF16 the 16-bit rows are summed two heads at a time (head_pairs_avx512.h), the same bits.
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
#include "nsa_compress/head_pairs_avx512.h"
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

/// Compressed rows (c, every head) of the window whose first token is `first`, for bfloat16 rows
/// of a multiple of 32 values on the AVX-512 path (W 16): head by head, each row's sums in
/// registers, and 32 values widened in two instructions per token (a 32-bit word's low half
/// shifted up is the even element, the word with its low half cleared the odd one; a widening of
/// 16 values took two). Each element sums the same products in the same order: the same bits, 1
/// thread 2.70-2.76 -> 2.18-2.26 ms for 4 x 8192 tokens, N 4, D 128. The next window's new
/// tokens are requested first. Window by window, not in window_group_rows' token order: that
/// walk, which keeps its sums in memory, was no faster for bf16 (session 79, alternating rounds:
/// 1.59-2.32 ms against 1.52-1.97 for this function).
template <int W, typename Acc>
GRADCONF_ALWAYS_INLINE void bfloat16_window_rows(const StridedView<const bfloat16, 3>& input,
                                                 const StridedView<bfloat16, 3>& output, int64_t c,
                                                 int64_t first, const Acc* weights, int64_t block,
                                                 int64_t stride, Acc* acc) {
  static_assert(std::is_same_v<Acc, float> && W == kWideRowLanes);
  using Words = LaneVector<uint32_t, W>;
  using Floats = LaneVector<float, W>;
  const int64_t tokens = input.dims[0], heads = input.dims[1], dim = input.dims[2];
  for (int64_t t = std::max(first + block, first + stride);
       t < std::min(tokens, first + block + stride); ++t) {
    for (int64_t n = 0; n < heads; ++n)
      prefetch_bytes(&input(t, n, 0), dim * int64_t{sizeof(bfloat16)});
  }
  constexpr int kChunks = 4;  // of 2 W values: 8 accumulators
  for (int64_t n = 0; n < heads; ++n) {
    for (int64_t d0 = 0; d0 < dim; d0 += kChunks * 2 * W) {
      const int chunks = static_cast<int>(std::min<int64_t>(kChunks, (dim - d0) / (2 * W)));
      Floats even[kChunks] = {}, odd[kChunks] = {};
      for (int64_t j = 0; j < block; ++j) {
        const float w = weights[n * block + j];
        const bfloat16* x = &input(first + j, n, d0);
#pragma GCC unroll 4
        for (int q = 0; q < kChunks; ++q) {
          if (q >= chunks) continue;
          Words words;
          std::memcpy(&words, x + q * 2 * W, sizeof words);
          const Words low_up = words << 16, high = words & 0xffff0000u;
          Floats even_values, odd_values;
          std::memcpy(&even_values, &low_up, sizeof even_values);
          std::memcpy(&odd_values, &high, sizeof odd_values);
          even[q] = even[q] + w * even_values;
          odd[q] = odd[q] + w * odd_values;
        }
      }
      for (int q = 0; q < chunks; ++q) {
        Acc* sums = acc + n * dim + d0 + q * 2 * W;
        store_lanes<float, W>(sums, 1,
                              __builtin_shufflevector(even[q], odd[q], 0, 16, 1, 17, 2, 18, 3, 19,
                                                      4, 20, 5, 21, 6, 22, 7, 23));
        store_lanes<float, W>(sums + W, 1,
                              __builtin_shufflevector(even[q], odd[q], 8, 24, 9, 25, 10, 26, 11, 27,
                                                      12, 28, 13, 29, 14, 30, 15, 31));
      }
    }
    store_row_lanes<W>(&output(c, n, 0), output.strides[2], dim, acc + n * dim, false);
  }
}

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

/// axpy_lanes into two rows from one read of x: y0[k] += w0 * x[k], y1[k] += w1 * x[k], each
/// element as axpy_lanes computes it.
template <int W, typename Acc, typename T>
GRADCONF_ALWAYS_INLINE void axpy2_lanes(Acc w0, Acc w1, const T* x, int64_t x_stride, Acc* y0,
                                        Acc* y1, int64_t n) {
  int64_t k = 0;
  for (; k + W <= n; k += W) {
    const LaneVector<Acc, W> v = load_lanes<Acc, W>(x + k * x_stride, x_stride);
    store_lanes<Acc, W>(y0 + k, 1, load_lanes<Acc, W>(y0 + k, 1) + w0 * v);
    store_lanes<Acc, W>(y1 + k, 1, load_lanes<Acc, W>(y1 + k, 1) + w1 * v);
  }
  for (; k < n; ++k) {
    const Acc v = static_cast<Acc>(x[k * x_stride]);
    y0[k] += w0 * v;
    y1[k] += w1 * v;
  }
}

/// Accumulator rows a forward task keeps for the windows it walks together: 64 KiB (L2; only
/// the windows covering the current token are hot in L1).
inline constexpr int64_t kWindowGroupBytes = int64_t{64} << 10;

/// Windows [first, last) of batch `b` (indices inside the batch, all computed), walked in token
/// order: each token's N x D values are read once and added to every window of the group that
/// covers it (both with one read where two windows cover it, axpy2_lanes: every token but a
/// batch's first and last d when l = 2d), so the reads run forward through memory and a 16-bit
/// row is widened once for both windows. Window by window, the reads jumped back `l - d` tokens
/// at every window and each row was widened per window: 4 x 8192 tokens, N 4, D 128, l 32, d 16,
/// 1 thread, five alternating rounds (session 79): f32 3.41-4.10 -> 2.78-3.49 ms, f16 2.69-2.77
/// -> 1.95-2.11 (one disturbed round each left out). Each output element still sums its l terms
/// in token order: the window-by-window loop's bits. acc: (last - first) rows of N x D.
template <int W, typename T, typename Acc, Fault kFault>
GRADCONF_ALWAYS_INLINE void window_group_rows(const StridedView<const T, 3>& input,
                                              const StridedView<T, 3>& output, const Batch& b,
                                              int64_t first, int64_t last, const Acc* weights,
                                              const Sizes& s, Acc* acc) {
  const int64_t length = b.tokens.length(), row = s.heads * s.dim;
  const auto offset = [&](int64_t i) { return window_offset<kFault>(i, s, length); };
  std::fill(acc, acc + (last - first) * row, Acc(0));
  const int64_t token_bytes = packed_token_bytes(input);
  const int64_t end = offset(last - 1) + s.block;
  const auto walk = [&](auto unit_stride) GRADCONF_ALWAYS_INLINE_LAMBDA {
    const int64_t xs = decltype(unit_stride)::value ? 1 : input.strides[2];
    // Windows [oldest, opened) cover token p: offsets do not decrease with i.
    int64_t oldest = first, opened = first;
    for (int64_t p = offset(first); oldest < last; ++p) {
      while (opened < last && offset(opened) <= p) ++opened;
      for (; oldest < opened && offset(oldest) + s.block <= p; ++oldest) {
        for (int64_t n = 0; n < s.heads; ++n) {
          store_row_lanes<W>(&output(b.first_window + oldest, n, 0), output.strides[2], s.dim,
                             acc + (oldest - first) * row + n * s.dim, false);
        }
      }
      if (oldest == last) break;
      const int64_t t = b.tokens.begin + p;
      if (token_bytes > 0 && p + kTokensAhead < end)
        prefetch_bytes(&input(t + kTokensAhead, 0, 0), token_bytes);
      for (int64_t n = 0; n < s.heads; ++n) {
        const T* x = &input(t, n, 0);
        if (opened - oldest == 2) {
          axpy2_lanes<W>(weights[n * s.block + p - offset(oldest)],
                         weights[n * s.block + p - offset(oldest + 1)], x, xs,
                         acc + (oldest - first) * row + n * s.dim,
                         acc + (oldest + 1 - first) * row + n * s.dim, s.dim);
          continue;
        }
        for (int64_t i = oldest; i < opened; ++i) {
          axpy_lanes<W>(weights[n * s.block + p - offset(i)], x, xs,
                        acc + (i - first) * row + n * s.dim, s.dim);
        }
      }
    }
  };
  if (input.strides[2] == 1) {
    walk(std::true_type{});
  } else {
    walk(std::false_type{});
  }
}

template <typename T, Fault kFault>
void forward_kernel(const Plan& plan) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  if (s.compressed == 0 || s.heads == 0 || s.dim == 0) return;
  const auto input = view_of<const T, 3>(plan.input);
  const auto output = view_of<T, 3>(plan.output);
  const std::vector<Batch> batches = effective_batches<kFault>(plan);
  const std::vector<Acc> weights = weights_by_head<T, kFault>(plan);
  const int64_t row = s.heads * s.dim;
  const int64_t group = std::max<int64_t>(1, kWindowGroupBytes / int64_t{sizeof(Acc)} / row);
  const int64_t grain = grain_for_work(double(s.block) * double(row));  // per window
  parallel_for(0, s.compressed, grain, [&](int64_t lo, int64_t hi) {
    std::vector<Acc> acc(static_cast<size_t>(std::min(group, hi - lo) * row));
    on_widest_isa_rows([&](auto width) GRADCONF_ALWAYS_INLINE_LAMBDA {
      constexpr int W = decltype(width)::value;
      auto batch = std::upper_bound(
          batches.begin(), batches.end(), lo,
          [](int64_t c, const Batch& b) { return c < b.first_window + b.windows; });
      for (int64_t c = lo; c < hi;) {
        while (batch != batches.end() && c >= batch->first_window + batch->windows) ++batch;
        const int64_t i = batch != batches.end() ? c - batch->first_window : -1;
        if (i < 0 || i >= windows_computed<kFault>(*batch)) {  // no tokens: a row of zeros
          std::fill(acc.begin(), acc.begin() + row, Acc(0));
          for (int64_t n = 0; n < s.heads; ++n)
            store_row_lanes<W>(&output(c, n, 0), output.strides[2], s.dim, &acc[n * s.dim], false);
          ++c;
          continue;
        }
        const int64_t last =
            std::min({windows_computed<kFault>(*batch), hi - batch->first_window, i + group});
        if constexpr (std::is_same_v<T, bfloat16> && W == kWideRowLanes) {
          if (input.strides[2] == 1 && s.dim % (2 * W) == 0) {
            for (; c < batch->first_window + last; ++c) {
              const int64_t first =
                  batch->tokens.begin +
                  window_offset<kFault>(c - batch->first_window, s, batch->tokens.length());
              bfloat16_window_rows<W>(input, output, c, first, weights.data(), s.block, s.stride,
                                      acc.data());
            }
            continue;
          }
        }
        window_group_rows<W, T, Acc, kFault>(input, output, *batch, i, last, weights.data(), s,
                                             acc.data());
        c = batch->first_window + last;
      }
    });
  });
}

/// A window covering the token being summed: its outputGrad row, weight[j, n] and j.
template <typename Acc>
struct Cover {
  const Acc* output_grad;
  Acc weight;
  int64_t j;
};

/// Each cover's <outputGrad row, input row> lanes while a token row is summed: in registers when
/// the number of covers is known at compile time, else in plain memory (kLanes per cover; no
/// vector type crosses an ISA boundary). In memory for every count, each block loaded and stored
/// every cover's lanes: the bf16 backward took 7.6 ms at 1 thread instead of 6.5 (bench/README
/// session 70).
template <typename Acc, int kCovers>
struct DotLanes {
  LaneVector<Acc> lanes[kCovers] = {};
  static constexpr size_t size() { return kCovers; }
  /// f(i) for every cover, unrolled: a loop would keep the lanes in a stack array.
  template <typename F>
  GRADCONF_ALWAYS_INLINE void for_each(F&& f) {
    [&]<size_t... kI>(std::index_sequence<kI...>) GRADCONF_ALWAYS_INLINE_LAMBDA { (f(kI), ...); }
    (std::make_index_sequence<kCovers>{});
  }
  GRADCONF_ALWAYS_INLINE LaneVector<Acc> get(size_t i) const { return lanes[i]; }
  GRADCONF_ALWAYS_INLINE void set(size_t i, LaneVector<Acc> v) { lanes[i] = v; }
};
template <typename Acc>
struct DotLanes<Acc, 0> {
  Acc* memory;
  size_t count;
  size_t size() const { return count; }
  template <typename F>
  GRADCONF_ALWAYS_INLINE void for_each(F&& f) {
    for (size_t i = 0; i < count; ++i) f(i);
  }
  GRADCONF_ALWAYS_INLINE LaneVector<Acc> get(size_t i) const {
    return load_lanes<Acc>(memory + i * kLanes, 1);
  }
  GRADCONF_ALWAYS_INLINE void set(size_t i, LaneVector<Acc> v) {
    store_lanes<Acc>(memory + i * kLanes, 1, v);
  }
};

/// Elements [d0, d0 + kVectors * W) of one token's inputGrad row: the covers' outputGrad rows
/// weighted and summed in window order, in registers, into `g_row`; on the way, each cover's
/// <outputGrad row, input row> lanes advance by the same elements (dot_lanes' order, so the bits
/// are dot_lanes': a W = 2 kLanes product adds its bottom half, then its top half).
template <int kVectors, int W, Fault kFault, typename T, typename Acc, typename Dots,
          typename Stride>
GRADCONF_ALWAYS_INLINE void token_block(const T* x, Stride x_stride, Acc* g_row,
                                        const Cover<Acc>* covers, Dots& dots, int64_t d0) {
  static_assert(W % kLanes == 0);
  LaneVector<Acc, W> xs[kVectors], g[kVectors];
#pragma GCC unroll 4
  for (int v = 0; v < kVectors; ++v) {
    xs[v] = load_lanes<Acc, W>(x + (d0 + v * W) * x_stride, x_stride);
    g[v] = LaneVector<Acc, W>{};
  }
  dots.for_each([&](size_t i) GRADCONF_ALWAYS_INLINE_LAMBDA {
    const Acc w = covers[i].weight;
    LaneVector<Acc> dot = dots.get(i);
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      LaneVector<Acc, W> og = load_lanes<Acc, W>(covers[i].output_grad + d0 + v * W, 1);
      if (planted<kFault>(Fault::kAbsOutputGrad)) og = og < 0 ? -og : og;
      if (planted<kFault>(Fault::kLastWriterWins)) {
        g[v] = w * og;
      } else {
        g[v] += w * og;
      }
      const LaneVector<Acc, W> products = og * xs[v];
      for (int h = 0; h < W / kLanes; ++h) dot += lane_slice<Acc, W>(products, h);
    }
    dots.set(i, dot);
  });
#pragma GCC unroll 4
  for (int v = 0; v < kVectors; ++v) store_lanes<Acc, W>(g_row + d0 + v * W, 1, g[v]);
}

/// One token's inputGrad row (t, n) into `g_row`, its covers' dot lanes into `dots`.
template <int W, Fault kFault, typename T, typename Acc, typename Dots, typename Stride>
GRADCONF_ALWAYS_INLINE void sum_token_row(const T* x, Stride x_stride, int64_t dim,
                                          const Cover<Acc>* covers, Dots& dots, Acc* g_row) {
  int64_t d = 0;
  for (; d + 4 * kLanes <= dim; d += 4 * kLanes) {
    token_block<4 * kLanes / W, W, kFault>(x, x_stride, g_row, covers, dots, d);
  }
  for (; d + kLanes <= dim; d += kLanes) {
    token_block<1, kLanes, kFault>(x, x_stride, g_row, covers, dots, d);
  }
  if (d < dim) {
    // The tail in lanes that are zero past the row: their 0 * 0 adds +0, which changes no lane (a
    // sum that starts at +0 is never -0), and an indexed lane would keep the lanes in memory.
    const int64_t rest = dim - d;
    Acc x_tail[kLanes] = {}, g[kLanes] = {};
    for (int64_t k = 0; k < rest; ++k) x_tail[k] = static_cast<Acc>(x[(d + k) * x_stride]);
    dots.for_each([&](size_t i) GRADCONF_ALWAYS_INLINE_LAMBDA {
      Acc og_tail[kLanes] = {};
      for (int64_t k = 0; k < rest; ++k) {
        Acc og = covers[i].output_grad[d + k];
        if (planted<kFault>(Fault::kAbsOutputGrad)) og = std::abs(og);
        g[k] = planted<kFault>(Fault::kLastWriterWins) ? covers[i].weight * og
                                                       : g[k] + covers[i].weight * og;
        og_tail[k] = og;
      }
      dots.set(i, dots.get(i) + load_lanes<Acc>(og_tail, 1) * load_lanes<Acc>(x_tail, 1));
    });
    std::copy(g, g + rest, g_row + d);
  }
}

/// One token's inputGrad row (t, n) and its covers' weightGrad partials.
template <int W, Fault kFault, typename T, typename Acc>
GRADCONF_ALWAYS_INLINE void token_row(const StridedView<const T, 3>& input,
                                      const StridedView<T, 3>& input_grad, int64_t t, int64_t n,
                                      const std::vector<Cover<Acc>>& covers, std::vector<Acc>& dots,
                                      Acc* g_row, double* partial, int64_t heads, bool streaming) {
  const bool unit_stride = planted<kFault>(Fault::kIgnoredInputGradStride);
  const int64_t dim = input.dims[2], x_stride = input.strides[2];
  const int64_t out_stride = unit_stride ? 1 : input_grad.strides[2];
  const T* x = &input(t, n, 0);
  T* out = &input_grad(t, n, 0);
  const auto sum_and_file = [&](auto& lanes) GRADCONF_ALWAYS_INLINE_LAMBDA {
    // A unit stride known at compile time takes the loads' stride test out of the loop.
    if (x_stride == 1) {
      sum_token_row<W, kFault>(x, std::integral_constant<int64_t, 1>{}, dim, covers.data(), lanes,
                               g_row);
    } else {
      sum_token_row<W, kFault>(x, x_stride, dim, covers.data(), lanes, g_row);
    }
    // The whole row at once: streaming stores complete their lines without other work between.
    store_row_lanes<W>(out, out_stride, dim, g_row, streaming);
    lanes.for_each([&](size_t i) GRADCONF_ALWAYS_INLINE_LAMBDA {
      partial[covers[i].j * heads + n] +=
          static_cast<double>(combine_lane_vector<Acc>(lanes.get(i)));
    });
  };
  // l <= 2d, the usual shapes, has one or two covers per token.
  if (covers.size() == 1) {
    DotLanes<Acc, 1> lanes;
    sum_and_file(lanes);
  } else if (covers.size() == 2) {
    DotLanes<Acc, 2> lanes;
    sum_and_file(lanes);
  } else {
    std::fill(dots.begin(), dots.begin() + static_cast<ptrdiff_t>(covers.size() * kLanes), Acc(0));
    DotLanes<Acc, 0> lanes{dots.data(), covers.size()};
    sum_and_file(lanes);
  }
}

/// Whether the 16-bit backward takes head_pairs_avx512.h's rows: on CPUs with AVX512_BF16,
/// at most two windows per token (l <= 2d: its rows take one or two covers), D a multiple of
/// kHeadPairStep and unit inner strides. Its outputGrad rows are then converted into head pairs
/// (head_pair_offset), an odd last head's as usual. Not for planted faults: they live in the
/// generic rows, which laws and faults share.
template <typename T, Fault kFault>
bool uses_head_pairs(const Plan& plan) {
  const Sizes& s = plan.sizes;
#if defined(__x86_64__) && defined(__GNUC__)
  return is_16_bit_float_v<T> && kFault == Fault::kNone &&
         converts_output_grad<T>(plan.output_grad) && kernel_has_bfloat16_conversion() &&
         s.heads >= 2 && s.dim % kHeadPairStep == 0 && s.block <= 2 * s.stride &&
         plan.input.strides[2] == 1 && plan.input_grad.strides[2] == 1;
#else
  return false;
#endif
}

/// inputGrad and weightGrad partials of the tokens of chunks [lo, hi) (NOTE at the top).
template <int W, typename T, Fault kFault, typename OutputGradRow>
GRADCONF_ALWAYS_INLINE void backward_chunks(const Plan& plan, const std::vector<Batch>& batches,
                                            OutputGradRow output_grad_row,
                                            const compute_t<T>* weights, double* partials,
                                            int64_t per_chunk, bool streaming, bool head_pairs,
                                            int64_t lo, int64_t hi) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  const auto input = view_of<const T, 3>(plan.input);
  const auto input_grad = view_of<T, 3>(plan.input_grad);
  const int64_t block_heads = s.block * s.heads;
  // At most ceil(l / d) windows cover a token (written so that no sum can overflow: extended
  // accepts any positive l and d; fuzz_nc_grad_args found l + d - 1 overflowing).
  const auto most_covers = static_cast<size_t>(s.block / s.stride + 2);
  std::vector<Cover<Acc>> covers;
  std::vector<std::pair<int64_t, int64_t>> windows;  // (compressed row, j)
  covers.reserve(most_covers);
  windows.reserve(most_covers);
  // Each cover's <outputGrad row, input row> lanes (kLanes per cover): plain memory, no vector
  // type crosses an ISA boundary.
  std::vector<Acc> dots(most_covers * kLanes), g_row(static_cast<size_t>(s.dim));
  const int64_t token_bytes = packed_token_bytes(input);
  for (int64_t chunk = lo; chunk < hi; ++chunk) {
    double* partial = partials + chunk * block_heads;
    if (!planted<kFault>(Fault::kPartialsAssumedZero)) {
      std::fill(partial, partial + block_heads, 0.0);
    }
    const int64_t t0 = chunk * per_chunk, t1 = std::min(s.tokens, t0 + per_chunk);
    auto batch = std::upper_bound(batches.begin(), batches.end(), t0,
                                  [](int64_t t, const Batch& b) { return t < b.tokens.end; });
    for (int64_t t = t0; t < t1; ++t) {
      if (token_bytes > 0 && t + kTokensAhead < t1)
        prefetch_bytes(&input(t + kTokensAhead, 0, 0), token_bytes);
      while (batch != batches.end() && t >= batch->tokens.end) ++batch;
      // The windows that cover token t, in window order: the same for every head.
      int64_t p = 0, length = 0, covered_end = 0;
      windows.clear();
      if (batch != batches.end() && t >= batch->tokens.begin) {
        p = t - batch->tokens.begin;
        length = batch->tokens.length();
        const int64_t computed = windows_computed<kFault>(*batch);
        const int64_t i_lo = p >= s.block ? (p - s.block) / s.stride : 0;
        const int64_t i_hi = std::min(computed - 1, p / s.stride);
        covered_end = computed > 0 ? window_offset<kFault>(computed - 1, s, length) + s.block : 0;
        for (int64_t i = i_lo; i <= i_hi; ++i) {
          const int64_t offset = window_offset<kFault>(i, s, length);
          if (p < offset || p >= offset + s.block) continue;
          windows.push_back({batch->first_window + i, p - offset});
        }
      }
      covers.resize(windows.size());
      if (dots.size() < covers.size() * kLanes) dots.resize(covers.size() * kLanes);
      for (int64_t n = 0; n < s.heads; ++n) {
#if defined(__x86_64__) && defined(__GNUC__)
        if constexpr (is_16_bit_float_v<T> && W == kWideRowLanes) {
          // Heads n and n + 1 at once (uses_head_pairs), with the generic rows' bits.
          if (head_pairs && n + 1 < s.heads && !windows.empty() && windows.size() <= 2) {
            HeadPairRows<T> rows{{&input(t, n, 0), &input(t, n + 1, 0)},
                                 {&input_grad(t, n, 0), &input_grad(t, n + 1, 0)},
                                 {},
                                 {},
                                 static_cast<int>(windows.size())};
            for (size_t k = 0; k < windows.size(); ++k) {
              const auto [row, j] = windows[k];
              rows.output_grad[k] = output_grad_row(row, n);
              rows.weight[k][0] = weights[n * s.block + j];
              rows.weight[k][1] = weights[(n + 1) * s.block + j];
            }
            float dots[2][2];
            head_pair_rows(rows, s.dim, streaming, dots);
            for (size_t k = 0; k < windows.size(); ++k) {
              for (int odd = 0; odd < 2; ++odd)
                partial[windows[k].second * s.heads + n + odd] += static_cast<double>(dots[k][odd]);
            }
            ++n;
            continue;
          }
        }
#endif
        for (size_t k = 0; k < windows.size(); ++k) {
          const auto [row, j] = windows[k];
          covers[k] = {output_grad_row(row, n), weights[n * s.block + j], j};
        }
        if (planted<kFault>(Fault::kTailUnwritten)) {
          if (covers.empty() && length > 0 && p >= covered_end) continue;
        }
        token_row<W, kFault>(input, input_grad, t, n, covers, dots, g_row.data(), partial, s.heads,
                             streaming);
      }
    }
  }
  if (streaming) stream_fence();
}

template <typename T, Fault kFault>
void backward_kernel(const Plan& plan, std::byte* workspace) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  const auto output_grad = view_of<const T, 3>(plan.output_grad);
  const auto input_grad = view_of<T, 3>(plan.input_grad);
  const auto weight_grad = view_of<T, 2>(plan.weight_grad);
  const std::vector<Batch> batches = effective_batches<kFault>(plan);
  // Phase 1 sized this workspace (NC-LIMIT-02) for the same sizes.
  const bool convert = converts_output_grad<T>(plan.output_grad);
  const BackwardWorkspace plan_ws = *backward_workspace(s, sizeof(Acc), convert);
  auto* grad = reinterpret_cast<Acc*>(workspace);
  auto* partials = reinterpret_cast<double*>(workspace + plan_ws.grad_bytes);
  const int64_t block_heads = s.block * s.heads;

  // outputGrad in the compute type, contiguous (head pairs interleaved where the rows take
  // head_pairs_avx512.h's path): each of its rows is read by l tokens.
  const bool head_pairs = uses_head_pairs<T, kFault>(plan);
  if (convert && s.compressed > 0 && s.heads * s.dim > 0) {
    const int64_t grain = grain_for_work(double(s.dim));
    const int64_t paired_heads = head_pairs ? s.heads / 2 * 2 : 0;
    parallel_for(0, s.compressed * s.heads, grain, [&](int64_t lo, int64_t hi) {
      std::vector<Acc> converted(head_pairs ? static_cast<size_t>(s.dim) : 0);
      on_widest_isa_rows([&](auto width) GRADCONF_ALWAYS_INLINE_LAMBDA {
        for (int64_t r = lo; r < hi; ++r) {
          const int64_t n = r % s.heads;
          const T* row = &output_grad(r / s.heads, n, 0);
          if (n >= paired_heads) {
            load_row_lanes<decltype(width)::value>(row, output_grad.strides[2], s.dim,
                                                   grad + r * s.dim);
          } else {
            load_row_lanes<decltype(width)::value>(row, output_grad.strides[2], s.dim,
                                                   converted.data());
            Acc* pair = grad + (r - n % 2) * s.dim;
            for (int64_t d = 0; d < s.dim; d += 8)
              std::copy_n(&converted[d], 8, pair + head_pair_offset(d, n % 2));
          }
        }
      });
    });
  }
  auto output_grad_row = [&](int64_t row, int64_t n) GRADCONF_ALWAYS_INLINE_LAMBDA -> const Acc* {
    if (convert) return grad + (row * s.heads + n) * s.dim;
    return reinterpret_cast<const Acc*>(&output_grad(row, n, 0));
  };

  if (plan_ws.chunks == 0) {  // nothing to sum: every inputGrad row is zero
    const std::vector<Acc> zeros(static_cast<size_t>(s.dim), Acc(0));
    for (int64_t t = 0; t < s.tokens; ++t) {
      for (int64_t n = 0; n < s.heads; ++n) {
        store_row_lanes(&input_grad(t, n, 0), input_grad.strides[2], s.dim, zeros.data(), false);
      }
    }
  }
  const int64_t per_chunk = plan_ws.chunks > 0 ? chunk_tokens(s.tokens) : 0;
  // In double: a view with zero strides can have more elements than any product of int64 holds.
  const bool streaming = static_cast<double>(s.tokens) * static_cast<double>(s.heads) *
                             static_cast<double>(s.dim) * sizeof(T) >=
                         static_cast<double>(kStreamingBytes);
  if (plan_ws.chunks > 0) {
    const std::vector<Acc> weights = weights_by_head<T, kFault>(plan);
    // A chunk's tokens each sum their covering windows' rows (about l / d) into both gradients.
    const int64_t grain = grain_for_work(2.0 * double(per_chunk) * double(s.heads * s.dim) *
                                         std::ceil(double(s.block) / double(s.stride)));
    parallel_for(0, plan_ws.chunks, grain, [&](int64_t lo, int64_t hi) {
      on_widest_isa_rows([&](auto width) GRADCONF_ALWAYS_INLINE_LAMBDA {
        backward_chunks<decltype(width)::value, T, kFault>(plan, batches, output_grad_row,
                                                           weights.data(), partials, per_chunk,
                                                           streaming, head_pairs, lo, hi);
      });
    });
  }

  // weightGrad: the chunks' partials in chunk order.
  const int64_t grain = grain_for_work(double(plan_ws.chunks));
  parallel_for(0, block_heads, grain, [&](int64_t lo, int64_t hi) {
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
