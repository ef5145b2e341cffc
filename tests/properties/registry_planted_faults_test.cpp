// Every law proves it can fail: each row of a family's law x fault table (OpFamily::fault_rows)
// plants the fault in the planted-fault backend library and requires the law to reject it on one
// of a fixed set of generated cases, while the linked (shipped) backend satisfies the law on that
// same case, so the failure is the fault's doing.
#include <gtest/gtest.h>

#include <cctype>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "property_support.h"
#include "registry/registry.h"
#include "support/planted_backend.h"

namespace gradconf::props {
namespace {

struct PlantedRow {
  const OpFamily* family;
  const FaultRow* row;
};

// What ctest and gtest print for a row (instead of its bytes).
void PrintTo(const PlantedRow& row, std::ostream* os) {
  *os << row.row->law << " sees " << row.row->fault;
}

std::vector<PlantedRow> all_rows() {
  std::vector<PlantedRow> rows;
  for (const OpFamily* family : op_families()) {
    for (const FaultRow& row : family->fault_rows) rows.push_back({family, &row});
  }
  return rows;
}

std::string row_name(const ::testing::TestParamInfo<PlantedRow>& info) {
  std::string name =
      std::string(info.param.row->law) + "_sees_" + std::string(info.param.row->fault);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class PlantedFault : public ::testing::TestWithParam<PlantedRow> {};

TEST_P(PlantedFault, law_rejects_the_planted_backend) {
  const auto [family, row] = GetParam();
  const LawBinding* binding = family->law(row->law);
  ASSERT_NE(binding, nullptr) << "no law named " << row->law;
  const Backend& planted = gradconf::testing::planted_backend(family->family, row->fault);
  for (int i = 0; i < row->attempts; ++i) {
    const LawResult on_planted = run_law_case(*binding, planted, i);
    if (on_planted.holds) continue;
    const LawResult on_shipped = run_law_case(*binding, Backend::linked(), i);
    EXPECT_TRUE(on_shipped.holds) << "the shipped backend fails the same case: "
                                  << on_shipped.detail;
    std::cout << "caught on case " << i << ": " << on_planted.detail << "\n";
    return;
  }
  ADD_FAILURE() << row->law << " missed " << row->fault << " on " << row->attempts << " cases";
}

INSTANTIATE_TEST_SUITE_P(Faults, PlantedFault, ::testing::ValuesIn(all_rows()), row_name);

TEST(PlantedFaults, every_fault_of_every_family_has_a_law_that_sees_it) {
  for (const OpFamily* family : op_families()) {
    for (std::string_view fault : family->faults) {
      bool claimed = false;
      for (const FaultRow& row : family->fault_rows) claimed = claimed || row.fault == fault;
      EXPECT_TRUE(claimed) << family->family << "." << fault << " has no planted-fault row";
    }
  }
}

}  // namespace
}  // namespace gradconf::props
