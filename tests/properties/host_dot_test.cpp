// The laws' host dot products (laws/law.h `dot`) are compensated: the adjoint bound derives from
// the kernels' roundings alone, so the host's own dot must not add rounding of a DOUBLE kernel's
// size. Each case is one a plain double loop gets wrong.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "laws/law.h"

namespace gradconf::props {
namespace {

TEST(HostDot, a_sum_that_absorbs_a_term_keeps_it) {
  // Plain: 1e16 + 1 rounds back to 1e16, and the result is 0.
  const std::vector<double> a = {1e16, 1, -1e16}, ones = {1, 1, 1};
  EXPECT_EQ(dot(a, ones), 1.0);
}

TEST(HostDot, a_product_that_rounds_keeps_its_low_part) {
  // (1 + 2^-30)(1 - 2^-30) = 1 - 2^-60 rounds to 1 in double; minus 1 leaves exactly -2^-60.
  const double e = std::ldexp(1.0, -30);
  const std::vector<double> a = {1 + e, -1}, b = {1 - e, 1};
  EXPECT_EQ(dot(a, b), -std::ldexp(1.0, -60));
}

TEST(HostDot, a_long_cancelling_sum_agrees_with_the_exact_value) {
  // 10,000 terms 0.1 * 3, then -1 * 3000. The double 0.1 is 3602879701896397 / 2^55, so the
  // exact dot is (30000 * 3602879701896397 - 3000 * 2^55) / 2^55 = 6000 / 2^55; a plain loop
  // leaves its 10,000 roundings in it.
  std::vector<double> a(10001, 0.1), b(10001, 3.0);
  a.back() = -1;
  b.back() = 3000;
  const double exact = std::ldexp(6000.0, -55);
  EXPECT_NEAR(dot(a, b), exact, exact * 1e-6);
  double plain = 0;
  for (size_t i = 0; i < a.size(); ++i) plain += a[i] * b[i];
  EXPECT_GT(std::fabs(plain - exact), exact * 1e-3);  // the case does tell the two apart
}

}  // namespace
}  // namespace gradconf::props
