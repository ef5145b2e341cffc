// NOTE: data flows per (batch, query, head) row: each of its L*P samples is located once (guard,
// taps, weights in double), then its taps are read across the C channels of value, which are
// contiguous in the usual layout (the inner loops run over c). The forward and the gradients of
// location and attention weight have one writer per row. gradValue is a scatter from every query
// onto the keys it sampled: each (batch, head) slice has one worker, which copies the slice's
// value rows into its workspace block, each followed by a double accumulator row, walks the
// queries in order (in blocks, level by level within a block: each key still sees the queries in
// order) and then writes the slice. So every element has one writer computing in a fixed order:
// bitwise identical results for any thread count. Memory bandwidth is not the backward's limit:
// its time is spread over the random tap rows' latency, the channel sums, the scatter and
// locating (see bench/README.md).
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_KERNELS_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_KERNELS_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/executor.h"
#include "core/isa.h"
#include "core/lanes.h"
#include "core/parallel.h"
#include "core/view.h"
#include "multi_scale_deformable_attention/sampling.h"
#include "multi_scale_deformable_attention/workspace.h"

namespace gradconf::msda {

/// A validated call as phase 1 hands it to phase 2: copies of the views and of the level table.
struct Plan {
  aclTensor value, location, attn_weight;
  std::optional<aclTensor> grad_output;
  aclTensor output;  ///< forward
  std::optional<aclTensor> grad_value, grad_location, grad_attn_weight;
  std::vector<Level> levels;
  Sizes sizes;
  int workers = 1;  ///< slice blocks planned in phase 1 (the backward's workspace)
};

/// One in-bounds tap of a sample: its value row (element offset from the (b, m) slice's origin)
/// and its weight, bilinear weight times attention weight.
template <typename Acc>
struct WeightedTap {
  int64_t offset;
  Acc weight;
};

/// Asks for a value row's first and last cache lines before the loop that reads it: the taps
/// of a row's samples land anywhere in the level, and their latency, not arithmetic, bounds
/// these kernels.
/// The last address is computed as an integer: `span` comes from the caller's strides, and a
/// pointer sum may wrap for a huge one (UB, which the fuzzers' UBSan found); a prefetch of any
/// address is harmless.
template <typename T>
GRADCONF_ALWAYS_INLINE void prefetch_row(const T* row, int64_t span) {
  __builtin_prefetch(row, 0, 3);
  if (span > 1) {
    const uintptr_t last =
        reinterpret_cast<uintptr_t>(row) + static_cast<uintptr_t>(span - 1) * sizeof(T);
    __builtin_prefetch(reinterpret_cast<const void*>(last), 0, 3);
  }
}

/// The located samples (groups of kLocateLanes) and attention weights of a few rows, each kind in
/// one allocation, and the location lanes of the row being located.
class LocatedRows {
 public:
  LocatedRows(int64_t rows, int64_t samples)
      : groups_(static_cast<size_t>((samples + kLocateLanes - 1) / kLocateLanes)),
        lanes_(static_cast<size_t>(rows) * groups_),
        weights_(lanes_.size() * kLocateLanes),
        x_(padded()),
        y_(x_.size()) {}
  LocatedSample sample(int64_t row, int64_t i) const {
    return {lanes_[static_cast<size_t>(row) * groups_ + static_cast<size_t>(i / kLocateLanes)],
            static_cast<int>(i % kLocateLanes)};
  }
  /// The attention weight of sample i of `row`.
  double weight(int64_t row, int64_t i) const {
    return weights_[static_cast<size_t>(row) * padded() + static_cast<size_t>(i)];
  }

  /// Locates the L*P samples of location row (b, q, m) into `row`. The location and attnWeight
  /// rows are addressed once; the samples step through them by strides. Requires L*P > 0 (an
  /// empty location has no row to address).
  template <typename T, Fault kFault>
  GRADCONF_ALWAYS_INLINE void locate(const StridedView<const T, 6>& location,
                                     const StridedView<const T, 5>& attn,
                                     const SampleLevels& levels, const Sizes& s, int64_t b,
                                     int64_t q, int64_t m, int64_t row) {
    const T* xy_row = &location(b, q, m, 0, 0, 0);
    const T* attn_row = &attn(b, q, m, 0, 0);
    const int64_t ls = location.strides[3], ps = location.strides[4], ys = location.strides[5];
    double* weights = weights_.data() + static_cast<size_t>(row) * padded();
    for (int64_t l = 0, i = 0; l < s.levels; ++l) {
      for (int64_t p = 0; p < s.points; ++p, ++i) {
        const T* xy = xy_row + l * ls + p * ps;
        x_[static_cast<size_t>(i)] = static_cast<double>(xy[0]);
        y_[static_cast<size_t>(i)] = static_cast<double>(xy[ys]);
        weights[i] = static_cast<double>(attn_row[l * attn.strides[3] + p * attn.strides[4]]);
      }
    }
    LocatedLanes* lanes = lanes_.data() + static_cast<size_t>(row) * groups_;
    for (size_t group = 0; group < groups_; ++group) {
      LocateLanes x, y;
      std::memcpy(&x, x_.data() + group * kLocateLanes, sizeof x);
      std::memcpy(&y, y_.data() + group * kLocateLanes, sizeof y);
      locate_lanes<kFault>(x, y, levels, group * kLocateLanes, lanes[group]);
    }
  }

 private:
  /// Samples per row, whole groups.
  size_t padded() const { return groups_ * kLocateLanes; }

  size_t groups_;
  std::vector<LocatedLanes> lanes_;
  std::vector<double> weights_, x_, y_;
};

/// Asks for a row the kernel is about to write (the first and last cache lines): stores that miss
/// hold up the store buffer, and the output rows of consecutive queries are 1 KiB+ apart.
template <typename T>
GRADCONF_ALWAYS_INLINE void prefetch_row_for_write(T* first, T* last) {
  __builtin_prefetch(first, 1, 3);
  __builtin_prefetch(last, 1, 3);
}

template <typename T, Fault kFault>
GRADCONF_ALWAYS_INLINE void forward_rows(const Plan& plan, const SampleLevels& levels, int64_t lo,
                                         int64_t hi) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  const auto value = view_of<const T, 4>(plan.value);
  const auto location = view_of<const T, 6>(plan.location);
  const auto attn = view_of<const T, 5>(plan.attn_weight);
  const auto output = view_of<T, 4>(plan.output);
  const int64_t vs = value.strides[3], os = output.strides[3];
  std::vector<WeightedTap<Acc>> taps;
  taps.reserve(static_cast<size_t>(4 * s.levels * s.points));
  LocatedRows located(1, s.levels * s.points);
  for (int64_t row = lo; row < hi; ++row) {
    // Rows run query-fastest within a (b, m) slice, whose value rows then stay in cache.
    const int64_t q = row % s.queries, m = row / s.queries % s.heads, b = row / s.queries / s.heads;
    // No level exists without keys (MSDA-DATA-01), so no tap reads an empty value.
    const T* slice =
        s.keys > 0 ? value.origin + b * value.strides[0] + m * value.strides[2] : nullptr;
    taps.clear();
    const int64_t samples = s.levels * s.points;
    if (samples > 0 && q + 1 < s.queries) {  // the next row's: rows of a slice are 1 KiB+ apart
      prefetch_row(&location(b, q + 1, m, 0, 0, 0), samples * 2);
      prefetch_row(&attn(b, q + 1, m, 0, 0), samples);
      prefetch_row_for_write(&output(b, q + 1, m, 0), &output(b, q + 1, m, s.channels - 1));
    }
    if (samples > 0) located.locate<T, kFault>(location, attn, levels, s, b, q, m, 0);
    for (int64_t i = 0; i < samples; ++i) {
      const LocatedSample t = located.sample(0, i);  // no key of a sample outside the guard is >= 0
      for (int k = 0; k < 4; ++k) {
        if (t.key(k) >= 0) {
          taps.push_back(
              {t.key(k) * value.strides[1], static_cast<Acc>(t.weight(k) * located.weight(0, i))});
          prefetch_row(slice + taps.back().offset, s.channels * vs);
        }
      }
    }
    // Every channel sums the same taps in the same order, whatever the blocking: groups of
    // four lane vectors (32 channels) in registers, then single lane vectors, then a scalar tail.
    using Lanes = LaneVector<Acc>;
    T* out = &output(b, q, m, 0);
    int64_t c0 = 0;
    // Value's channels are usually contiguous: that loop is compiled with the stride known, so
    // no load tests it (callgrind: a tenth of the forward's instructions, on the AVX2 path).
    const auto sum_blocks = [&](auto stride) GRADCONF_ALWAYS_INLINE_LAMBDA {
      for (; c0 + 4 * kLanes <= s.channels; c0 += 4 * kLanes) {
        Lanes acc0 = {}, acc1 = {}, acc2 = {}, acc3 = {};
        for (const auto& tap : taps) {
          const T* v = slice + tap.offset + c0 * stride;
          acc0 += tap.weight * load_lanes<Acc>(v, stride);
          acc1 += tap.weight * load_lanes<Acc>(v + kLanes * stride, stride);
          acc2 += tap.weight * load_lanes<Acc>(v + 2 * kLanes * stride, stride);
          acc3 += tap.weight * load_lanes<Acc>(v + 3 * kLanes * stride, stride);
        }
        store_lanes<Acc>(out + c0 * os, os, acc0);
        store_lanes<Acc>(out + (c0 + kLanes) * os, os, acc1);
        store_lanes<Acc>(out + (c0 + 2 * kLanes) * os, os, acc2);
        store_lanes<Acc>(out + (c0 + 3 * kLanes) * os, os, acc3);
      }
    };
    if (vs == 1) {
      sum_blocks(std::integral_constant<int64_t, 1>{});
    } else {
      sum_blocks(vs);
    }
    for (; c0 + kLanes <= s.channels; c0 += kLanes) {
      Lanes acc = {};
      for (const auto& tap : taps)
        acc += tap.weight * load_lanes<Acc>(slice + tap.offset + c0 * vs, vs);
      store_lanes<Acc>(out + c0 * os, os, acc);
    }
    for (; c0 < s.channels; ++c0) {
      Acc acc = 0;
      for (const auto& tap : taps)
        acc += tap.weight * static_cast<Acc>(slice[tap.offset + c0 * vs]);
      out[c0 * os] = static_cast<T>(acc);
    }
  }
}

template <typename T, Fault kFault>
void forward_rows_baseline(const Plan& plan, const SampleLevels& levels, int64_t lo, int64_t hi) {
  forward_rows<T, kFault>(plan, levels, lo, hi);
}

template <typename T, Fault kFault>
GRADCONF_TARGET_AVX2 void forward_rows_avx2(const Plan& plan, const SampleLevels& levels,
                                            int64_t lo, int64_t hi) {
  forward_rows<T, kFault>(plan, levels, lo, hi);
}

template <typename T, Fault kFault>
void forward_kernel(const Plan& plan) {
  const Sizes s = plan.sizes;
  const SampleLevels levels = sample_levels(effective_levels<kFault>(plan.levels), s.points);
  const int64_t rows = s.batch * s.queries * s.heads;
  if (rows == 0 || s.channels == 0) return;
  const bool avx2 = kernel_isa() != Isa::kBaseline;
  // A row reads four taps of C channels per sample.
  const double row_work =
      4.0 * static_cast<double>(s.levels * s.points) * static_cast<double>(s.channels);
  parallel_for(0, rows, grain_for_work(row_work), [&](int64_t lo, int64_t hi) {
    if (avx2) {
      forward_rows_avx2<T, kFault>(plan, levels, lo, hi);
    } else {
      forward_rows_baseline<T, kFault>(plan, levels, lo, hi);
    }
  });
}

/// sums[c] += weight * grad[c] over a gradValue accumulator row. Fused (one rounding, only more
/// accurate) where the path has FMA; the order of the sums is the same either way.
template <bool kFused>
GRADCONF_ALWAYS_INLINE void scatter_row(double* sums, double weight, const double* grad,
                                        int64_t channels) {
  // Unrolled: at C 32 the loop's own increments and compares were a third of its instructions.
#pragma GCC unroll 8
  for (int64_t c = 0; c < channels; ++c) {
    if constexpr (kFused) {
      sums[c] = __builtin_fma(weight, grad[c], sums[c]);
    } else {
      sums[c] += weight * grad[c];
    }
  }
}

/// The channel sums of one sample's four tap rows against gradOutput, kLanes channels per lane
/// vector, each lane in channel order and combined in combine_lanes' tree. `channels` is a whole
/// number of lane vectors (the rows are lane-padded with zeros).
template <typename Acc>
struct TapSums {
  Acc attn, x, y;  ///< sum g * sample, sum g * d sample/dx, sum g * d sample/dy (pixel units)
};

template <typename Acc, Fault kFault>
GRADCONF_ALWAYS_INLINE TapSums<Acc> tap_sums(const Acc* const (&rows)[4], const Acc* grad,
                                             const LocatedSample& t, int64_t channels) {
  using Lanes = LaneVector<Acc>;
  const Acc w0 = Acc(t.weight(0)), w1 = Acc(t.weight(1)), w2 = Acc(t.weight(2)),
            w3 = Acc(t.weight(3));
  const Acc x1 = Acc(t.tx()), y1 = Acc(t.ty()), x0 = 1 - x1, y0 = 1 - y1;
  Lanes attn = {}, dx = {}, dy = {};
  for (int64_t c = 0; c < channels; c += kLanes) {
    const Lanes g = load_lanes<Acc>(grad + c, 1);
    const Lanes t0 = load_lanes<Acc>(rows[0] + c, 1), t1 = load_lanes<Acc>(rows[1] + c, 1);
    const Lanes t2 = load_lanes<Acc>(rows[2] + c, 1), t3 = load_lanes<Acc>(rows[3] + c, 1);
    const Lanes sample = w0 * t0 + w1 * t1 + w2 * t2 + w3 * t3;
    if (!planted<kFault>(Fault::kDroppedChannelBlock) || c != 0) attn += g * sample;
    dx += g * ((t1 - t0) * y0 + (t3 - t2) * y1);
    dy += g * ((t2 - t0) * x0 + (t3 - t1) * x1);
  }
  return {combine_lane_vector<Acc>(attn), combine_lane_vector<Acc>(dx),
          combine_lane_vector<Acc>(dy)};
}

/// The most channels any profile allows (MSDA-LIMIT-01).
inline constexpr int64_t kMaxChannels = 256;

/// A worker's copy of one (b, m) slice as the backward walks it: per key, the value row in the
/// compute type, then the key's double gradValue accumulator row (layout: workspace.h). A tap's
/// reads and its scatter touch one run of adjacent cache lines, and a sample's two x-neighbour
/// taps two adjacent runs, where the input's value row (heads * C elements from the next key's)
/// and a separate accumulator plane were two far-apart places per tap: about 10% off the fp32
/// encoder backward at 2 threads. Values are converted to the compute type once per slice, not
/// once per tap (about 20% off bf16).
template <typename Acc>
class SliceBlock {
 public:
  static constexpr int64_t kLoadAhead = 8;

  SliceBlock(std::byte* base, const Sizes& s)
      : base_(base),
        channels_(s.channels),
        padded_(lane_padded(s.channels)),
        row_bytes_(slice_row_bytes(s, sizeof(Acc))) {}

  /// The key's value row, zero past C up to lane_padded(C).
  const Acc* value(int64_t key) const { return reinterpret_cast<const Acc*>(row(key)); }
  double* sums(int64_t key) const {
    return reinterpret_cast<double*>(row(key) + padded_ * int64_t{sizeof(Acc)});
  }

  /// Copies the slice's value rows from `origin` (strides of keys and channels) and zeroes the
  /// sums (kClearSums false: a planted fault that trusts the workspace to be zero).
  template <typename T, bool kClearSums = true, bool kPadWithZeros = true>
  void load(const T* origin, int64_t key_stride, int64_t channel_stride, int64_t keys) {
    for (int64_t key = 0; key < keys; ++key) {
      const T* in = origin + key * key_stride;
      // The input's rows are heads * C elements apart: asked for a few keys ahead.
      if (key + kLoadAhead < keys)
        prefetch_row(in + kLoadAhead * key_stride, channels_ * channel_stride);
      auto* out = reinterpret_cast<Acc*>(row(key));
      int64_t c = 0;
      for (; c + kLanes <= channels_; c += kLanes) {
        const LaneVector<Acc> lanes = load_lanes<Acc>(in + c * channel_stride, channel_stride);
        std::memcpy(out + c, &lanes, sizeof lanes);
      }
      // The tail: fewer than kLanes channels (bounded so, the compiler sees no overflow).
      for (int64_t tail = 0; tail < kLanes && c < channels_; ++tail, ++c) {
        out[c] = static_cast<Acc>(in[c * channel_stride]);
      }
      if constexpr (kPadWithZeros) std::fill(out + channels_, out + padded_, Acc(0));
      if constexpr (kClearSums) std::fill_n(sums(key), channels_, 0.0);
    }
  }

 private:
  std::byte* row(int64_t key) const { return base_ + key * row_bytes_; }

  std::byte* base_;
  int64_t channels_, padded_, row_bytes_;
};

/// Queries a slice's backward takes together: located, and their gradOutput rows converted, in
/// one pass, then walked level by level.
inline constexpr int64_t kQueryBlock = 32;

/// A worker's per-block buffers: the block's located rows and gradOutput rows (compute type for
/// the channel sums, double for the scatter). No more rows than queries: small calls (the
/// fuzzers') pay for every allocation.
template <typename T>
struct BackwardScratch {
  explicit BackwardScratch(const Sizes& s)
      : located(std::min(kQueryBlock, s.queries), s.levels * s.points),
        grad(static_cast<size_t>(std::min(kQueryBlock, s.queries) * lane_padded(s.channels))),
        grad_wide(grad.size()) {}
  LocatedRows located;
  std::vector<compute_t<T>> grad;
  std::vector<double> grad_wide;
};

/// The backward of one (b, m) slice. Queries go in blocks: each block's samples are located and
/// its gradOutput rows converted first; then the block is walked level by level, so the value and
/// gradValue rows in use are one level's (a key lies on one level, so every key still receives
/// its terms in query order: the same sums as query by query). A sample's tap rows feed
/// gradLocation and gradAttnWeight (one writer per sample, channel sums in kLanes lanes) and are
/// scattered into the slice block's double accumulator rows, which are written out at the end.
/// C is at most 256 in every profile (MSDA-LIMIT-01); its rows are lane-padded with zeros
/// (lane_padded). kChannels > 0 is C known at compile time.
template <typename T, Fault kFault, bool kFused, int64_t kChannels>
GRADCONF_ALWAYS_INLINE void backward_slice(const Plan& plan, const SampleLevels& levels, int64_t b,
                                           int64_t m, std::byte* workspace,
                                           BackwardScratch<T>& scratch) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  const int64_t channels = kChannels > 0 ? kChannels : s.channels;
  const int64_t padded = lane_padded(channels);  // the gradOutput rows' stride in scratch
  const auto value = view_of<const T, 4>(plan.value);
  const auto location = view_of<const T, 6>(plan.location);
  const auto attn = view_of<const T, 5>(plan.attn_weight);
  const auto grad_output = view_of<const T, 4>(*plan.grad_output);
  const auto grad_value = view_of<T, 4>(*plan.grad_value);
  const auto grad_location = view_of<T, 6>(*plan.grad_location);
  const auto grad_attn = view_of<T, 5>(*plan.grad_attn_weight);
  const int64_t gs = grad_output.strides[3];
  SliceBlock<Acc> slice(workspace, s);
  const int64_t value_batch = planted<kFault>(Fault::kValueOfFirstBatch) ? 0 : b;
  const T* value_slice = value.origin + value_batch * value.strides[0] + m * value.strides[2];
  // The copy loop is hot: its two faults are compile-time variants chosen here.
  const auto load = [&]<bool kClearSums, bool kPadWithZeros>() {
    slice.template load<T, kClearSums, kPadWithZeros>(value_slice, value.strides[1],
                                                      value.strides[3], s.keys);
  };
  if (planted<kFault>(Fault::kWorkspaceAssumedZero)) {
    load.template operator()<false, true>();
  } else if (planted<kFault>(Fault::kLanePaddingUncleared)) {
    load.template operator()<true, false>();
  } else {
    load.template operator()<true, true>();
  }

  alignas(64) Acc zeros[kMaxChannels] = {};
  const int64_t samples = s.levels * s.points;
  const int64_t chunk = std::max<int64_t>(1, s.queries / num_threads());
  for (int64_t q0 = 0; q0 < s.queries; q0 += kQueryBlock) {
    const int64_t block = std::min(kQueryBlock, s.queries - q0);
    for (int64_t j = 0; j < block; ++j) {
      const int64_t q = q0 + j;
      const int64_t ahead = q + kQueryBlock;  // the next block's row: 1 KiB+ apart usually
      if (samples > 0 && ahead < s.queries) {
        prefetch_row(&location(b, ahead, m, 0, 0, 0), samples * 2);
        prefetch_row(&attn(b, ahead, m, 0, 0), samples);
        prefetch_row(&grad_output(b, ahead, m, 0), channels * gs);
        prefetch_row_for_write(&grad_location(b, ahead, m, 0, 0, 0),
                               &grad_location(b, ahead, m, s.levels - 1, s.points - 1, 1));
        prefetch_row_for_write(&grad_attn(b, ahead, m, 0, 0),
                               &grad_attn(b, ahead, m, s.levels - 1, s.points - 1));
      }
      const T* g = &grad_output(b, q, m, 0);
      // Past C the rows keep the zeros they were made with.
      Acc* grad = scratch.grad.data() + j * padded;
      double* grad_wide = scratch.grad_wide.data() + j * padded;
      for (int64_t c = 0; c < channels; ++c) {
        grad[c] = static_cast<Acc>(g[c * gs]);
        grad_wide[c] = static_cast<double>(g[c * gs]);
        if (planted<kFault>(Fault::kAbsGradOutput)) {
          grad[c] = std::abs(grad[c]);
          grad_wide[c] = std::abs(grad_wide[c]);
        }
      }
      if (samples > 0) {
        scratch.located.template locate<T, kFault>(location, attn, levels, s, b, q, m, j);
      }
    }
    for (int64_t l = 0; l < s.levels; ++l) {
      for (int64_t j = 0; j < block; ++j) {
        const int64_t q = q0 + j;
        if (planted<kFault>(Fault::kThreadDependentScatter)) {
          // Mutant: rounds the sums to float every Q / threads queries (thread-count dependent).
          if (q % chunk == 0) {
            for (int64_t key = 0; key < s.keys; ++key) {
              double* sums = slice.sums(key);
              for (int64_t c = 0; c < channels; ++c) sums[c] = float(sums[c]);
            }
          }
        }
        // The query's samples on this level are located: their value and gradValue rows are
        // requested before the first of them is read.
        for (int64_t i = l * s.points; i < (l + 1) * s.points; ++i) {
          const LocatedSample t = scratch.located.sample(j, i);
          for (int k = 0; k < 4; ++k) {
            if (t.key(k) < 0) continue;
            prefetch_row(slice.value(t.key(k)), channels);
            prefetch_row(slice.sums(t.key(k)), channels);
          }
        }
        const Acc* grad = scratch.grad.data() + j * padded;
        const double* grad_wide = scratch.grad_wide.data() + j * padded;
        for (int64_t p = 0; p < s.points; ++p) {
          const int64_t i = l * s.points + p;
          const LocatedSample t = scratch.located.sample(j, i);
          TapSums<Acc> sums = {0, 0, 0};
          const double a = scratch.located.weight(j, i);
          if (t.taken()) {
            const Acc* rows[4];
            for (int k = 0; k < 4; ++k) {
              // No pointer is formed for a tap outside the level.
              rows[k] = t.key(k) < 0 ? zeros : slice.value(t.key(k));
            }
            sums = tap_sums<Acc, kFault>(rows, grad, t, padded);
            const Level& level = levels.level[static_cast<size_t>(i)];
            const Acc width =
                planted<kFault>(Fault::kMissingWidthFactor) ? Acc(1) : Acc(level.width);
            sums.x *= Acc(a) * width;
            sums.y *= Acc(a) * Acc(level.height);
            for (int k = 0; k < 4; ++k) {
              if (t.key(k) >= 0)
                scatter_row<kFused>(slice.sums(t.key(k)), t.weight(k) * a, grad_wide, channels);
            }
          }
          grad_attn(b, q, m, l, p) = static_cast<T>(sums.attn);
          grad_location(b, q, m, l, p, 0) = static_cast<T>(sums.x);
          grad_location(b, q, m, l, p, 1) = static_cast<T>(sums.y);
        }
      }
    }
  }
  const int64_t out_stride = grad_value.strides[3];
  for (int64_t key = 0; key < s.keys; ++key) {
    const double* sums = slice.sums(key);
    T* out = &grad_value(b, key, m, 0);
    if (planted<kFault>(Fault::kWorkspaceAssumedZero)) {
      // Mutant: leaves the block zeroed for the next slice, but never clears it before the first.
      for (int64_t c = 0; c < channels; ++c) out[c * out_stride] = static_cast<T>(sums[c]);
      std::fill_n(slice.sums(key), channels, 0.0);
      continue;
    }
    // (The mutant kIgnoredGradValueStride stays inside the view's span: c < C.)
    if (out_stride == 1 || planted<kFault>(Fault::kIgnoredGradValueStride)) {
      for (int64_t c = 0; c < channels; ++c) out[c] = static_cast<T>(sums[c]);
    } else {
      for (int64_t c = 0; c < channels; ++c) out[c * out_stride] = static_cast<T>(sums[c]);
    }
  }
}

/// gradValue of a call that samples nothing (no queries, levels or points): zero everywhere.
template <typename T>
void zero_value_gradient(const Plan& plan) {
  zero_fill(view_of<T, 4>(*plan.grad_value));
}

/// gradLocation and gradAttnWeight of a call whose value is empty: zero everywhere.
template <typename T>
void zero_sample_gradients(const Plan& plan) {
  zero_fill(view_of<T, 6>(*plan.grad_location));
  zero_fill(view_of<T, 5>(*plan.grad_attn_weight));
}

template <typename T, Fault kFault>
void backward_slice_baseline(const Plan& plan, const SampleLevels& levels, int64_t b, int64_t m,
                             std::byte* workspace, BackwardScratch<T>& scratch) {
  backward_slice<T, kFault, false, 0>(plan, levels, b, m, workspace, scratch);
}

/// The channel count the AVX2 backward is also compiled for: Deformable-DETR's head width (d_model
/// 256 over 8 heads). Known at compile time, the channel loops unroll and a query's gradOutput
/// stays in registers: about a tenth of the backward's time on the encoder case.
inline constexpr int64_t kUnrolledChannels = 32;

template <typename T, Fault kFault>
GRADCONF_TARGET_AVX2 void backward_slice_avx2(const Plan& plan, const SampleLevels& levels,
                                              int64_t b, int64_t m, std::byte* workspace,
                                              BackwardScratch<T>& scratch) {
  if (plan.sizes.channels == kUnrolledChannels) {
    backward_slice<T, kFault, true, kUnrolledChannels>(plan, levels, b, m, workspace, scratch);
  } else {
    backward_slice<T, kFault, true, 0>(plan, levels, b, m, workspace, scratch);
  }
}

template <typename T, Fault kFault>
void backward_kernel(const Plan& plan, std::byte* workspace) {
  const Sizes s = plan.sizes;
  const SampleLevels levels = sample_levels(effective_levels<kFault>(plan.levels), s.points);
  const int64_t slices = s.batch * s.heads;
  if (slices == 0) return;
  if (s.keys == 0 || s.channels == 0) {
    zero_sample_gradients<T>(plan);  // an empty value: no pointer into it may even be formed
    return;
  }
  if (samples_nothing(s)) {  // phase 1 gave no workspace for it
    zero_value_gradient<T>(plan);
    return;
  }
  const uint64_t block = *slice_block_bytes(s, sizeof(compute_t<T>));
  const bool avx2 = kernel_isa() != Isa::kBaseline;
  // A slice's samples each read four taps and scatter into four rows, over C channels.
  const double slice_work = 16.0 * static_cast<double>(s.queries) *
                            static_cast<double>(s.levels * s.points) *
                            static_cast<double>(s.channels);
  parallel_for(
      0, slices, grain_for_work(slice_work),
      [&](int64_t lo, int64_t hi) {
        std::byte* own = workspace + block * static_cast<uint64_t>(worker_index());
        BackwardScratch<T> scratch(s);
        for (int64_t slice = lo; slice < hi; ++slice) {
          const int64_t b = slice / s.heads, m = slice % s.heads;
          if (avx2) {
            backward_slice_avx2<T, kFault>(plan, levels, b, m, own, scratch);
          } else {
            backward_slice_baseline<T, kFault>(plan, levels, b, m, own, scratch);
          }
        }
      },
      plan.workers);
}

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_KERNELS_H_
