// White-box determinism checks on one large GridSampler2DBackward case: bitwise identical results
// for thread counts 1, 2, 3, 8, for a workspace full of garbage (0xFF bytes, NaN), strided outputs,
// and concurrent calls from application threads. (Different thread counts per phase and a
// misaligned workspace are part of laws 7 and 9, run for every op.)
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "grid_sampler2d/problem.h"
#include "support/grid_sampler2d_tester.h"

namespace {

using gradconf::testing::GridSampler2DBackwardTester;
using gradconf::testing::Role;
using gradconf::testing::RunResult;
using gradconf::testing::WorkspaceFill;

GridSampler2DBackwardTester medium_case(aclDataType dtype) {
  // 2 x 4 planes of 13 x 17 pixels, 2 x 48 x 40 = 3840 points: enough work for 2, 3 and 8
  // threads to split every pass (locate: grain 1024 points; gridGrad and forward: 4096 / C points;
  // inputGrad: one plane) into several chunks.
  return GridSampler2DBackwardTester()
      .dtype(dtype)
      .batch(2)
      .channels(4)
      .input_size(13, 17)
      .output_size(48, 40)
      .seed(42);
}

void expect_same_bits(const RunResult& a, const RunResult& b, const std::string& what) {
  ASSERT_EQ(a.phase1, ACLNN_SUCCESS) << a.message;
  ASSERT_EQ(a.phase2, ACLNN_SUCCESS) << a.message;
  ASSERT_EQ(b.phase1, ACLNN_SUCCESS) << b.message;
  ASSERT_EQ(b.phase2, ACLNN_SUCCESS) << b.message;
  EXPECT_TRUE(a.input_grad_bytes == b.input_grad_bytes) << what << ": inputGrad bits differ";
  EXPECT_TRUE(a.grid_grad_bytes == b.grid_grad_bytes) << what << ": gridGrad bits differ";
  EXPECT_TRUE(a.out_bytes == b.out_bytes) << what << ": out bits differ";
  EXPECT_TRUE(b.workspace_tail_intact) << what << ": a byte beyond workspaceSize was written";
  EXPECT_TRUE(b.gaps_intact) << what;
}

class Determinism : public ::testing::TestWithParam<aclDataType> {};

TEST_P(Determinism, thread_counts_1_2_3_8_give_identical_bits) {
  for (int64_t interpolation : {0, 1}) {
    for (bool forward : {false, true}) {
      GridSampler2DBackwardTester t = medium_case(GetParam());
      t.interpolation(interpolation).padding(1).forward(forward);
      const RunResult one = GridSampler2DBackwardTester(t).threads(1).Run();
      for (int threads : {2, 3, 8}) {
        expect_same_bits(one, GridSampler2DBackwardTester(t).threads(threads).Run(),
                         "threads " + std::to_string(threads));
      }
      // Repeated runs.
      expect_same_bits(one, GridSampler2DBackwardTester(t).threads(1).Run(), "repeat");
      // The result is also the right one.
      GridSampler2DBackwardTester(t).threads(3).Test();
    }
  }
}

TEST_P(Determinism, garbage_workspace_gives_the_same_bits) {
  for (int64_t interpolation : {0, 1}) {
    GridSampler2DBackwardTester t = medium_case(GetParam());
    t.interpolation(interpolation).threads(3);
    const RunResult zero =
        GridSampler2DBackwardTester(t).workspace_fill(WorkspaceFill::kZero).Run();
    ASSERT_GT(zero.workspace_size, 0u);
    expect_same_bits(zero,
                     GridSampler2DBackwardTester(t).workspace_fill(WorkspaceFill::kOnes).Run(),
                     "workspace 0xFF");
    expect_same_bits(zero, GridSampler2DBackwardTester(t).workspace_fill(WorkspaceFill::kNaN).Run(),
                     "workspace NaN");
  }
}

TEST_P(Determinism, strided_outputs_equal_contiguous_bits_per_element) {
  const GridSampler2DBackwardTester t = medium_case(GetParam()).threads(2);
  const RunResult contiguous = GridSampler2DBackwardTester(t).Run();
  GridSampler2DBackwardTester strided(t);
  strided.layout(Role::kInput, gradconf::LayoutSpec{{0, 2, 3, 1}, 1, 3})
      .layout(Role::kGrid, gradconf::LayoutSpec{{3, 0, 1, 2}, 2, 1})
      .layout(Role::kGradOutput, gradconf::LayoutSpec{{1, 0, 2, 3}, 0, 5})
      .layout(Role::kInputGrad, gradconf::LayoutSpec{{0, 3, 2, 1}, 2, 2})
      .layout(Role::kGridGrad, gradconf::LayoutSpec{{3, 2, 1, 0}, 1, 7});
  const RunResult s = strided.Run();
  ASSERT_EQ(s.phase2, ACLNN_SUCCESS) << s.message;
  ASSERT_EQ(s.input_grad.size(), contiguous.input_grad.size());
  ASSERT_EQ(s.grid_grad.size(), contiguous.grid_grad.size());
  // Logical values (decoded from the dtype) compared bitwise as doubles: the decode is exact.
  EXPECT_EQ(std::memcmp(s.input_grad.data(), contiguous.input_grad.data(),
                        s.input_grad.size() * sizeof(double)),
            0);
  EXPECT_EQ(std::memcmp(s.grid_grad.data(), contiguous.grid_grad.data(),
                        s.grid_grad.size() * sizeof(double)),
            0);
  EXPECT_TRUE(s.gaps_intact);
}

// Independent calls from several application threads share the kernels' pool; each must still
// get the single-threaded bits.
TEST_P(Determinism, concurrent_calls_from_application_threads) {
  GridSampler2DBackwardTester t = medium_case(GetParam());
  const RunResult one = GridSampler2DBackwardTester(t).threads(1).Run();
  std::vector<RunResult> results(4);
  std::vector<std::thread> callers;
  for (size_t i = 0; i < results.size(); ++i) {
    callers.emplace_back([&, i] {
      for (int repeat = 0; repeat < 3; ++repeat) results[i] = GridSampler2DBackwardTester(t).Run();
    });
  }
  for (auto& c : callers) c.join();
  for (size_t i = 0; i < results.size(); ++i) {
    expect_same_bits(one, results[i], "caller thread " + std::to_string(i));
  }
}

INSTANTIATE_TEST_SUITE_P(GridSampler2DBackward, Determinism,
                         ::testing::Values(ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE),
                         [](const ::testing::TestParamInfo<aclDataType>& info) {
                           return std::string(
                               gradconf::grid_sampler2d::dtype_repro_name(info.param));
                         });

}  // namespace
