// The softmax of NsaSelectedAttention's score rows, over their unmasked columns: the forward's
// (max, exponentials, sum, division; the statistics it saves) and the backward's P from those
// statistics. Floats run in lanes (core/lanes.h) with the scalar loops' bits where a test pins
// them (unmasked_max); every path and thread count gives the same bits.
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_SOFTMAX_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_SOFTMAX_H_

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/isa.h"
#include "core/lanes.h"

namespace gradconf::nsa {

template <typename Acc>
using Matrix = Eigen::Matrix<Acc, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// is_masked[0..count) as lanes, all ones where masked (zeros past count). Rows are mostly
/// unmasked: the 8 flags are read as one word, and only a nonzero word is spread over the lanes
/// (GCC spreads bytes one by one).
GRADCONF_ALWAYS_INLINE MaskLanes mask_lanes(const uint8_t* is_masked, size_t count) {
  uint64_t flags = 0;
  std::memcpy(&flags, is_masked, count);
  if (flags == 0) return MaskLanes{};
  typedef uint8_t ByteLanes __attribute__((vector_size(kLanes)));
  ByteLanes bytes;
  std::memcpy(&bytes, &flags, sizeof bytes);
  return __builtin_convertvector(bytes, MaskLanes) != 0;
}

GRADCONF_ALWAYS_INLINE bool masked_any(MaskLanes masked) {
  uint64_t words[sizeof masked / sizeof(uint64_t)];
  std::memcpy(words, &masked, sizeof masked);
  return (words[0] | words[1] | words[2] | words[3]) != 0;
}

/// row[j] = f(row[j..j + kLanes), j) for j < cols in steps of kLanes (the last step's lanes past
/// cols read as zeros and are not stored), on the widest ISA path.
template <typename F>
void map_float_lanes(float* row, int64_t cols, F f) {
  on_widest_isa([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
    for_lane_steps(cols, [&](int64_t j, size_t count) GRADCONF_ALWAYS_INLINE_LAMBDA {
      LaneVector<float> v = {};
      std::memcpy(&v, row + j, count * sizeof(float));
      v = f(v, j, count);
      std::memcpy(row + j, &v, count * sizeof(float));
    });
  });
}

/// row[j] = e^(row[j] - m) / divisor, or 0 where is_masked[j], for j < cols: floats in lanes
/// (exp_lanes), doubles by std::exp. (Dividing by 1 changes no bit, so the floats skip it.)
template <typename Acc>
void exp_over(Acc* row, int64_t cols, Acc m, Acc divisor, const uint8_t* is_masked) {
  if constexpr (std::is_same_v<Acc, float>) {
    const auto run = [&](auto divide) {
      map_float_lanes(
          row, cols,
          [&](LaneVector<float> v, int64_t j, size_t count) GRADCONF_ALWAYS_INLINE_LAMBDA {
            const LaneVector<float> e = exp_lanes(v - m);
            const LaneVector<float> p = divide ? e / divisor : e;
            const MaskLanes masked = mask_lanes(is_masked + j, count);
            return masked_any(masked) ? select_lanes(masked, LaneVector<float>{}, p) : p;
          });
    };
    if (divisor == 1.0f) {
      run(std::false_type{});
    } else {
      run(std::true_type{});
    }
  } else {
    for (int64_t j = 0; j < cols; ++j)
      row[j] = is_masked[j] ? Acc(0) : std::exp(row[j] - m) / divisor;
  }
}

/// row[j] /= divisor for j < cols (floats in lanes: each quotient is the scalar one).
template <typename Acc>
void divide_row(Acc* row, int64_t cols, Acc divisor) {
  if constexpr (std::is_same_v<Acc, float>) {
    map_float_lanes(row, cols,
                    [&](LaneVector<float> v, int64_t, size_t)
                        GRADCONF_ALWAYS_INLINE_LAMBDA { return v / divisor; });
  } else {
    for (int64_t j = 0; j < cols; ++j) row[j] /= divisor;
  }
}

/// The first unmasked row[j] raised by std::max over the later unmasked ones; nothing when every
/// column is masked. Floats run in lanes: a maximum is the same value in any order, so the lanes
/// give the serial loop's bits, except where a NaN or a zero's sign could come out differently;
/// those rows take the serial loop.
template <typename Acc>
std::optional<Acc> unmasked_max(const Acc* row, int64_t cols, const uint8_t* is_masked) {
  const auto serial = [&] {
    std::optional<Acc> m;
    for (int64_t j = 0; j < cols; ++j) {
      if (!is_masked[j]) m = m ? std::max(*m, row[j]) : row[j];
    }
    return m;
  };
  if constexpr (std::is_same_v<Acc, float>) {
    using V = LaneVector<float>;
    V m = V{} - __builtin_huge_valf();
    MaskLanes seen = {}, not_a_number = {};
    on_widest_isa([&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
      for_lane_steps(cols, [&](int64_t j, size_t count) GRADCONF_ALWAYS_INLINE_LAMBDA {
        V v = {};
        std::memcpy(&v, row + j, count * sizeof(float));
        MaskLanes valid = ~mask_lanes(is_masked + j, count);
        if (count < kLanes)
          valid &= MaskLanes{0, 1, 2, 3, 4, 5, 6, 7} < static_cast<int32_t>(count);
        seen |= valid;
        not_a_number |= valid & (v != v);
        m = select_lanes(valid & (m < v), v, m);
      });
    });
    bool any = false, nan = false;
    float best = -__builtin_huge_valf();
    for (int lane = 0; lane < kLanes; ++lane) {
      nan = nan || not_a_number[lane] != 0;
      if (seen[lane] == 0) continue;
      any = true;
      best = std::max(best, m[lane]);
    }
    if (nan || best == 0.0f) return serial();
    return any ? std::optional<float>(best) : std::nullopt;
  } else {
    return serial();
  }
}

/// softmaxMax of a fully masked row: -inf "represented as the lowest float" (spec Decision), in
/// every statistics dtype.
inline constexpr double kMaskedRowMax = -static_cast<double>(std::numeric_limits<float>::max());

/// Softmax of each row of `scores` in place over unmasked columns: P, and (m, l) per row. A fully
/// masked row gets P = 0, m = kMaskedRowMax, l = 0 (spec Decision).
template <typename Acc>
void softmax_rows(Matrix<Acc>& scores, const std::vector<uint8_t>& is_masked, Acc* max_out,
                  Acc* sum_out) {
  for (int64_t g = 0; g < scores.rows(); ++g) {
    Acc* row = scores.row(g).data();
    const std::optional<Acc> m = unmasked_max(row, scores.cols(), is_masked.data());
    Acc l = 0;
    if (m) {
      exp_over(row, scores.cols(), *m, Acc(1), is_masked.data());
      l = sum_lanes(row, scores.cols());
    }
    if (l > 0) {
      divide_row(row, scores.cols(), l);
    } else {
      std::fill_n(row, scores.cols(), Acc(0));
    }
    max_out[g] = m ? *m : static_cast<Acc>(kMaskedRowMax);
    sum_out[g] = l;
  }
}

/// P of one score row from the saved statistics: exp(S - m) / l, 0 where masked or l == 0.
template <typename Acc>
void probabilities_from_stats(Acc* row, int64_t cols, const uint8_t* is_masked, Acc m, Acc l) {
  if (!(l > 0)) {
    std::fill_n(row, cols, Acc(0));
    return;
  }
  exp_over(row, cols, m, l, is_masked);
}

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_SOFTMAX_H_
