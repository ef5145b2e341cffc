#include "compare/tolerance.h"

#include "op/registry.h"

#include <array>
#include <cmath>
#include <limits>

namespace gradconf::props {
namespace {
constexpr double p2(int e) {
  return e >= 0 ? double(int64_t{1} << e) : 1.0 / double(int64_t{1} << -e);
}

// CANN's current (experimental) precision standard, rows per dtype; MERE thresholds from the
// older ecosystem standard (research/cann-source-notes.md §0.5).
constexpr std::array kRows = {
    ToleranceRow{"*",
                 "*",
                 ACL_FLOAT16,
                 {p2(-9), p2(-9), 1e-1, true, 0.99, p2(-10),
                  "CANN precision standard fp16: rtol=atol=2^-9 (2 ulp of fp16's 2^-10 eps: one "
                  "for input rounding, one for output rounding), 99% match, cap 0.1 x "
                  "max(1, max|golden|) since rounding alone is relative to the magnitude"}},
    ToleranceRow{"*",
                 "*",
                 ACL_BF16,
                 {p2(-6), p2(-6), 1.0, true, 0.99, p2(-7),
                  "CANN precision standard bf16: rtol=atol=2^-6 (2 ulp of bf16's 2^-7 eps), 99% "
                  "match, cap 1 x max(1, max|golden|) since rounding alone is relative to the "
                  "magnitude"}},
    ToleranceRow{"*",
                 "*",
                 ACL_FLOAT,
                 {p2(-10), p2(-16), 1e-2, true, 1.0, p2(-13),
                  "CANN precision standard fp32: rtol 2^-10, atol 2^-16, every element; the cap "
                  "1e-2 scales with max|golden| because outputs are sums of many terms"}},
    ToleranceRow{"*",
                 "*",
                 ACL_DOUBLE,
                 {1e-10, 1e-12, 1e-8, true, 1.0, 1e-12,
                  "double vs the double reference: only summation order differs (a few hundred "
                  "ulp at most for the reductions here), every element"}},
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
  for (const OpFamily* family : op_families()) {
    for (const auto& row : family->tolerances) consider(row);
  }
  static const Tolerance kUnknown{0, 0, 0, false, 1, 0, "no row: exact match required"};
  return best ? best->tolerance : kUnknown;
}

std::vector<ToleranceRow> tolerance_table() {
  std::vector<ToleranceRow> rows(std::begin(kRows), std::end(kRows));
  for (const OpFamily* family : op_families()) {
    rows.insert(rows.end(), family->tolerances.begin(), family->tolerances.end());
  }
  return rows;
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
  // rounding of every output to the dtype on each side; the host dot products are in double.
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

double finite_difference_bound(double magnitude, double loss_terms, double h) {
  // Double, Richardson-extrapolated central differences with steps h = 2^-10 and h/2: truncation
  // is O(h^4 |f^(5)|), ~1e-12 relative even where a softmax's slope along the direction is ~8
  // per unit step (h^4 8^4 / 30 ~ 1e-13; measured worst 6e-12 on NSA-like rows, 2.3e-6 without
  // the extrapolation). 1e-6 of the magnitude covers it with margin while a wrong gradient is
  // off by O(1).
  // Rounding scales with the loss, not the gradient: each L(x +- s d) is off by about
  // c eps sum_k |f_k g_k| (the forward's own rounding of f_k and the dot product), so D(s) by
  // c eps S / s and the extrapolation by (4 / (h/2) + 1 / h) / 3 c eps S = 3 c eps S / h. Where
  // the gradient's terms cancel (magnitude ~0, e.g. nearest sampling whose gradOutput sums to 0
  // at a pixel) this term is all there is: the finding was 1.96e-12 against a 1e-12 floor,
  // S ~ 50, h = 2.7e-3. c = 64 covers short accumulations with margin.
  constexpr double kRoundingsPerLoss = 64;
  const double rounding =
      3 * kRoundingsPerLoss * std::numeric_limits<double>::epsilon() * loss_terms / h;
  return 1e-6 * magnitude + rounding + 1e-12;
}

}  // namespace gradconf::props
