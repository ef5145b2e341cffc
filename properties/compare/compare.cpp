#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace gradconf::props {

std::string_view status_name(CompareStatus status) {
  switch (status) {
    case CompareStatus::kPassed:
      return "PASSED";
    case CompareStatus::kFailed:
      return "FAILED";
    case CompareStatus::kMistrusted:
      return "MISTRUSTED";
  }
  return "?";
}

namespace {
std::vector<int64_t> multi_index(int64_t flat, std::span<const int64_t> shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) break;
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

bool same_special(double a, double g) {
  if (std::isnan(a) || std::isnan(g)) return std::isnan(a) && std::isnan(g);
  return a == g;  // equal infinities
}

// The element loop of compare() and compare_bounded(): element i matches when
// |got - expected| <= bound_of(i, |expected|) or both are the same special value; the case fails
// on a mismatched special value, a match fraction below the row's, or an error above its cap.
template <typename BoundOf>
Comparison compare_elements(std::span<const double> got, std::span<const double> expected,
                            size_t count, bool sizes_differ, BoundOf bound_of,
                            std::span<const int64_t> shape, const Tolerance& tol) {
  Comparison c;
  c.count = static_cast<int64_t>(count);
  double max_golden = 0;
  int64_t zeros = 0;
  double rel_sum = 0;
  for (int64_t i = 0; i < c.count; ++i) {
    if (std::isfinite(expected[i])) max_golden = std::max(max_golden, std::fabs(expected[i]));
    zeros += expected[i] == 0;
  }
  c.effective_cap = tol.cap(max_golden);
  bool special_failure = sizes_differ;
  // Relative to |g|, but not below the magnitude where the bound turns absolute.
  const double floor = tol.rtol > 0 ? tol.atol / tol.rtol : 0;
  for (int64_t i = 0; i < c.count; ++i) {
    const double a = got[i], g = expected[i];
    bool ok;
    if (!std::isfinite(a) || !std::isfinite(g)) {
      ok = same_special(a, g);
      special_failure = special_failure || !ok;
    } else {
      const double err = std::fabs(a - g);
      const double allowed = bound_of(i, std::fabs(g));
      ok = err <= allowed;
      // The margin of an element within its own bound; the ones outside it (allowed by a match
      // fraction below 1) are held to the cap instead, measured below.
      if (ok && allowed > 0) {
        c.worst_error_over_bound = std::max(c.worst_error_over_bound, err / allowed);
      }
      c.max_abs_error = std::max(c.max_abs_error, err);
      const double scale = std::max(std::fabs(g), floor);
      c.max_scaled_rel_error =
          std::max(c.max_scaled_rel_error, scale > 0 ? err / scale : (err > 0 ? INFINITY : 0));
      const double rel = err / (std::fabs(g) + 1e-7);
      c.mare = std::max(c.mare, rel);
      rel_sum += rel;
    }
    if (ok) {
      ++c.matched;
    } else if (c.first_mismatches.size() < 10) {
      c.first_mismatches.push_back({multi_index(i, shape), a, g});
    }
  }
  if (c.effective_cap > 0) {
    c.worst_error_over_bound =
        std::max(c.worst_error_over_bound, c.max_abs_error / c.effective_cap);
  }
  c.mere = c.count ? rel_sum / static_cast<double>(c.count) : 0;
  c.zero_fraction = c.count ? static_cast<double>(zeros) / static_cast<double>(c.count) : 0;
  const double match_fraction =
      c.count ? static_cast<double>(c.matched) / static_cast<double>(c.count) : 1;
  // A row without a cap (max_abs_cap and cap_ulps 0) holds every element to its own bound.
  const bool capped = c.effective_cap <= 0 || c.max_abs_error <= c.effective_cap;
  if (special_failure || match_fraction < tol.min_match_fraction || !capped) {
    c.status = CompareStatus::kFailed;
  }
  return c;
}
}  // namespace

Comparison compare(std::span<const double> got, std::span<const double> expected,
                   std::span<const int64_t> shape, const Tolerance& tol,
                   std::span<const double> floors) {
  const bool floored = floors.size() == expected.size() && !floors.empty();
  Comparison c = compare_elements(
      got, expected, std::min(got.size(), expected.size()), got.size() != expected.size(),
      [&tol, floors, floored](int64_t i, double magnitude) {
        const double table = tol.atol + tol.rtol * magnitude;
        return floored ? std::max(table, floors[static_cast<size_t>(i)]) : table;
      },
      shape, tol);
  if (c.status != CompareStatus::kFailed && c.count > 0 &&
      c.zero_fraction > kMistrustZeroFraction) {
    c.status = CompareStatus::kMistrusted;
  }
  return c;
}

Comparison compare_bounded(std::span<const double> got, std::span<const double> expected,
                           std::span<const double> bounds, std::span<const int64_t> shape,
                           const Tolerance& tol) {
  return compare_elements(
      got, expected, std::min({got.size(), expected.size(), bounds.size()}),
      got.size() != expected.size() || bounds.size() != expected.size(),
      [bounds](int64_t i, double) { return bounds[static_cast<size_t>(i)]; }, shape, tol);
}

bool bitwise_equal(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool proves_little(std::span<const OutputZeros> outputs) {
  bool judged = false;
  for (const OutputZeros& o : outputs) {
    const int64_t structural = std::min(o.structural, o.zeros);
    const int64_t reachable = o.compared - structural, reachable_zeros = o.zeros - structural;
    if (reachable == 0) continue;
    judged = true;
    if (static_cast<double>(reachable_zeros) <=
        kMistrustZeroFraction * static_cast<double>(reachable)) {
      return false;
    }
  }
  return judged;
}

std::string Comparison::summary() const {
  std::ostringstream s;
  s << status_name(status) << ": " << matched << "/" << count
    << " matched, max_abs=" << max_abs_error << " (cap " << effective_cap
    << "), max_rel=" << max_scaled_rel_error << ", MERE=" << mere << ", MARE=" << mare
    << ", zeros=" << zero_fraction * 100 << "%";
  for (const auto& m : first_mismatches) {
    s << "\n  at [";
    for (size_t d = 0; d < m.index.size(); ++d) s << (d ? "," : "") << m.index[d];
    s << "] got " << m.got << " expected " << m.expected;
  }
  return s.str();
}

}  // namespace gradconf::props
