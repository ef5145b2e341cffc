#include "compare/tolerance.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace gradconf::props {
namespace {
constexpr double p2(int e) {
  return e >= 0 ? double(int64_t{1} << e) : 1.0 / double(int64_t{1} << -e);
}

// Double kernels against the double reference on the same inputs: only the order of the sums
// differs. An output summing K terms is within (K - 1) eps sum|terms| of the exact sum on either
// side, so |a - g| <= 2 K eps sum|terms| = 2 K kappa eps |g| with kappa = sum|terms| / |g| the
// element's condition. rtol 2^-34 = 2^18 eps covers K kappa <= 2^17 (K <= 4096 in the generators'
// problems, kappa <= 32); an element that cancels to ~0 (kappa unbounded) is held to atol 2^-40,
// i.e. 2 K eps sum|terms| with sum|terms| <= 2^-40 / 2^-39 / 4096 ~ 1: the generators' terms are
// products of O(1) values. This tightens the old row (rtol 1e-10 ~ 2^-33, atol 1e-12 ~ 2^-40).
constexpr double kDoubleRtol = 1.0 / (int64_t{1} << 34);
constexpr double kDoubleAtol = 1.0 / (int64_t{1} << 40);
constexpr const char* kDoubleReason =
    "double vs the double reference, derived: only summation order differs, |a-g| <= 2 K kappa "
    "eps |g| for K terms of condition kappa; rtol 2^-34 covers K kappa <= 2^17, atol 2^-40 "
    "outputs that cancel to ~0 (sum|terms| ~1); every element; no cap beyond the per-element "
    "bound";

// CANN's current (experimental) precision standard, rows per dtype
// (../shared/research/cann-source-notes.md §0.5: rtol, atol, "max_abs_error_limit: <fixed> or 32
// ULP", 99% matched); MERE thresholds from the older ecosystem standard. Each reason says which
// numbers are the standard's and which are derived, and from what.
constexpr std::array kRows = {
    ToleranceRow{"*",
                 "*",
                 ACL_FLOAT16,
                 {.rtol = p2(-9),
                  .atol = p2(-9),
                  .max_abs_cap = 1e-1,
                  .cap_ulps = 32,
                  .epsilon = p2(-10),
                  .min_match_fraction = 0.99,
                  .mere_threshold = p2(-10),
                  .reason = "standard fp16: rtol = atol = 2^-9, 99% of elements, cap 0.1 or 32 "
                            "ULP at max|golden|. Derived fit: inputs are fp16 values, the "
                            "kernel computes in fp32 and rounds each output once (<= 2^-11 "
                            "relative), leaving 3/4 of rtol for fp32 accumulation"}},
    ToleranceRow{"*",
                 "*",
                 ACL_BF16,
                 {.rtol = p2(-6),
                  .atol = p2(-6),
                  .max_abs_cap = 1.0,
                  .cap_ulps = 32,
                  .epsilon = p2(-7),
                  .min_match_fraction = 0.99,
                  .mere_threshold = p2(-7),
                  .reason = "standard bf16: rtol = atol = 2^-6, 99% of elements, cap 1 or 32 "
                            "ULP at max|golden|. Derived fit: bf16 inputs, fp32 compute, one "
                            "output rounding (<= 2^-8 relative) uses 1/4 of rtol"}},
    ToleranceRow{"*",
                 "*",
                 ACL_FLOAT,
                 {.rtol = p2(-10),
                  .atol = p2(-16),
                  .max_abs_cap = 1e-2,
                  .cap_ulps = 32,
                  .epsilon = p2(-23),
                  .min_match_fraction = 1.0,
                  .mere_threshold = p2(-13),
                  .reason = "standard fp32: rtol 2^-10, atol 2^-16, cap 1e-2 or 32 ULP; every "
                            "element (tighter than the standard's 99%: no output here is "
                            "rounded below fp32 before it is returned)"}},
    ToleranceRow{"*",
                 "*",
                 ACL_DOUBLE,
                 {.rtol = kDoubleRtol,
                  .atol = kDoubleAtol,
                  .max_abs_cap = 0,
                  .cap_ulps = 0,
                  .epsilon = p2(-52),
                  .min_match_fraction = 1.0,
                  .mere_threshold = 0,
                  .reason = kDoubleReason}},
};
}  // namespace

const Tolerance& tolerance_for(std::string_view op, std::string_view output, aclDataType dtype) {
  const ToleranceRow* best = nullptr;
  int best_score = -1;
  auto consider = [&](const ToleranceRow& row) {
    if (row.dtype != dtype) return;
    if (row.op != "*" && row.op != op) return;
    if (row.output != "*" && row.output != output) return;
    const int score = (row.op != "*") * 2 + (row.output != "*");
    if (score > best_score) best = &row, best_score = score;
  };
  for (const auto& row : kRows) consider(row);
  // An op's own rows (OpFamily::tolerances) refine the common ones for its outputs.
  for (const auto& row : family_tolerance_rows()) consider(row);
  static const Tolerance kUnknown{.reason = "no row: exact match required"};
  return best ? best->tolerance : kUnknown;
}

std::vector<ToleranceRow> tolerance_table() {
  std::vector<ToleranceRow> rows(std::begin(kRows), std::end(kRows));
  const auto own = family_tolerance_rows();
  rows.insert(rows.end(), own.begin(), own.end());
  return rows;
}

double Tolerance::cap(double max_golden) const {
  double ulps = 0;
  if (cap_ulps > 0 && max_golden > 0 && std::isfinite(max_golden)) {
    ulps = cap_ulps * epsilon * std::ldexp(1.0, std::ilogb(max_golden));
  }
  return std::max(max_abs_cap, ulps);
}

double machine_epsilon(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
      return p2(-10);
    case ACL_BF16:
      return p2(-7);
    case ACL_DOUBLE:
      return p2(-52);
    default:
      return p2(-23);
  }
}

double smallest_subnormal(aclDataType dtype) {
  switch (dtype) {
    case ACL_FLOAT16:
      return std::ldexp(1.0, -24);
    case ACL_BF16:
      return std::ldexp(1.0, -133);
    case ACL_DOUBLE:
      return std::ldexp(1.0, -1074);
    default:
      return std::ldexp(1.0, -149);
  }
}

double adjoint_bound(aclDataType dtype, int64_t accumulation_length, double magnitude,
                     double output_weights) {
  // Each term w*u is formed with <= 3 roundings (weight product, multiply) and summed into a
  // sum of <= K terms (K roundings, first order) in the compute type, on each side, plus one
  // rounding of every output to the dtype on each side; the host dot products are compensated
  // (laws/law.h `dot`), so their own rounding is below every dtype's, DOUBLE included.
  // An output below the dtype's smallest normal rounds with an absolute error of up to half a
  // subnormal step instead (fp16: 3e-8, reached by small products of O(1) inputs), weighted by
  // |g| or |u| in the dot products.
  const double compute_eps = machine_epsilon(dtype == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT);
  const double per_term =
      2 * machine_epsilon(dtype) + 2 * (3 + static_cast<double>(accumulation_length)) * compute_eps;
  return per_term * magnitude + 0.5 * smallest_subnormal(dtype) * output_weights + 1e-300;
}

double linearity_bound(const Tolerance& row, aclDataType dtype, double mixed, double part1,
                       double part2) {
  // Each output is its exact value rounded once to the dtype (relative error <= eps/2) after a
  // computation whose own error the table's atol absorbs. The exact values are linear, so the
  // difference is at most eps/2 (|mixed| + |part1| + |part2|) plus an atol for each of the three.
  // The bound scales with the parts, not with |mixed|: when a g1 + b g2 cancels, |mixed| is
  // small while both parts carry full-size rounding errors. One ulp (eps) instead of half an ulp
  // leaves room for the compute type's rounding.
  const double eps = machine_epsilon(dtype);
  return eps * (std::fabs(mixed) + std::fabs(part1) + std::fabs(part2)) + 3 * row.atol;
}

double rerun_bound(const Tolerance& row, aclDataType dtype, double a, double b) {
  // As linearity_bound: each run is the exact value, within the table's atol, rounded once to
  // the dtype (half an ulp; one ulp leaves room for the compute type's rounding). Both runs
  // approximate the same exact value, so they differ by at most eps (|a| + |b|) + 2 atol. A
  // backend that orders its sums by layout or batch size stays inside; a wrong stride or a
  // batch read from the wrong rows moves whole elements.
  return machine_epsilon(dtype) * (std::fabs(a) + std::fabs(b)) + 2 * row.atol;
}

double cancellation_floor(aclDataType dtype, int64_t terms, double term_magnitude,
                          double evaluation_scale) {
  // Higham's bound for K computed products summed in any order, to first order in u (the
  // compute type's unit roundoff; K u stays far below 1 here): the K - 1 additions err by at most
  // (K - 1) u sum |terms|; each product of up to four factors rounds three times and the result
  // is scaled once (4 u |term|); and a factor that is itself computed errs by its own evaluation:
  // a cubic weight by Horner's rule within 6 u of its monomials' magnitude, so a term within
  // 6 u of its evaluation scale (the references' M_a |b| + |a| M_b). Together
  // |computed - exact| <= u ((K + 3) sum|terms| + 6 sum scales). Found needed by PyTorch's
  // float GridSampler2DBackward: a bicubic gridGrad summing 176 products of magnitude ~600 to an
  // exact ~1e-14 returned 3e-5 (~5 u sum|terms|), and one whose only tap weight is a cubic 1e-7
  // from its root returned -3.4e-5 for 1.3e-5 (that float weight is off by ~1e-6), both beyond
  // fp32's atol 2^-16. Kernels that sum in double, as ours do, stay far inside either bound.
  if (!(term_magnitude > 0) || !std::isfinite(term_magnitude) || terms <= 0) return 0;
  const double scale =
      evaluation_scale >= 0 && std::isfinite(evaluation_scale) ? evaluation_scale : term_magnitude;
  const double unit_roundoff = dtype == ACL_DOUBLE ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
  return unit_roundoff * (static_cast<double>(terms + 3) * term_magnitude + 6 * scale);
}

double backend_difference_bound(const Tolerance& row, double reference, double floor) {
  // Each backend conforms when |x - r| <= atol + rtol |r| against the double reference r; two
  // conforming backends can therefore differ by the sum of both allowances and no more (the
  // triangle inequality). Held around r, not around either result, so a wrong result cannot
  // widen its own bound.
  return 2 * std::max(row.atol + row.rtol * std::fabs(reference), floor);
}

Tolerance between_backends(const Tolerance& row) {
  // The same triangle inequality for the case-level rules: each side may use the whole cap, and
  // each may miss its own (1 - f) of the elements, at different places.
  Tolerance pair = row;
  pair.max_abs_cap = 2 * row.max_abs_cap;
  pair.cap_ulps = 2 * row.cap_ulps;
  pair.min_match_fraction = std::max(0.0, 1 - 2 * (1 - row.min_match_fraction));
  return pair;
}

double finite_difference_bound(double magnitude, double loss_terms, double h,
                               double truncation_estimate) {
  // Double, Richardson-extrapolated central differences with steps h = 2^-10 and h/2: truncation
  // is O(h^4 |f^(5)|), ~1e-12 relative even where a softmax's slope along the direction is ~8
  // per unit step (h^4 8^4 / 30 ~ 1e-13; measured worst 6e-12 on NSA-like rows, 2.3e-6 without
  // the extrapolation). 1e-10 of the magnitude covers that worst with a factor 16 of margin; the
  // old 1e-6 let a gradient that passed through float (6e-8 relative) pass, which the planted
  // fault grid_sampler2d.grid_grad_rounded_to_float now shows caught.
  // Smoother is not always gentler: bicubic sampling (cann-latest) is a product of two cubics
  // along the direction, whose 5th derivative scales with the unnormalize factor^5 (5.5^5 at 12
  // pixels): its truncation reached 2.4e-10 of the magnitude. So the law also extrapolates from
  // h/2 and h/4 and R(h/2) is the estimate; its error is ~|R(h) - R(h/2)| / 15 (the h^4 term
  // shrinks 16-fold), and the bound adds |R(h) - R(h/2)| itself: a 15-fold margin.
  // Rounding scales with the loss, not the gradient: each L(x +- s d) is off by about
  // c eps sum_k |f_k g_k| (the forward's own rounding of f_k and the dot product), so D(s) by
  // c eps S / s and the extrapolation from h/2 and h/4 by (4 / (h/4) + 1 / (h/2)) / 3 c eps S =
  // 6 c eps S / h. Where
  // the gradient's terms cancel (magnitude ~0, e.g. nearest sampling whose gradOutput sums to 0
  // at a pixel) this term is all there is: the finding was 1.96e-12 against a 1e-12 floor,
  // S ~ 50, h = 2.7e-3. c = 64 covers short accumulations with margin.
  constexpr double kRoundingsPerLoss = 64;
  const double rounding =
      6 * kRoundingsPerLoss * std::numeric_limits<double>::epsilon() * loss_terms / h;
  return kFiniteDifferenceTruncation * magnitude + truncation_estimate + rounding + 1e-12;
}

}  // namespace gradconf::props
