// unmasked_max (nsa_selected_attention/softmax.h), the softmax's row maximum in lanes, against
// the serial loop it replaced: the first unmasked score raised by std::max over the later ones,
// compared bit for bit, on rows that mix masks, NaNs, zeros of both signs, infinities and ties.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "nsa_selected_attention/softmax.h"

namespace {

std::optional<float> serial_max(const std::vector<float>& row, const std::vector<uint8_t>& masked) {
  std::optional<float> m;
  for (size_t j = 0; j < row.size(); ++j) {
    if (!masked[j]) m = m ? std::max(*m, row[j]) : row[j];
  }
  return m;
}

TEST(UnmaskedMax, GivesTheSerialLoopsBits) {
  std::mt19937_64 rng(20261129);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> specials = {0.0f, -0.0f, inf, -inf, std::nanf(""), -std::nanf("")};
  int rows_with_special = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const size_t cols = 1 + rng() % 70;
    std::vector<float> row(cols);
    std::vector<uint8_t> masked(cols);
    const int mask_percent = static_cast<int>(rng() % 4) * 33;  // 0, 33, 66 or 99
    const bool with_specials = rng() % 2 == 0;
    for (size_t j = 0; j < cols; ++j) {
      // Few distinct values, so ties between lanes are common.
      row[j] = static_cast<float>(static_cast<int>(rng() % 7) - 5);
      if (with_specials && rng() % 4 == 0) row[j] = specials[rng() % specials.size()];
      masked[j] = static_cast<int>(rng() % 100) < mask_percent;
    }
    rows_with_special += with_specials;
    const std::optional<float> want = serial_max(row, masked);
    const std::optional<float> got =
        gradconf::nsa::unmasked_max(row.data(), static_cast<int64_t>(cols), masked.data());
    ASSERT_EQ(got.has_value(), want.has_value()) << "trial " << trial;
    if (want) {
      ASSERT_EQ(std::bit_cast<uint32_t>(*got), std::bit_cast<uint32_t>(*want))
          << "trial " << trial << ": " << *got << " against " << *want;
    }
  }
  EXPECT_GT(rows_with_special, 0);
}

}  // namespace
