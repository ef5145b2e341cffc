// NOTE: This is the double-precision oracle for GridSampler2D (forward and backward). It is written
// for obviousness, not speed: plain loops, one output element per loop body where the math allows,
// an explicit 4-tap corner table and PyTorch-style named helpers. It includes nothing from the
// kernels (only the C++ standard library), so a bug in a shared helper cannot make the kernels and
// the oracle agree by accident. Semantics: ../shared/spec/grid_sampler2d.md.
#pragma once

#include <cstdint>
#include <vector>

namespace gradconf::grid_sampler2d::reference {

/// Logical sizes of the problem. Tensors are contiguous row-major:
/// input and input_grad (n, c, in_h, in_w); grid and grid_grad (n, out_h, out_w, 2);
/// out and grad_output (n, c, out_h, out_w).
///
/// Precondition (not checked; the oracle rejects nothing): every size is >= 0, every vector has
/// exactly the element count its shape implies, and in_h, in_w >= 1 whenever some point is sampled
/// (the API rejects in_h == 0 or in_w == 0). Any size may be 0; results are then correctly sized
/// (possibly empty) vectors.
struct Dims {
  int64_t n, c, in_h, in_w, out_h, out_w;
};

/// Operator attributes, with the C API's integer encodings.
struct Attrs {
  int64_t interpolation = 0;  ///< 0 bilinear, 1 nearest, 2 bicubic (PyTorch's, A = -0.75).
  int64_t padding = 0;        ///< 0 zeros, 1 border, 2 reflection.
  bool align_corners = false;
  /// The coordinate's compute type (spec "Coordinate precision"): float for FLOAT, FLOAT16 and
  /// BFLOAT16 problems, double for DOUBLE. Only unnormalize and padding use it; everything after
  /// the coordinate is double.
  bool float_coordinates = false;
};

/// Samples `input` (n, c, in_h, in_w) at the points of `grid` (n, out_h, out_w, 2), where
/// grid[..., 0] is x (width) and grid[..., 1] is y (height) in [-1, 1] normalized coordinates.
/// Returns out (n, c, out_h, out_w). A point whose unnormalized, padded coordinate is NaN, +-inf or
/// has magnitude > 2^31 - 2 samples 0. Bicubic pads each of its 16 taps instead of the coordinate
/// (PyTorch), so there only a non-finite unnormalized coordinate drops the point.
std::vector<double> forward(const Dims& dims, const Attrs& attrs, const std::vector<double>& input,
                            const std::vector<double>& grid);

/// forward() with every tap weight replaced by its magnitude: with |input|, the sum of the
/// magnitudes of each output's terms (bicubic weights can be negative).
std::vector<double> forward_with_weight_magnitudes(const Dims& dims, const Attrs& attrs,
                                                   const std::vector<double>& input,
                                                   const std::vector<double>& grid);

/// forward() with every tap weight replaced by the scale its evaluation errs in (bicubic's are
/// products of two cubics, each off by a few ulps of its monomials' magnitude M: M_a |b| +
/// |a| M_b; bilinear's by their magnitude, as forward_with_weight_magnitudes): with |input|, per
/// output the scale of its products' rounding, which near a cubic's root far exceeds the products
/// themselves.
std::vector<double> forward_evaluation_scales(const Dims& dims, const Attrs& attrs,
                                              const std::vector<double>& input,
                                              const std::vector<double>& grid);

/// Both gradients of the backward pass, always fully computed.
struct Gradients {
  std::vector<double> input_grad;  ///< Shape of input; 0 where no sample lands.
  std::vector<double>
      grid_grad;  ///< Shape of grid; exactly 0 for nearest and out-of-bounds points.
};

/// Gradients of sum(grad_output * forward(input, grid)) with respect to input and grid, where
/// grad_output has shape (n, c, out_h, out_w). The grid gradient uses PyTorch's conventions (border
/// clamp has derivative 0 at and beyond the border; nearest has zero grid gradient).
Gradients backward(const Dims& dims, const Attrs& attrs, const std::vector<double>& grad_output,
                   const std::vector<double>& input, const std::vector<double>& grid);

/// backward() summing the magnitudes of the terms instead of the terms: per element of each
/// gradient, sum |term| (the scale its rounding grows with when the terms cancel).
Gradients backward_term_magnitudes(const Dims& dims, const Attrs& attrs,
                                   const std::vector<double>& grad_output,
                                   const std::vector<double>& input,
                                   const std::vector<double>& grid);
/// backward() over the evaluation scales of its terms (as forward_evaluation_scales).
Gradients backward_evaluation_scales(const Dims& dims, const Attrs& attrs,
                                     const std::vector<double>& grad_output,
                                     const std::vector<double>& input,
                                     const std::vector<double>& grid);

}  // namespace gradconf::grid_sampler2d::reference
