#include "families/grid_sampler2d/traits.h"
#include "families/grid_sampler2d/gen.h"

#include <algorithm>
#include <cmath>

#include "ops/grid_sampler2d/reference/reference.h"

namespace gradconf::props {

using grid_sampler2d::Role;

GridSampler2DTraits::Problem GridSampler2DTraits::as_forward(Problem p) {
  p.entry = Direction::kForward;
  p.output_mask = std::array<bool, 2>{true, true};
  return p;
}

std::vector<TermMagnitudes<Role>> GridSampler2DTraits::reference_magnitudes(const Problem& p,
                                                                            const Call& call) {
  namespace ref = grid_sampler2d::reference;
  using grid_sampler2d::Interpolation;
  const ref::Dims dims{p.n, p.c, p.in_h, p.in_w, p.out_h, p.out_w};
  const ref::Attrs attrs{static_cast<int64_t>(p.interpolation), static_cast<int64_t>(p.padding),
                         p.align_corners, p.dtype != ACL_DOUBLE};
  const auto& grid = gs::tensor(call, Role::kGrid).values;
  // Products one element sums: a point's taps (out), every point's taps that can land on one
  // pixel (inputGrad: bicubic's clamped taps can repeat a pixel), each channel's taps (gridGrad).
  const bool bicubic = p.interpolation == Interpolation::kBicubic;
  const int64_t taps = bicubic ? 16 : p.interpolation == Interpolation::kNearest ? 1 : 4;
  // Only bicubic's weights are computed factors whose evaluation scale differs from their
  // magnitude; elsewhere the scales are left empty (the magnitudes stand for them).
  if (p.entry == Direction::kForward) {
    std::vector<double> abs_input = gs::tensor(call, Role::kInput).values;
    for (double& v : abs_input) v = std::fabs(v);
    return {{Role::kOut, ref::forward_with_weight_magnitudes(dims, attrs, abs_input, grid), taps,
             bicubic ? ref::forward_evaluation_scales(dims, attrs, abs_input, grid)
                     : std::vector<double>{}}};
  }
  const auto& input = gs::tensor(call, Role::kInput).values;
  const auto& grad_output = gs::tensor(call, Role::kGradOutput).values;
  auto sums = ref::backward_term_magnitudes(dims, attrs, grad_output, input, grid);
  auto scales = bicubic ? ref::backward_evaluation_scales(dims, attrs, grad_output, input, grid)
                        : ref::Gradients{};
  return {{Role::kInputGrad, std::move(sums.input_grad), p.out_h * p.out_w * taps,
           std::move(scales.input_grad)},
          {Role::kGridGrad, std::move(sums.grid_grad), p.c * taps, std::move(scales.grid_grad)}};
}

// Outputs zero by construction, for every input value: nearest sampling's gridGrad (the spec
// makes it 0), gridGrad summed over no channel (C = 0) and inputGrad summed over no grid point
// (Hout or Wout = 0; E-GS-8 zero-fills both), like MSDA's sums over no channel. They are still
// compared element by element, and judged as the zero fill the spec asks of them, not mistrusted.
std::vector<ExpectedOutput> GridSampler2DTraits::reference(const Problem& p, const Call& call) {
  std::vector<ExpectedOutput> expected = TraitsDefaults::reference(p, call);
  const std::vector<int> wanted = wanted_outputs(p, call);
  std::erase_if(expected, [&wanted](const ExpectedOutput& e) {
    return std::find(wanted.begin(), wanted.end(), e.tensor) == wanted.end();
  });
  const bool no_points = p.out_h * p.out_w == 0;
  const bool constant_grid_grad =
      p.c == 0 || p.interpolation == grid_sampler2d::Interpolation::kNearest;
  for (ExpectedOutput& e : expected) {
    if ((e.name == "gridGrad" && constant_grid_grad) || (e.name == "inputGrad" && no_points)) {
      e.structural_zeros = static_cast<int64_t>(e.values.size());
    }
  }
  return expected;
}

std::vector<int> GridSampler2DTraits::wanted_outputs(const Problem& p, const Call& call) {
  std::vector<int> indices;
  for (Role role : p.outputs()) {
    if (p.wants(role)) indices.push_back(gs::index_of(call, role));
  }
  return indices;
}

std::vector<Differentiable> GridSampler2DTraits::differentiable(const Problem&) {
  return {{"input", "out", "gradOutput", "inputGrad", true},
          {"grid", "out", "gradOutput", "gridGrad", false}};
}

double GridSampler2DTraits::adjoint_magnitude(const Problem& p, const Call& forward,
                                              const Call& backward, const Differentiable& d) {
  namespace ref = grid_sampler2d::reference;
  std::vector<double> abs_input = forward.tensors[role_at(forward, d.input)].values;
  for (double& v : abs_input) v = std::fabs(v);
  const ref::Dims dims{p.n, p.c, p.in_h, p.in_w, p.out_h, p.out_w};
  const ref::Attrs attrs{static_cast<int64_t>(p.interpolation), static_cast<int64_t>(p.padding),
                         p.align_corners, p.dtype != ACL_DOUBLE};
  const auto abs_out = ref::forward_with_weight_magnitudes(dims, attrs, abs_input,
                                                           gs::tensor(forward, Role::kGrid).values);
  const auto& g = backward.tensors[role_at(backward, d.incoming)].values;
  double magnitude = 0;
  for (size_t j = 0; j < abs_out.size() && j < g.size(); ++j)
    magnitude += abs_out[j] * std::fabs(g[j]);
  return magnitude;
}

GridSampler2DTraits::Problem GridSampler2DTraits::smooth_double(Problem p) {
  // DOUBLE is a seed dtype for GridSampler2D: the profile (and with it the modes) stays.
  p.dtype = ACL_DOUBLE;
  p.grid_fill = grid_sampler2d::GridFill::kSmooth;
  p.output_mask = std::array<bool, 2>{true, true};
  for (auto& layout : p.layouts) layout.broadcast = 0;
  return p;
}

std::vector<std::string> GridSampler2DTraits::tags(const Problem& p) { return gs::problem_tags(p); }

}  // namespace gradconf::props
