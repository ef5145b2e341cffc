// Mutants smoke test: the test-only mutant library links, Fault::kNone is our backend bit for bit,
// and the kernel-vs-reference comparison of kernel_reference_test.cpp FAILS for planted faults,
// which proves that comparison able to fail. (The full "every law catches its fault" matrix
// belongs to the properties.)
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "grid_sampler2d/faults.h"
#include "support/grid_sampler2d_tester.h"
#include "support/planted_backend.h"

namespace {

using gradconf::grid_sampler2d::Fault;
using gradconf::grid_sampler2d::fault_name;
constexpr auto kAllFaults = gradconf::planted_faults<gradconf::grid_sampler2d::Fault>();
using gradconf::props::Backend;

namespace {
const Backend& default_backend() { return Backend::linked(); }
const Backend& mutant_backend(Fault fault) {
  return gradconf::testing::planted_backend("grid_sampler2d", fault_name(fault));
}
}  // namespace
using gradconf::testing::GridSampler2DBackwardTester;
using gradconf::testing::RunResult;

TEST(GridSampler2DMutants, every_fault_has_a_backend_and_a_unique_name) {
  std::set<std::string> names;
  for (Fault fault : kAllFaults) {
    const Backend& b = mutant_backend(fault);
    EXPECT_NE(GRADCONF_ENTRY(b, aclnnGridSampler2DGetWorkspaceSize), nullptr);
    EXPECT_NE(GRADCONF_ENTRY(b, aclnnGridSampler2DBackwardGetWorkspaceSize), nullptr);
    const std::string name(fault_name(fault));
    EXPECT_NE(name, "unknown");
    EXPECT_NE(name, "none");
    EXPECT_TRUE(names.insert(name).second) << "duplicate fault name " << name;
    // The planted library is another library than ours (else nothing is planted).
    EXPECT_NE(GRADCONF_ENTRY(b, aclnnGridSampler2DBackwardGetWorkspaceSize),
              GRADCONF_ENTRY(default_backend(), aclnnGridSampler2DBackwardGetWorkspaceSize))
        << name;
  }
  EXPECT_EQ(names.size(), kAllFaults.size());
}

TEST(GridSampler2DMutants, fault_none_is_bitwise_the_default_backend) {
  for (int64_t interpolation : {0, 1}) {
    for (int64_t padding : {0, 1}) {
      for (bool forward : {false, true}) {
        GridSampler2DBackwardTester t;
        t.batch(2)
            .channels(3)
            .input_size(5, 6)
            .output_size(7, 4)
            .interpolation(interpolation)
            .padding(padding)
            .align_corners(padding == 1)
            .forward(forward)
            .seed(9);
        const RunResult ours = GridSampler2DBackwardTester(t).backend(default_backend()).Run();
        const RunResult none =
            GridSampler2DBackwardTester(t).backend(mutant_backend(Fault::kNone)).Run();
        ASSERT_EQ(ours.phase2, ACLNN_SUCCESS) << ours.message;
        ASSERT_EQ(none.phase2, ACLNN_SUCCESS) << none.message;
        EXPECT_EQ(ours.workspace_size, none.workspace_size);
        EXPECT_TRUE(ours.input_grad_bytes == none.input_grad_bytes);
        EXPECT_TRUE(ours.grid_grad_bytes == none.grid_grad_bytes);
        EXPECT_TRUE(ours.out_bytes == none.out_bytes);
      }
    }
  }
}

// The case passes against our backend and FAILS the comparison against the mutant.
void expect_caught(const GridSampler2DBackwardTester& t, Fault fault) {
  SCOPED_TRACE(std::string(fault_name(fault)) + ": " + t.describe());
  const auto ours = GridSampler2DBackwardTester(t).backend(default_backend()).Evaluate();
  EXPECT_FALSE(ours.failed()) << ours.report();
  const auto mutant = GridSampler2DBackwardTester(t).backend(mutant_backend(fault)).Evaluate();
  EXPECT_TRUE(mutant.any_comparison_failed())
      << "the kernel-vs-reference comparison did not catch the planted fault\n"
      << mutant.report();
}

GridSampler2DBackwardTester random_case() {
  return GridSampler2DBackwardTester().batch(2).channels(3).input_size(5, 6).output_size(6, 7).seed(
      21);
}

TEST(GridSampler2DMutants, comparison_catches_wrong_bilinear_weight) {
  expect_caught(random_case(), Fault::kWrongBilinearWeight);
  expect_caught(random_case().forward(), Fault::kWrongBilinearWeight);
}

TEST(GridSampler2DMutants, comparison_catches_swapped_grid_grad_xy) {
  expect_caught(random_case().mask(false, true), Fault::kSwappedGridGradXY);
}

TEST(GridSampler2DMutants, comparison_catches_dropped_border_clamp) {
  // Border padding with points well outside [-1, 1]: clamped they sample the border pixels.
  std::vector<double> grid;
  for (int i = 0; i < 2 * 6 * 7; ++i) {
    grid.push_back(-1.8 + 0.09 * i);
    grid.push_back(1.7 - 0.07 * i);
  }
  expect_caught(random_case().padding(1).grid_values(grid), Fault::kDroppedBorderClamp);
  expect_caught(random_case().padding(1).grid_values(grid).forward(), Fault::kDroppedBorderClamp);
}

TEST(GridSampler2DMutants, comparison_catches_off_by_one_tap) {
  expect_caught(random_case(), Fault::kOffByOneTap);
  expect_caught(random_case().forward(), Fault::kOffByOneTap);
}

TEST(GridSampler2DMutants, comparison_catches_nearest_rounding_half_up) {
  // Input width 4, height 4, alignCorners false: x = (2k + 2) / 4 - 1 gives ix = k + 0.5, exactly
  // half-way. Half to even takes 0, 2, 2, 4 for k = 0..3; half up takes 1, 2, 3, 4.
  std::vector<double> grid;
  const double half_way[] = {-0.5, 0.0, 0.5, 1.0};
  for (int n = 0; n < 2; ++n) {
    for (int i = 0; i < 16; ++i) {
      grid.push_back(half_way[i % 4]);
      grid.push_back(half_way[i / 4]);
    }
  }
  const auto t = GridSampler2DBackwardTester()
                     .batch(2)
                     .channels(3)
                     .input_size(4, 4)
                     .output_size(4, 4)
                     .interpolation(1)
                     .grid_values(grid);
  expect_caught(t, Fault::kNearestRoundsHalfUp);
  expect_caught(GridSampler2DBackwardTester(t).forward(), Fault::kNearestRoundsHalfUp);
  for (aclDataType dtype : {ACL_FLOAT16, ACL_BF16, ACL_DOUBLE}) {
    expect_caught(GridSampler2DBackwardTester(t).dtype(dtype), Fault::kNearestRoundsHalfUp);
  }
}

}  // namespace
