// NsaCompress's forward kernel (the NOTE in kernels.h): one writer per compressed row.
#ifndef GRADCONF_OPS_NSA_COMPRESS_FORWARD_KERNEL_H_
#define GRADCONF_OPS_NSA_COMPRESS_FORWARD_KERNEL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "core/isa.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"
#include "nsa_compress/kernels.h"

namespace gradconf::nc {

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

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_FORWARD_KERNEL_H_
