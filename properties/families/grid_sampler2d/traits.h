// GridSampler2D's traits for the laws (see traits.h).
#ifndef GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_TRAITS_H_
#define GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_TRAITS_H_

#include <algorithm>

#include <string>
#include <vector>

#include "families/grid_sampler2d/entries.h"
#include "laws/traits.h"

namespace gradconf::props {

struct GridSampler2DTraits {
  using Problem = grid_sampler2d::Problem;
  /// Coverage tags of a problem (the generators' and fuzzers' vocabulary), for reports.
  static std::vector<std::string> tags(const Problem& p);
  using Call = props::Call;

  static const Backend& default_backend() { return Backend::linked(); }
  static std::string repro(const Problem& p) { return p.to_repro(); }
  static Call make_call(const Problem& p) { return gs::make_call(p); }
  static Problem as_forward(Problem p);
  static Problem as_backward(Problem p);
  static Outcome run(const Call& call, const RunOptions& options, const Backend& backend) {
    return props::run(call, options, backend);
  }
  static std::vector<ExpectedOutput> reference(const Problem& p, const Call& call);
  static std::vector<int> wanted_outputs(const Problem& p, const Call& call);
  static aclDataType dtype(const Problem& p) { return p.dtype; }
  static std::string_view op_name(const Problem& p) { return p.op_name(); }
  static Problem with_dtype(Problem p, aclDataType dtype);
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
  /// Double, extended profile, both outputs, grid drawn away from every kink, no broadcast
  /// layouts (a perturbation of one logical element is not constant along a broadcast dim).
  static Problem smooth_double(Problem p);
  static std::vector<int> incoming_gradients(const Call& backward);
  /// Longest sum in the compute type: the inputGrad scatter visits every point of a batch.
  static int64_t accumulation_length(const Problem& p) {
    return std::max<int64_t>(4, p.out_h * p.out_w);
  }
  static int64_t batch_size(const Problem& p) { return p.n; }
  /// Every GridSampler2D tensor has the batch first.
  static int batch_dim(const Call&, int) { return 0; }
};

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_TRAITS_H_
