// Comparator of one output against its golden values, in benchdnn's vocabulary: PASSED, FAILED,
// or MISTRUSTED when the golden is so dominated by zeros that agreement proves little.
#ifndef GRADCONF_PROPERTIES_COMPARE_COMPARE_H_
#define GRADCONF_PROPERTIES_COMPARE_COMPARE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "compare/tolerance.h"

namespace gradconf::props {

enum class CompareStatus { kPassed, kFailed, kMistrusted };
std::string_view status_name(CompareStatus status);

/// Above this fraction of zero golden values a passing comparison is MISTRUSTED.
inline constexpr double kMistrustZeroFraction = 0.95;

struct Mismatch {
  std::vector<int64_t> index;  ///< multi-index in the logical shape
  double got = 0;
  double expected = 0;
};

struct Comparison {
  CompareStatus status = CompareStatus::kPassed;
  int64_t count = 0;
  int64_t matched = 0;
  double max_abs_error = 0;
  double mere = 0;  ///< mean of |a-g| / (|g| + 1e-7)
  double mare = 0;  ///< max of the same
  /// max |a-g| / max(|g|, atol/rtol): relative error where the tolerance is relative, the
  /// error in units of atol/rtol where it is absolute (reports plot it in ULPs of the dtype).
  double max_scaled_rel_error = 0;
  double zero_fraction = 0;
  double effective_cap = 0;
  /// max over elements of |a-g| / (atol + rtol |g|), and max |a-g| / effective_cap: how much of
  /// the allowed error the worst element used (1 at the edge; an element beyond its own bound in
  /// a row with min_match_fraction < 1 shows above 1 while the case still passes).
  double worst_error_over_bound = 0;
  std::vector<Mismatch> first_mismatches;  ///< at most 10
  /// One line: status, counts, errors, first mismatches.
  std::string summary() const;
};

/// NaN matches NaN and an infinity matches the same infinity; any other non-finite pair fails.
/// `floors` (empty, or one per element): element i is allowed max(atol + rtol |expected_i|,
/// floors[i]), the error any correct kernel may make on it (cancellation_floor).
Comparison compare(std::span<const double> got, std::span<const double> expected,
                   std::span<const int64_t> shape, const Tolerance& tolerance,
                   std::span<const double> floors = {});

/// Like compare(), but element i is held to its own derived bound `bounds[i]` instead of
/// atol + rtol |expected|: it matches when |got - expected| <= bounds[i] or both are the same
/// special value. The case keeps the row's other rules: its match fraction, no mismatched special
/// value, and no error above the row's cap at max |expected|. For laws whose two sides are both
/// computed (linearity, batch split), so a bound tighter than the table's may apply.
Comparison compare_bounded(std::span<const double> got, std::span<const double> expected,
                           std::span<const double> bounds, std::span<const int64_t> shape,
                           const Tolerance& tolerance);

/// True when every element is bitwise equal (NaN payloads included).
bool bitwise_equal(std::span<const double> a, std::span<const double> b);

/// One output of a passing case: values compared, how many expected values are zero, and how many
/// of those are zero by construction (elements no input can reach; compared, but no evidence).
struct OutputZeros {
  int64_t compared = 0;
  int64_t zeros = 0;
  int64_t structural = 0;
};

/// A passing case proves little (MISTRUSTED) when some output has values that are not zero by
/// construction and none has more than 1 - kMistrustZeroFraction of those nonzero. Each output is
/// judged alone: summed, a large output that is sparse by nature (MSDA's gradValue, which only the
/// sampled pixels reach) drowned the evidence of the others. An output that is empty or zero by
/// construction throughout (an empty problem's) is not judged: comparing it checks the zero fill,
/// which is all the spec asks of it.
bool proves_little(std::span<const OutputZeros> outputs);

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_COMPARE_COMPARE_H_
