// What every law returns, and the helpers laws share. A law is a function template over an op's
// traits (see grid_sampler2d_traits.h for the members a traits struct provides): it runs problems
// through the harness on a Backend and says whether the law held, and if not, why, with the
// problem's repro line so any failure can be re-run.
#ifndef GRADCONF_PROPERTIES_LAWS_LAW_H_
#define GRADCONF_PROPERTIES_LAWS_LAW_H_

#include <cmath>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "compare/compare.h"
#include "harness/backend.h"
#include "harness/harness.h"
#include "op/call.h"
#include "laws/traits.h"

namespace gradconf::props {

struct LawResult {
  bool holds = true;
  bool mistrusted = false;  ///< held, but on data too dominated by zeros to prove much
  std::string detail;       ///< why it failed (empty when it held)

  static LawResult failure(std::string why) { return LawResult{false, false, std::move(why)}; }
};

/// "<law> failed for <repro>: <why>"
inline LawResult law_failure(std::string_view law, const std::string& repro, const std::string& why) {
  return LawResult::failure(std::string(law) + " failed for '" + repro + "': " + why);
}

inline double dot(std::span<const double> a, std::span<const double> b) {
  double sum = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) sum += a[i] * b[i];
  return sum;
}

/// "status 161002 (GS-SHAPE-04: ...)" for failure messages.
inline std::string describe_status(const Outcome& outcome) {
  std::string text = "status " + std::to_string(outcome.status);
  if (!outcome.message.empty()) text += " (" + outcome.message + ")";
  if (!outcome.violations.empty()) text += " [" + outcome.violations + "]";
  return text;
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
