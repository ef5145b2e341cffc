// The shared clause checks' verdicts and messages (ops/core/clause_checks.h).
#include <gtest/gtest.h>

#include <array>
#include <string>

#include "core/clause_checks.h"

namespace {

using gradconf::check_string_attr;

TEST(CheckStringAttr, accepts_the_expected_value_and_null_only_where_allowed) {
  EXPECT_EQ(check_string_attr("layout", "TND", "TND", true), std::nullopt);
  EXPECT_EQ(check_string_attr("layout", nullptr, "TND", true), std::nullopt);
  EXPECT_EQ(check_string_attr("inputLayout", "TND", "TND", false), std::nullopt);
  EXPECT_EQ(check_string_attr("inputLayout", nullptr, "TND", false),
            "expected inputLayout \"TND\", but got nullptr");
}

TEST(CheckStringAttr, names_what_it_got) {
  EXPECT_EQ(check_string_attr("layout", "BSND", "TND", true),
            "expected layout null or \"TND\", but got \"BSND\"");
  EXPECT_EQ(check_string_attr("inputLayout", "", "TND", false),
            "expected inputLayout \"TND\", but got \"\"");
  // A prefix or an extension of the expected value is another value.
  EXPECT_NE(check_string_attr("layout", "TN", "TND", true), std::nullopt);
  EXPECT_NE(check_string_attr("layout", "TND ", "TND", true), std::nullopt);
}

TEST(CheckStringAttr, reads_at_most_65_bytes_of_an_unterminated_string) {
  // 65 bytes and no terminator: reading one byte more leaves the array. A build with ASan (the
  // asan or fuzz preset) reports it: a planted strnlen(value, 66) did; the default build checks
  // only the message.
  std::array<char, 65> unterminated;
  unterminated.fill('T');
  const auto message = check_string_attr("layout", unterminated.data(), "TND", true);
  ASSERT_TRUE(message.has_value());
  EXPECT_EQ(*message,
            "expected layout null or \"TND\", but got \"" + std::string(64, 'T') + "...\"");
}

}  // namespace
