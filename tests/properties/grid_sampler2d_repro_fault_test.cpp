// The repro law proves it can fail: a GridSampler2D problem descriptor whose line drops a field.
// (Backend faults are planted through the registry: registry_planted_faults_test.cpp.)
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "families/grid_sampler2d/gen.h"
#include "laws/laws.h"
#include "property_support.h"

namespace gradconf::props {
namespace {

using Problem = grid_sampler2d::Problem;
using testing::first_failure;

// The repro law against a descriptor whose line loses the seed.
struct SeedDroppingProblem {
  Problem problem;
  bool operator==(const SeedDroppingProblem&) const = default;
  std::string to_repro() const {
    Problem without_seed = problem;
    without_seed.seed = Problem{}.seed;
    return without_seed.to_repro();
  }
  static std::optional<SeedDroppingProblem> parse_repro(std::string_view line) {
    auto parsed = Problem::parse_repro(line);
    if (!parsed) return std::nullopt;
    return SeedDroppingProblem{*parsed};
  }
};

TEST(ReproPlantedFault, repro_round_trip_sees_a_dropped_field) {
  const auto caught = first_failure<Problem>(
      gs::gen_problem(), 20, [](const Problem& p) -> std::optional<std::string> {
        EXPECT_TRUE(repro_round_trip(p).holds);
        const LawResult result = repro_round_trip(SeedDroppingProblem{p});
        if (result.holds) return std::nullopt;
        return result.detail;
      });
  ASSERT_TRUE(caught.has_value());
}

}  // namespace
}  // namespace gradconf::props
