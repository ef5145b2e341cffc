// GridSampler2D's traits for the laws (see traits.h).
#ifndef GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_TRAITS_H_
#define GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_TRAITS_H_

#include <algorithm>

#include <string>
#include <vector>

#include "families/grid_sampler2d/entries.h"
#include "laws/law.h"
#include "registry/traits_defaults.h"

namespace gradconf::props {

struct GridSampler2DTraits : TraitsDefaults<GridSampler2DTraits, grid_sampler2d::Problem> {
  static constexpr std::string_view kIncomingGradient = "gradOutput";
  /// Coverage tags of a problem (the generators' and fuzzers' vocabulary), for reports.
  static std::vector<std::string> tags(const Problem& p);

  static Call make_call(const Problem& p) { return gs::make_call(p); }
  /// The forward computes its one output whatever the backward's outputMask said.
  static Problem as_forward(Problem p);
  static auto reference_values(const Problem& p, const Call& call) {
    return gs::reference_outputs(p, call);
  }
  static std::vector<TermMagnitudes<grid_sampler2d::Role>> reference_magnitudes(const Problem& p,
                                                                                const Call& call);
  /// The defaults', for the wanted outputs only (outputMask).
  static std::vector<ExpectedOutput> reference(const Problem& p, const Call& call);
  static std::vector<int> wanted_outputs(const Problem& p, const Call& call);
  /// No: the coordinate is computed in float for FLOAT/FLOAT16/BFLOAT16 and in double for DOUBLE
  /// (spec "Coordinate precision"), so at a nearest tie, an integer coordinate (gridGrad's kink) or
  /// the border a float run and a float64 run of the same grid differ by design. Each dtype is held
  /// to the reference computed with its own coordinate type instead.
  static bool same_semantics_in_float64(const Problem&) { return false; }
  /// Backward problems with every output wanted (laws that need all gradients).
  static Problem with_all_outputs(Problem p) {
    p.output_mask = std::array<bool, 2>{true, true};
    return p;
  }
  /// grid (nonlinear, kinks at integer/half-integer coordinates and the border) and input
  /// (linear) for bilinear; nearest's grid gradient is 0 by definition and still checked.
  static std::vector<Differentiable> differentiable(const Problem& p);
  /// sum_j |g_j| * sum_taps w |u_tap|: the sum of |terms| of <forward(u), g>.
  static double adjoint_magnitude(const Problem& p, const Call& forward, const Call& backward,
                                  const Differentiable& d);
  /// Double (a seed dtype here: the profile stays), both outputs, grid away from every kink, no
  /// broadcast layouts (a perturbation of one logical element is not constant along a broadcast
  /// dim).
  static Problem smooth_double(Problem p);
  /// Longest sum in the compute type: the inputGrad scatter visits every point of a batch.
  static int64_t accumulation_length(const Problem& p) {
    return std::max<int64_t>(4, p.out_h * p.out_w);
  }
  static int64_t batch_size(const Problem& p) { return p.n; }
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_TRAITS_H_
