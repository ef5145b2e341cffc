// What every law returns, and the helpers laws share. A law is a function template over an op's
// traits (see grid_sampler2d_traits.h for the members a traits struct provides): it runs problems
// through the harness on a Backend and says whether the law held, and if not, why, with the
// problem's repro line so any failure can be re-run.
#ifndef GRADCONF_PROPERTIES_LAWS_LAW_H_
#define GRADCONF_PROPERTIES_LAWS_LAW_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare.h"
#include "harness/backend.h"
#include "harness/harness.h"
#include "laws/traits.h"
#include "op/call.h"

namespace gradconf::props {

/// What a law measured on one case, for reports: element counts and the worst errors seen.
struct LawMeasurements {
  int64_t elements_compared = 0;
  int64_t mismatches = 0;
  double worst_error_over_bound = 0;  ///< max |error| / allowed error (<= 1 when it holds)
  double max_rel_error = 0;
  double max_abs_error = 0;
  double max_scaled_rel_error = 0;  ///< Comparison::max_scaled_rel_error

  void add(const Comparison& c) {
    elements_compared += c.count;
    mismatches += c.count - c.matched;
    max_rel_error = std::max(max_rel_error, c.max_rel_error);
    max_scaled_rel_error = std::max(max_scaled_rel_error, c.max_scaled_rel_error);
    max_abs_error = std::max(max_abs_error, c.max_abs_error);
    if (c.effective_cap > 0) {
      worst_error_over_bound = std::max(worst_error_over_bound, c.max_abs_error / c.effective_cap);
    }
  }
  /// One scalar check |error| <= bound (adjoint, finite differences, linearity).
  void add_bound(double error, double bound, double magnitude) {
    elements_compared += 1;
    if (!(error <= bound)) mismatches += 1;
    max_abs_error = std::max(max_abs_error, error);
    if (magnitude > 0) max_rel_error = std::max(max_rel_error, error / magnitude);
    if (bound > 0) worst_error_over_bound = std::max(worst_error_over_bound, error / bound);
  }
};

struct LawResult {
  bool holds = true;
  bool mistrusted = false;  ///< held, but on data too dominated by zeros to prove much
  std::string detail;       ///< why it failed (empty when it held)
  std::string mistrust_reason;
  LawMeasurements measured;
  /// What the case was, for reports (set by the law bindings): the problem's dtype ("bf16") and
  /// repro line, and for boundary cases the clause and the side of it.
  std::string dtype;
  std::string repro;
  std::string clause;
  bool just_valid = false;
  /// The problem's coverage tags ("dtype=bf16", "level=1x1", ...), for the report's coverage.
  std::vector<std::string> tags;

  static LawResult failure(std::string why) {
    LawResult r;
    r.holds = false;
    r.detail = std::move(why);
    return r;
  }
};

/// "<law> failed for <repro>: <why>"
inline LawResult law_failure(std::string_view law, const std::string& repro,
                             const std::string& why) {
  return LawResult::failure(std::string(law) + " failed for '" + repro + "': " + why);
}

inline double dot(std::span<const double> a, std::span<const double> b) {
  double sum = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) sum += a[i] * b[i];
  return sum;
}

/// sum_i |a_i b_i|: the scale a dot product's rounding (and a difference of two) grows with.
inline double abs_dot(std::span<const double> a, std::span<const double> b) {
  double sum = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) sum += std::fabs(a[i] * b[i]);
  return sum;
}

/// "status 161002 (GS-SHAPE-04: ...)" for failure messages.
inline std::string describe_status(const Outcome& outcome) {
  std::string text = "status " + std::to_string(outcome.status);
  if (!outcome.message.empty()) text += " (" + outcome.message + ")";
  if (!outcome.violations.empty()) text += " [" + outcome.violations + "]";
  return text;
}

/// The clause id a message starts with ("GS-SHAPE-04" of "GS-SHAPE-04: expected ..."), or "" when
/// it starts with none: upper-case letters and digits in at least three dash-separated parts.
inline std::string clause_of_message(std::string_view message) {
  const size_t colon = message.find(": ");
  if (colon == std::string_view::npos) return {};
  const std::string_view id = message.substr(0, colon);
  int parts = 1;
  bool part_empty = true;
  for (char c : id) {
    if (c == '-') {
      if (part_empty) return {};
      ++parts;
      part_empty = true;
    } else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      part_empty = false;
    } else {
      return {};
    }
  }
  return parts >= 3 && !part_empty ? std::string(id) : std::string();
}

/// Index of the first element whose bits differ, or -1.
inline int64_t first_bit_difference(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0) return static_cast<int64_t>(i);
  }
  return -1;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_LAW_H_
