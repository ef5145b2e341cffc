// Every law of every registered op family (properties/registry/registry.h) as a RapidCheck property
// on the linked backend: one parameterised test per (entry, law), named "<Entry>_<law>". A failure
// prints the law's detail (with the problem's repro line) and RapidCheck's reproduce string.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cctype>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "property_support.h"
#include "registry/registry.h"

namespace gradconf::props {
namespace {

struct LawRow {
  const OpFamily* family;
  const LawBinding* binding;
};

// What ctest and gtest print for a row (instead of its bytes).
void PrintTo(const LawRow& row, std::ostream* os) { *os << row.binding->name; }

std::vector<LawRow> all_laws() {
  std::vector<LawRow> rows;
  for (const OpFamily* family : op_families()) {
    for (const LawBinding& binding : family->laws) rows.push_back({family, &binding});
  }
  return rows;
}

std::string row_name(const ::testing::TestParamInfo<LawRow>& info) {
  return testing::test_name(info.param.binding->name);
}

class RegisteredLaw : public ::testing::TestWithParam<LawRow> {};

TEST_P(RegisteredLaw, holds) {
  const LawBinding& binding = *GetParam().binding;
  // The differential law compares our kernels with themselves here (matches_backend_test plants
  // a deviation on one side).
  static const auto self_judged = Backend::linked().judged_against(unowned(Backend::linked()));
  const rc::Gen<LawResult> cases =
      binding.cases(binding.differential ? *self_judged : Backend::linked());
  EXPECT_TRUE(testing::check_at_most(binding.name, binding.max_cases,
                                     [&] { testing::rc_assert_law(*cases); }));
}

INSTANTIATE_TEST_SUITE_P(Laws, RegisteredLaw, ::testing::ValuesIn(all_laws()), row_name);

TEST(Registry, every_family_has_entries_clauses_faults_and_laws_with_unique_names) {
  ASSERT_FALSE(op_families().empty());
  std::set<std::string> names;
  for (const OpFamily* family : op_families()) {
    EXPECT_FALSE(family->entries.empty()) << family->family;
    EXPECT_FALSE(family->clauses.empty()) << family->family;
    EXPECT_FALSE(family->faults.empty()) << family->family;
    EXPECT_FALSE(family->laws.empty()) << family->family;
    for (const EntrySpec* entry : family->entries) EXPECT_EQ(find_entry(entry->name), entry);
    for (const LawBinding& law : family->laws) {
      EXPECT_TRUE(names.insert(law.name).second) << "duplicate law name " << law.name;
    }
  }
}

// `gradconf bench` times these: each must be a canonical repro line of its own family, and every
// family has some.
TEST(Registry, every_benchmark_case_is_a_canonical_repro_line_of_its_family) {
  for (const OpFamily* family : op_families()) {
    EXPECT_FALSE(family->bench_cases.empty()) << family->family;
    for (const BenchCase& c : family->bench_cases) {
      const ReproCheck check = family->check_repro(c.repro);
      EXPECT_TRUE(check.accepted) << family->family << "/" << c.name << ": " << c.repro;
      EXPECT_EQ(check.error, "") << family->family << "/" << c.name;
    }
  }
}

}  // namespace
}  // namespace gradconf::props
