// NOTE: data flows per (batch, query, head) row: each of its L*P samples is located once (guard,
// taps, weights in double), then its taps are read across the C channels of value, which are
// contiguous in the usual layout (the inner loops run over c). The forward and the gradients of
// location and attention weight have one writer per row. gradValue is a scatter from every query
// onto the keys it sampled: each (batch, head) slice has one worker, which walks the queries in
// order into a double accumulator plane (keys x C) in the workspace and then writes the slice.
// So every element has one writer computing in a fixed order: bitwise identical results for any
// thread count.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_KERNELS_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_KERNELS_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/executor.h"
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
  int workers = 1;  ///< gradValue accumulator planes planned in phase 1
};

template <typename T, Fault kFault>
void forward_kernel(const Plan& plan) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  const auto value = view_of<const T, 4>(plan.value);
  const auto location = view_of<const T, 6>(plan.location);
  const auto attn = view_of<const T, 5>(plan.attn_weight);
  const auto output = view_of<T, 4>(plan.output);
  const std::vector<Level> levels = effective_levels<kFault>(plan.levels);
  const int64_t rows = s.batch * s.queries * s.heads;
  if (rows == 0 || s.channels == 0) return;
  parallel_for(0, rows, 8, [&](int64_t lo, int64_t hi) {
    std::vector<Acc> acc(static_cast<size_t>(s.channels));
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t m = row % s.heads, q = row / s.heads % s.queries, b = row / s.heads / s.queries;
      std::fill(acc.begin(), acc.end(), Acc(0));
      for (int64_t l = 0; l < s.levels; ++l) {
        for (int64_t p = 0; p < s.points; ++p) {
          const Taps t = locate<kFault>(static_cast<double>(location(b, q, m, l, p, 0)),
                                        static_cast<double>(location(b, q, m, l, p, 1)),
                                        levels[static_cast<size_t>(l)]);
          if (!t.taken) continue;
          const double a = static_cast<double>(attn(b, q, m, l, p));
          for (int k = 0; k < 4; ++k) {
            if (t.key[k] < 0) continue;
            const Acc w = static_cast<Acc>(t.weight[k] * a);
            const T* v = &value(b, t.key[k], m, 0);
            const int64_t vs = value.strides[3];
            // Per-channel sums: a unit-stride loop vectorises and gives the same bits.
            if (vs == 1) {
              for (int64_t c = 0; c < s.channels; ++c) acc[c] += w * static_cast<Acc>(v[c]);
            } else {
              for (int64_t c = 0; c < s.channels; ++c) acc[c] += w * static_cast<Acc>(v[c * vs]);
            }
          }
        }
      }
      for (int64_t c = 0; c < s.channels; ++c) output(b, q, m, c) = static_cast<T>(acc[c]);
    }
  });
}

template <typename T, Fault kFault>
void backward_kernel(const Plan& plan, std::byte* workspace) {
  using Acc = compute_t<T>;
  const Sizes s = plan.sizes;
  const auto value = view_of<const T, 4>(plan.value);
  const auto location = view_of<const T, 6>(plan.location);
  const auto attn = view_of<const T, 5>(plan.attn_weight);
  const auto grad_output = view_of<const T, 4>(*plan.grad_output);
  const auto grad_value = view_of<T, 4>(*plan.grad_value);
  const auto grad_location = view_of<T, 6>(*plan.grad_location);
  const auto grad_attn = view_of<T, 5>(*plan.grad_attn_weight);
  const std::vector<Level> levels = effective_levels<kFault>(plan.levels);
  const int64_t vs = value.strides[3], gs = grad_output.strides[3];

  // gradLocation and gradAttnWeight: one writer per (b, q, m, l, p).
  const int64_t rows = s.batch * s.queries * s.heads;
  parallel_for(0, rows, 8, [&](int64_t lo, int64_t hi) {
    std::array<std::vector<Acc>, 4> taps;
    for (auto& tap : taps) tap.resize(static_cast<size_t>(s.channels));
    std::vector<Acc> grad(static_cast<size_t>(s.channels));
    for (int64_t row = lo; row < hi; ++row) {
      const int64_t m = row % s.heads, q = row / s.heads % s.queries, b = row / s.heads / s.queries;
      if (s.channels > 0) {
        const T* g = &grad_output(b, q, m, 0);
        for (int64_t c = 0; c < s.channels; ++c) grad[c] = static_cast<Acc>(g[c * gs]);
      }
      for (int64_t l = 0; l < s.levels; ++l) {
        const Level& level = levels[static_cast<size_t>(l)];
        for (int64_t p = 0; p < s.points; ++p) {
          const Taps t = locate<kFault>(static_cast<double>(location(b, q, m, l, p, 0)),
                                        static_cast<double>(location(b, q, m, l, p, 1)), level);
          Acc g_attn = 0, g_x = 0, g_y = 0;
          if (t.taken) {
            const Acc w[4] = {Acc(t.weight[0]), Acc(t.weight[1]), Acc(t.weight[2]),
                              Acc(t.weight[3])};
            const Acc tx = Acc(t.tx), ty = Acc(t.ty);
            // The channel sums run in kLanes interleaved partial sums (channel c in lane c % 8),
            // combined in a fixed tree: a fixed order that vectorises, whatever the strides. The
            // four tap rows are first gathered into contiguous buffers (zeros outside the level).
            Acc lanes_attn[kLanes] = {}, lanes_x[kLanes] = {}, lanes_y[kLanes] = {};
            for (int k = 0; k < 4; ++k) {
              Acc* out = taps[k].data();
              if (t.key[k] < 0 || s.channels == 0) {
                std::fill(out, out + s.channels, Acc(0));
              } else if (const T* row = &value(b, t.key[k], m, 0); vs == 1) {
                for (int64_t c = 0; c < s.channels; ++c) out[c] = static_cast<Acc>(row[c]);
              } else {
                for (int64_t c = 0; c < s.channels; ++c) out[c] = static_cast<Acc>(row[c * vs]);
              }
            }
            const Acc* t0 = taps[0].data();
            const Acc* t1 = taps[1].data();
            const Acc* t2 = taps[2].data();
            const Acc* t3 = taps[3].data();
            const Acc* gc = grad.data();
            for (int64_t c0 = 0; c0 < s.channels; c0 += kLanes) {
              const Acc keep_attn =
                  kFault == Fault::kDroppedChannelBlock && c0 == 0 ? Acc(0) : Acc(1);
              for (int j = 0; j < kLanes; ++j) {
                const int64_t c = c0 + j;
                const Acc sample = w[0] * t0[c] + w[1] * t1[c] + w[2] * t2[c] + w[3] * t3[c];
                lanes_attn[j] += keep_attn * (gc[c] * sample);
                lanes_x[j] += gc[c] * ((t1[c] - t0[c]) * (1 - ty) + (t3[c] - t2[c]) * ty);
                lanes_y[j] += gc[c] * ((t2[c] - t0[c]) * (1 - tx) + (t3[c] - t1[c]) * tx);
              }
            }
            g_attn = combine_lanes(lanes_attn);
            g_x = combine_lanes(lanes_x);
            g_y = combine_lanes(lanes_y);
            const Acc a = static_cast<Acc>(attn(b, q, m, l, p));
            const Acc width = kFault == Fault::kMissingWidthFactor ? Acc(1) : Acc(level.width);
            g_x *= a * width;
            g_y *= a * Acc(level.height);
          }
          grad_attn(b, q, m, l, p) = static_cast<T>(g_attn);
          grad_location(b, q, m, l, p, 0) = static_cast<T>(g_x);
          grad_location(b, q, m, l, p, 1) = static_cast<T>(g_y);
        }
      }
    }
  });

  // gradValue: one worker per (b, m) slice, queries in order, into its double plane.
  const int64_t slices = s.batch * s.heads;
  if (slices == 0 || s.keys == 0 || s.channels == 0) return;
  const uint64_t plane = *plane_bytes(s);
  const int threads = num_threads();
  parallel_for(
      0, slices, 1,
      [&](int64_t lo, int64_t hi) {
        auto* acc =
            reinterpret_cast<double*>(workspace + plane * static_cast<uint64_t>(worker_index()));
        for (int64_t slice = lo; slice < hi; ++slice) {
          const int64_t b = slice / s.heads, m = slice % s.heads;
          std::fill(acc, acc + s.keys * s.channels, 0.0);
          // Mutant: rounds the sums to float every Q / threads queries (thread-count dependent).
          const int64_t chunk = std::max<int64_t>(1, s.queries / threads);
          for (int64_t q = 0; q < s.queries; ++q) {
            if constexpr (kFault == Fault::kThreadDependentScatter) {
              if (q % chunk == 0) {
                for (int64_t i = 0; i < s.keys * s.channels; ++i) acc[i] = float(acc[i]);
              }
            }
            const T* g = &grad_output(b, q, m, 0);
            for (int64_t l = 0; l < s.levels; ++l) {
              for (int64_t p = 0; p < s.points; ++p) {
                const Taps t = locate<kFault>(static_cast<double>(location(b, q, m, l, p, 0)),
                                              static_cast<double>(location(b, q, m, l, p, 1)),
                                              levels[static_cast<size_t>(l)]);
                if (!t.taken) continue;
                const double a = static_cast<double>(attn(b, q, m, l, p));
                for (int k = 0; k < 4; ++k) {
                  if (t.key[k] < 0) continue;
                  const double w = t.weight[k] * a;
                  double* row = acc + t.key[k] * s.channels;
                  if (gs == 1) {
                    for (int64_t c = 0; c < s.channels; ++c)
                      row[c] += w * static_cast<double>(g[c]);
                  } else {
                    for (int64_t c = 0; c < s.channels; ++c) {
                      row[c] += w * static_cast<double>(g[c * gs]);
                    }
                  }
                }
              }
            }
          }
          for (int64_t key = 0; key < s.keys; ++key) {
            const double* row = acc + key * s.channels;
            for (int64_t c = 0; c < s.channels; ++c)
              grad_value(b, key, m, c) = static_cast<T>(row[c]);
          }
        }
      },
      plan.workers);
}

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_KERNELS_H_
