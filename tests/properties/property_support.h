// What every property test shares: the case-count knob, the assertion that turns a LawResult
// into a RapidCheck verdict, and deterministic sampling from a generator for planted-fault tests.
#ifndef GRADCONF_TESTS_PROPERTIES_PROPERTY_SUPPORT_H_
#define GRADCONF_TESTS_PROPERTIES_PROPERTY_SUPPORT_H_

#include <rapidcheck.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <iostream>
#include <optional>
#include <string>

#include "laws/law.h"

namespace gradconf::props::testing {

/// `name` as a GoogleTest parameter name: every character that is not a letter or digit becomes
/// '_' ("GridSampler2D+Backward.error_contract" -> "GridSampler2D_Backward_error_contract").
inline std::string test_name(std::string name) {
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

/// GRADCONF_PROPERTY_SCALE (default 1): multiplies every property's case count, e.g. 100 for a
/// long campaign. Ignored when RC_PARAMS already sets max_success.
int property_scale();

/// Cases per RC_GTEST_PROP at scale 1. Sized so the whole `property` label stays under three
/// minutes on two cores (measured figures are in the issue note).
inline constexpr int kDefaultCases = 1000;

/// Sets RC_PARAMS max_success = kDefaultCases * property_scale() unless the caller set it;
/// called by the property tests' main before RapidCheck reads its configuration.
void configure_rapidcheck_from_scale();

/// rc::check with at most `max_cases` successes (0: RapidCheck's configured count).
template <typename Testable>
bool check_at_most(const std::string& name, int max_cases, Testable&& testable) {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  if (max_cases > 0) params.maxSuccess = std::min(params.maxSuccess, max_cases);
  rc::detail::TestMetadata metadata;
  metadata.id = name;
  metadata.description = name;
  std::cerr << "\n- " << name << "\n";
  const auto result = rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
  rc::detail::printResultMessage(result, std::cerr);
  std::cerr << "\n";
  return result.template is<rc::detail::SuccessResult>();
}

/// Fails the current RapidCheck case with the law's detail (which starts with the repro line),
/// and tags cases the comparator mistrusted. A case that held having compared nothing fails too:
/// every generator must draw cases its law can check.
inline void rc_assert_law(const LawResult& result) {
  if (result.mistrusted) RC_TAG("mistrusted");
  if (!result.holds) RC_FAIL(result.detail);
  if (result.vacuous()) RC_FAIL("the law compared nothing for '" + result.repro + "'");
}

/// The first of `attempts` values drawn from `gen` (fixed seeds, sizes spread over 0..100) for
/// which `fails` returns a failure detail, or nullopt when none does. Deterministic: planted-fault
/// tests must not pass or fail by luck.
template <typename T>
std::optional<std::string> first_failure(
    const rc::Gen<T>& gen, int attempts,
    const std::function<std::optional<std::string>(const T&)>& fails) {
  for (int i = 0; i < attempts; ++i) {
    const int size = (i * 37) % 101;
    const T value =
        gen(rc::Random(static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull + 1), size).value();
    if (auto detail = fails(value)) return detail;
  }
  return std::nullopt;
}

}  // namespace gradconf::props::testing

#endif  // GRADCONF_TESTS_PROPERTIES_PROPERTY_SUPPORT_H_
