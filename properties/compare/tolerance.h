// The one tolerance table (spec README §6). Every row says why its numbers are what they are; a
// law may use a tighter derived bound, never a looser one.
#ifndef GRADCONF_PROPERTIES_COMPARE_TOLERANCE_H_
#define GRADCONF_PROPERTIES_COMPARE_TOLERANCE_H_

#include <span>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"

namespace gradconf::props {

struct Tolerance {
  double rtol = 0;  ///< element matches when |a - g| <= atol + rtol * |g|
  double atol = 0;
  /// The case fails when max |a - g| over all elements exceeds the cap: max_abs_cap, or cap_ulps
  /// ULPs of the dtype at max |g| where that is larger (the standard's "1e-1 or 32 ULP").
  double max_abs_cap = 0;
  double cap_ulps = 0;
  double epsilon = 0;             ///< the dtype's machine epsilon: the ULP the cap counts in
  double min_match_fraction = 1;  ///< fraction of elements that must match
  double mere_threshold = 0;      ///< older CANN standard: MERE < T and MARE < 10 T (reported)
  std::string_view reason;

  /// The cap for an output whose largest finite |golden| is `max_golden`.
  double cap(double max_golden) const;
};

struct ToleranceRow {
  std::string_view op;      ///< "*" for every op
  std::string_view output;  ///< "*" for every output
  aclDataType dtype;
  Tolerance tolerance;
};

/// The most specific row for (op, output, dtype): exact op and output beat "*".
const Tolerance& tolerance_for(std::string_view op, std::string_view output, aclDataType dtype);
/// Every row (the common ones, then each registered family's), for the report.
std::vector<ToleranceRow> tolerance_table();

/// The op families' own rows (OpFamily::tolerances), composed by the registry
/// (registry/registry.cpp): compare/ reads them without depending on the registry.
std::span<const ToleranceRow> family_tolerance_rows();

// Bounds derived for the laws. Each is written here once, with its derivation.

/// Machine epsilon (spacing at 1) of a floating dtype.
double machine_epsilon(aclDataType dtype);

/// Smallest positive subnormal of a floating dtype (fp16 2^-24, bf16 2^-133, fp32 2^-149).
double smallest_subnormal(aclDataType dtype);

/// Bound on |<forward(u), g> - <u, backward(g)>|, given M = sum of |terms| of the bilinear form,
/// the longest accumulation K in either kernel (in the compute type), and R = sum |g| + sum |u|,
/// the weights the two dot products give the rounded outputs.
double adjoint_bound(aclDataType dtype, int64_t accumulation_length, double magnitude,
                     double output_weights);

/// |backward(a g1 + b g2) - (a backward(g1) + b backward(g2))| for one output element, given the
/// output's row of the table and the three outputs as returned (mixed = backward(a g1 + b g2),
/// part1 = a backward(g1), part2 = b backward(g2)); a g1 + b g2 is exact by construction, so the
/// exact values are linear.
double linearity_bound(const Tolerance& row, aclDataType dtype, double mixed, double part1,
                       double part2);

/// |a - b| for two outputs of the same exact value computed by one backend in two ways (another
/// memory layout, a batch split), given the output's row of the table.
double rerun_bound(const Tolerance& row, aclDataType dtype, double a, double b);

/// The error any correct kernel may make on an output element that sums `terms` products in its
/// compute type (float for FLOAT16/BFLOAT16/FLOAT, double for DOUBLE), given from the reference
/// `term_magnitude`, the sum of the magnitudes of those products, and `evaluation_scale`, the sum
/// of the scales their computed factors err in (bicubic weights; a negative value: the same as
/// term_magnitude). Where the exact value cancels far below its terms, or a weight is evaluated
/// near its root, this exceeds the table's atol + rtol |g|; compare() takes the larger. 0 when
/// the magnitude is unknown or not finite.
double cancellation_floor(aclDataType dtype, int64_t terms, double term_magnitude,
                          double evaluation_scale = -1);

/// |a - b| for one output element computed by two backends (matches_backend), each allowed the
/// table's error against the double reference `reference`, or `floor` where that is larger.
double backend_difference_bound(const Tolerance& row, double reference, double floor = 0);

/// The case-level rules (caps, match fraction) of `row` for two results each held to `row`
/// against the same reference (matches_backend).
Tolerance between_backends(const Tolerance& row);

/// Bound on |extrapolated central difference - <gradient, direction>| in double, given
/// M = sum_i |gradient_i * direction_i|, the loss's terms S = sum_k |f_k g_k|, the step h (the
/// smallest step is h / 4) and the measured truncation estimate |R(h) - R(h/2)| of the two
/// extrapolations (Richardson's own error estimate: forward runs only, so a wrong backward cannot
/// widen it).
double finite_difference_bound(double magnitude, double loss_terms, double h,
                               double truncation_estimate);

/// The extrapolated difference's truncation error, relative to sum |gradient_i direction_i|.
inline constexpr double kFiniteDifferenceTruncation = 1e-10;

/// Step of the central differences, relative to max(1, max |x|).
inline constexpr double kFiniteDifferenceStep = 1.0 / 1024;

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_COMPARE_TOLERANCE_H_
