// Every law proves it can fail: each row plants one fault in the GridSampler2D call path
// (ops/grid_sampler2d/faults.h, compiled only into the planted-fault backend library) and
// requires the law to reject the mutant on one of a fixed set of generated problems, while the
// shipped backend satisfies the law on that same problem (so the failure is the fault's doing).
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gen/grid_sampler2d_gen.h"
#include "grid_sampler2d/faults.h"
#include "support/planted_backend.h"
#include "laws/grid_sampler2d_traits.h"
#include "laws/laws.h"
#include "property_support.h"

namespace gradconf::props {
namespace {

using Traits = GridSampler2DTraits;
using Problem = Traits::Problem;
using grid_sampler2d::Entry;
using grid_sampler2d::Fault;
using grid_sampler2d::fault_name;

const Backend& mutant_backend(Fault fault) {
  return gradconf::testing::planted_backend("grid_sampler2d", fault_name(fault));
}
using testing::first_failure;

using ProblemLaw = std::function<LawResult(const Problem&, const Backend&)>;

struct PlantedFault {
  const char* law;
  Fault fault;
  std::optional<Entry> entry;  ///< restrict the generator to one entry point
  int attempts;                ///< problems drawn before the row fails
};

ProblemLaw law_named(const std::string& law) {
  if (law == "matches_reference") return matches_reference<Traits>;
  if (law == "adjoint_identity") return adjoint_identity<Traits>;
  if (law == "finite_differences") {
    return [](const Problem& p, const Backend& b) { return finite_differences<Traits>(p, b, p.seed); };
  }
  if (law == "linear_in_incoming_gradient") {
    return [](const Problem& p, const Backend& b) {
      return linear_in_incoming_gradient<Traits>(p, b, -2.0, 0.5);
    };
  }
  if (law == "stride_invariance") return stride_invariance<Traits>;
  if (law == "dtype_agreement") return dtype_agreement<Traits>;
  if (law == "determinism") return determinism<Traits>;
  if (law == "batch_split") {
    return [](const Problem& p, const Backend& b) { return batch_split<Traits>(p, b, p.n / 2); };
  }
  if (law == "workspace_contract") return workspace_contract<Traits>;
  ADD_FAILURE() << "unknown law " << law;
  return {};
}

// Problem laws: the pairs below are the faults each law is meant to see (a law may see more).
const PlantedFault kProblemLawRows[] = {
    {"matches_reference", Fault::kWrongBilinearWeight, std::nullopt, 50},
    {"matches_reference", Fault::kDroppedBorderClamp, std::nullopt, 100},
    {"matches_reference", Fault::kSwappedGridGradXY, Entry::kBackward, 50},
    {"matches_reference", Fault::kOffByOneTap, std::nullopt, 50},
    {"matches_reference", Fault::kNearestRoundsHalfUp, std::nullopt, 200},
    {"matches_reference", Fault::kBackwardSwapsTapWeights, Entry::kBackward, 50},
    {"matches_reference", Fault::kGridOfFirstBatchOnly, Entry::kBackward, 100},
    {"matches_reference", Fault::kDoubleComputedInFloat, std::nullopt, 200},
    {"matches_reference", Fault::kIgnoresOutputMask, Entry::kBackward, 200},
    {"adjoint_identity", Fault::kBackwardSwapsTapWeights, Entry::kBackward, 100},
    {"finite_differences", Fault::kWrongBilinearWeight, Entry::kBackward, 50},
    {"finite_differences", Fault::kSwappedGridGradXY, Entry::kBackward, 50},
    {"finite_differences", Fault::kAbsIncomingGradient, Entry::kBackward, 50},
    {"linear_in_incoming_gradient", Fault::kAbsIncomingGradient, Entry::kBackward, 100},
    {"stride_invariance", Fault::kIgnoredGridGradStride, Entry::kBackward, 300},
    {"dtype_agreement", Fault::kDoubleComputedInFloat, std::nullopt, 100},
    {"determinism", Fault::kThreadDependentSum, Entry::kBackward, 300},
    {"batch_split", Fault::kGridOfFirstBatchOnly, Entry::kBackward, 200},
    {"workspace_contract", Fault::kWorkspaceAssumedZero, Entry::kBackward, 100},
    {"workspace_contract", Fault::kPhase1WritesOutputs, Entry::kBackward, 100},
};

std::string row_name(const ::testing::TestParamInfo<PlantedFault>& info) {
  return std::string(info.param.law) + "_sees_" + std::string(fault_name(info.param.fault));
}

class ProblemLawPlantedFault : public ::testing::TestWithParam<PlantedFault> {};

TEST_P(ProblemLawPlantedFault, law_rejects_the_mutant) {
  const PlantedFault& row = GetParam();
  const ProblemLaw law = law_named(row.law);
  const Backend& mutant = mutant_backend(row.fault);
  const Backend& shipped = Traits::default_backend();
  gs::GenOptions options;
  options.entry = row.entry;
  std::string shipped_failure;
  const auto caught = first_failure<Problem>(
      gs::gen_problem(options), row.attempts, [&](const Problem& p) -> std::optional<std::string> {
        const LawResult on_mutant = law(p, mutant);
        if (on_mutant.holds) return std::nullopt;
        const LawResult on_shipped = law(p, shipped);
        if (!on_shipped.holds) shipped_failure = on_shipped.detail;
        return on_mutant.detail;
      });
  ASSERT_TRUE(caught.has_value()) << row.law << " missed " << fault_name(row.fault) << " on "
                                  << row.attempts << " problems";
  EXPECT_EQ(shipped_failure, "") << "the shipped backend fails the same problem";
  std::cout << "caught: " << *caught << "\n";
}

INSTANTIATE_TEST_SUITE_P(GridSampler2D, ProblemLawPlantedFault,
                         ::testing::ValuesIn(kProblemLawRows), row_name);

// Law 10 against a phase 1 that skips GS-SHAPE-04.
TEST(ErrorContractPlantedFault, error_contract_sees_missing_clause_shape04) {
  const Backend& mutant = mutant_backend(Fault::kMissingClauseShape04);
  const Backend& shipped = Traits::default_backend();
  const auto caught = first_failure<gs::BoundaryCase>(
      gs::gen_boundary_case(), 2000, [&](const gs::BoundaryCase& bc) -> std::optional<std::string> {
        const ClauseExpectation expected{bc.clause_id, bc.expected_status, bc.just_valid};
        std::ostringstream repro;
        repro << bc;
        const LawResult on_mutant = error_contract<Traits>(bc.call, expected, repro.str(), mutant);
        if (on_mutant.holds) return std::nullopt;
        EXPECT_TRUE(error_contract<Traits>(bc.call, expected, repro.str(), shipped).holds);
        return on_mutant.detail;
      });
  ASSERT_TRUE(caught.has_value()) << "error_contract missed missing_clause_shape04";
  std::cout << "caught: " << *caught << "\n";
}

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

// Every fault the mutants target offers is claimed by at least one row above.
TEST(PlantedFaults, every_fault_has_a_law_that_sees_it) {
  for (Fault fault : grid_sampler2d::kAllFaults) {
    bool claimed = fault == Fault::kMissingClauseShape04;
    for (const PlantedFault& row : kProblemLawRows) claimed = claimed || row.fault == fault;
    EXPECT_TRUE(claimed) << fault_name(fault) << " has no planted-fault row";
  }
}

}  // namespace
}  // namespace gradconf::props
