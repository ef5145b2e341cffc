// NOTE: Naive double-precision oracle for MultiScaleDeformableAttention, written straight from
// ../shared/spec/multi_scale_deformable_attention.md with no code shared with the kernels, so that
// a bug in one cannot cancel out in the other. Tensors are logical row-major vectors.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_REFERENCE_REFERENCE_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_REFERENCE_REFERENCE_H_

#include <cstdint>
#include <vector>

namespace gradconf::msda::reference {

struct Dims {
  int64_t batch = 0, keys = 0, heads = 0, channels = 0, queries = 0, levels = 0, points = 0;
};

/// spatialShape rows (H, W) and levelStartIndex, one entry per level.
struct LevelTable {
  std::vector<int64_t> height, width, start;
};

/// output (bs, Q, heads, C) from value (bs, keys, heads, C), location (bs, Q, heads, L, P, 2)
/// and attnWeight (bs, Q, heads, L, P).
std::vector<double> forward(const Dims& d, const LevelTable& levels,
                            const std::vector<double>& value, const std::vector<double>& location,
                            const std::vector<double>& attn_weight);

struct Gradients {
  std::vector<double> value, location, attn_weight;
};

Gradients backward(const Dims& d, const LevelTable& levels, const std::vector<double>& value,
                   const std::vector<double>& location, const std::vector<double>& attn_weight,
                   const std::vector<double>& grad_output);

/// forward() and backward() summing the magnitudes of the terms instead of the terms: per
/// element, sum |term| (the scale its rounding grows with when the terms cancel).
std::vector<double> forward_term_magnitudes(const Dims& d, const LevelTable& levels,
                                            const std::vector<double>& value,
                                            const std::vector<double>& location,
                                            const std::vector<double>& attn_weight);
Gradients backward_term_magnitudes(const Dims& d, const LevelTable& levels,
                                   const std::vector<double>& value,
                                   const std::vector<double>& location,
                                   const std::vector<double>& attn_weight,
                                   const std::vector<double>& grad_output);

}  // namespace gradconf::msda::reference

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_REFERENCE_REFERENCE_H_
