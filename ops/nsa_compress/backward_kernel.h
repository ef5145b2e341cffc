// NsaCompress's backward kernel (the NOTE in kernels.h): one writer per inputGrad element,
// weightGrad from per-chunk partials summed in chunk order.
#ifndef GRADCONF_OPS_NSA_COMPRESS_BACKWARD_KERNEL_H_
#define GRADCONF_OPS_NSA_COMPRESS_BACKWARD_KERNEL_H_

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
#include "nsa_compress/head_pairs_avx512.h"
#include "nsa_compress/kernels.h"
#include "nsa_compress/workspace.h"

namespace gradconf::nc {

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

/// One token's inputGrad row (t, n) and its covers' weightGrad partials. `f16c_rows`: binary16
/// rows with unit strides are widened into `x_row` and narrowed from `g_row` by F16C (the AVX2
/// path; the same bits).
template <int W, Fault kFault, typename T, typename Acc>
GRADCONF_ALWAYS_INLINE void token_row(const StridedView<const T, 3>& input,
                                      const StridedView<T, 3>& input_grad, int64_t t, int64_t n,
                                      const std::vector<Cover<Acc>>& covers, std::vector<Acc>& dots,
                                      Acc* x_row, Acc* g_row, double* partial, int64_t heads,
                                      bool streaming, bool f16c_rows) {
  const bool unit_stride = planted<kFault>(Fault::kIgnoredInputGradStride);
  const int64_t dim = input.dims[2], x_stride = input.strides[2];
  const int64_t out_stride = unit_stride ? 1 : input_grad.strides[2];
  const T* x = &input(t, n, 0);
  T* out = &input_grad(t, n, 0);
  const auto sum_and_file = [&](auto& lanes) GRADCONF_ALWAYS_INLINE_LAMBDA {
    const auto sum_from = [&](const auto* from, auto stride) GRADCONF_ALWAYS_INLINE_LAMBDA {
      sum_token_row<W, kFault>(from, stride, dim, covers.data(), lanes, g_row);
    };
    // A unit stride known at compile time takes the loads' stride test out of the loop.
    constexpr auto kUnit = std::integral_constant<int64_t, 1>{};
    if (x_stride == 1 && widen_half_row_by_f16c(f16c_rows, x, dim, x_row)) {
      sum_from(static_cast<const Acc*>(x_row), kUnit);
    } else if (x_stride == 1) {
      sum_from(x, kUnit);
    } else {
      sum_from(x, x_stride);
    }
    // The whole row at once: streaming stores complete their lines without other work between.
    if (out_stride != 1 || !store_half_row_by_f16c(f16c_rows, out, g_row, dim, streaming))
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

/// inputGrad and weightGrad partials of the tokens of chunks [lo, hi) (the NOTE in kernels.h).
template <int W, typename T, Fault kFault, typename OutputGradRow>
GRADCONF_ALWAYS_INLINE void backward_chunks(const Plan& plan, const std::vector<Batch>& batches,
                                            OutputGradRow output_grad_row,
                                            const compute_t<T>* weights, double* partials,
                                            int64_t per_chunk, bool streaming, bool head_pairs,
                                            bool f16c_rows, int64_t lo, int64_t hi) {
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
  // A widened input row where F16C converts them.
  std::vector<Acc> x_row(f16c_rows ? static_cast<size_t>(s.dim) : 0);
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
        token_row<W, kFault>(input, input_grad, t, n, covers, dots, x_row.data(), g_row.data(),
                             partial, s.heads, streaming, f16c_rows);
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
  // F16C converts binary16 rows on the AVX2 path (the AVX-512 path's W-wide rows have their own
  // conversions).
  const bool f16c_rows = std::is_same_v<T, half> && kernel_isa() == Isa::kAvx2;
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
            if (output_grad.strides[2] == 1 &&
                widen_half_row_by_f16c(f16c_rows, row, s.dim, grad + r * s.dim)) {
              continue;
            }
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
        backward_chunks<decltype(width)::value, T, kFault>(
            plan, batches, output_grad_row, weights.data(), partials, per_chunk, streaming,
            head_pairs, f16c_rows, lo, hi);
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

#endif  // GRADCONF_OPS_NSA_COMPRESS_BACKWARD_KERNEL_H_
