// Phase-2 errors and executor lifetime (spec README §1), through the GridSampler2D C API.
#include "core/executor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "support/device_tensor.h"

namespace {

using gradconf::testing::BoolArray;
using gradconf::testing::DeviceBuffer;
using gradconf::testing::DeviceTensor;
using gradconf::testing::Fill;

// A valid backward call whose executor needs a workspace.
class Phase2Test : public ::testing::Test {
 protected:
  void SetUp() override {
    live_at_start_ = gradconf::live_executor_count();
    const std::vector<double> go(2 * 3 * 3 * 4, 0.5), in(2 * 3 * 5 * 6, 0.25),
        grid(2 * 3 * 4 * 2, 0.1);
    grad_output_ = DeviceTensor({2, 3, 3, 4}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kInput, go);
    input_ = DeviceTensor({2, 3, 5, 6}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kInput, in);
    grid_ = DeviceTensor({2, 3, 4, 2}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kInput, grid);
    input_grad_ = DeviceTensor({2, 3, 5, 6}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kCanary);
    grid_grad_ = DeviceTensor({2, 3, 4, 2}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kCanary);
    out_ = DeviceTensor({2, 3, 3, 4}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kCanary);
  }

  void TearDown() override {
    EXPECT_EQ(gradconf::live_executor_count(), live_at_start_) << "executor leaked";
  }

  aclOpExecutor* phase1(uint64_t* workspace_size) {
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = aclnnGridSampler2DBackwardGetWorkspaceSize(
        grad_output_.get(), input_.get(), grid_.get(), 0, 0, false, mask_.get(), input_grad_.get(),
        grid_grad_.get(), workspace_size, &executor);
    EXPECT_EQ(status, ACLNN_SUCCESS) << aclGetRecentErrMsg();
    EXPECT_NE(executor, nullptr);
    return executor;
  }

  bool outputs_untouched() const { return input_grad_.untouched() && grid_grad_.untouched(); }

  int64_t live_at_start_ = 0;
  BoolArray mask_{{true, true}};
  DeviceTensor grad_output_, input_, grid_, input_grad_, grid_grad_, out_;
};

TEST_F(Phase2Test, successful_run_then_second_run_is_runtime_error) {
  uint64_t ws = 0;
  aclOpExecutor* executor = phase1(&ws);
  ASSERT_GT(ws, 0u);
  EXPECT_EQ(gradconf::live_executor_count(), live_at_start_ + 1);
  DeviceBuffer workspace(ws, uint8_t{0});
  EXPECT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws, executor, nullptr), ACLNN_SUCCESS);
  EXPECT_FALSE(outputs_untouched());
  EXPECT_EQ(gradconf::live_executor_count(), live_at_start_);
  EXPECT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws, executor, nullptr),
            ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()), "");
}

TEST_F(Phase2Test, null_executor_is_nullptr_error) {
  uint64_t ws = 0;
  aclOpExecutor* executor = phase1(&ws);
  DeviceBuffer workspace(ws, uint8_t{0});
  EXPECT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws, nullptr, nullptr),
            ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_EQ(aclnnGridSampler2D(workspace.data(), ws, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_NE(std::string(aclGetRecentErrMsg()), "");
  EXPECT_TRUE(outputs_untouched());
  // The real executor is unaffected and still runs once.
  EXPECT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws, executor, nullptr), ACLNN_SUCCESS);
}

TEST_F(Phase2Test, short_workspace_is_invalid_then_executor_is_released) {
  uint64_t ws = 0;
  aclOpExecutor* executor = phase1(&ws);
  ASSERT_GT(ws, 1u);
  DeviceBuffer workspace(ws, uint8_t{0});
  EXPECT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws - 1, executor, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_NE(std::string(aclGetRecentErrMsg()), "");
  EXPECT_TRUE(outputs_untouched());
  EXPECT_TRUE(workspace.tail_untouched(0)) << "a rejected run touched the workspace";
  EXPECT_EQ(gradconf::live_executor_count(), live_at_start_);
  EXPECT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws, executor, nullptr),
            ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_TRUE(outputs_untouched());
}

TEST_F(Phase2Test, zero_workspace_size_when_one_is_needed_is_invalid) {
  uint64_t ws = 0;
  aclOpExecutor* executor = phase1(&ws);
  ASSERT_GT(ws, 0u);
  EXPECT_EQ(aclnnGridSampler2DBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(outputs_untouched());
  EXPECT_EQ(aclnnGridSampler2DBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_RUNTIME_ERROR);
}

TEST_F(Phase2Test, null_workspace_with_positive_size_is_invalid) {
  uint64_t ws = 0;
  aclOpExecutor* executor = phase1(&ws);
  ASSERT_GT(ws, 0u);
  EXPECT_EQ(aclnnGridSampler2DBackward(nullptr, ws, executor, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(outputs_untouched());
  EXPECT_EQ(gradconf::live_executor_count(), live_at_start_);
}

TEST_F(Phase2Test, larger_workspace_than_needed_is_fine) {
  uint64_t ws = 0;
  aclOpExecutor* executor = phase1(&ws);
  DeviceBuffer workspace(ws + 1000, uint8_t{0});
  EXPECT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws + 1000, executor, nullptr),
            ACLNN_SUCCESS);
}

TEST_F(Phase2Test, forged_handles_are_runtime_errors) {
  for (uintptr_t forged : {uintptr_t{0x1}, uintptr_t{0x1000}, uintptr_t{0xdeadbeef},
                           (uintptr_t{1} << 40) + 64 * 1000000}) {
    auto* executor = reinterpret_cast<aclOpExecutor*>(forged);
    EXPECT_EQ(aclnnGridSampler2DBackward(nullptr, 0, executor, nullptr), ACLNN_ERR_RUNTIME_ERROR)
        << std::hex << forged;
    EXPECT_EQ(aclnnGridSampler2D(nullptr, 0, executor, nullptr), ACLNN_ERR_RUNTIME_ERROR);
    EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_RUNTIME_ERROR);
  }
  EXPECT_EQ(aclDestroyAclOpExecutor(nullptr), ACLNN_ERR_PARAM_NULLPTR);
}

TEST_F(Phase2Test, destroy_of_unrun_executor_releases_it) {
  uint64_t ws = 0;
  aclOpExecutor* executor = phase1(&ws);
  EXPECT_EQ(gradconf::live_executor_count(), live_at_start_ + 1);
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_SUCCESS);
  EXPECT_EQ(gradconf::live_executor_count(), live_at_start_);
  DeviceBuffer workspace(ws, uint8_t{0});
  EXPECT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws, executor, nullptr),
            ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_TRUE(outputs_untouched());
  EXPECT_EQ(aclDestroyAclOpExecutor(executor), ACLNN_ERR_RUNTIME_ERROR);
}

TEST_F(Phase2Test, handles_are_never_reused) {
  uint64_t ws = 0;
  aclOpExecutor* first = phase1(&ws);
  ASSERT_EQ(aclDestroyAclOpExecutor(first), ACLNN_SUCCESS);
  aclOpExecutor* second = phase1(&ws);
  EXPECT_NE(first, second);
  EXPECT_EQ(aclnnGridSampler2DBackward(nullptr, 0, first, nullptr), ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_EQ(aclDestroyAclOpExecutor(second), ACLNN_SUCCESS);
}

// The forward's executor follows the same single-use contract.
TEST_F(Phase2Test, forward_executor_single_use_and_workspace_checks) {
  uint64_t ws = 123;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnGridSampler2DGetWorkspaceSize(input_.get(), grid_.get(), 0, 0, false, out_.get(),
                                               &ws, &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  DeviceBuffer workspace(ws, uint8_t{0});
  EXPECT_EQ(aclnnGridSampler2D(ws ? workspace.data() : nullptr, ws, executor, nullptr),
            ACLNN_SUCCESS);
  EXPECT_FALSE(out_.untouched());
  EXPECT_EQ(aclnnGridSampler2D(ws ? workspace.data() : nullptr, ws, executor, nullptr),
            ACLNN_ERR_RUNTIME_ERROR);
}

TEST_F(Phase2Test, phase1_is_repeatable_and_pure) {
  uint64_t ws1 = 0, ws2 = 0;
  aclOpExecutor* a = phase1(&ws1);
  aclOpExecutor* b = phase1(&ws2);
  EXPECT_EQ(ws1, ws2);
  EXPECT_NE(a, b);
  EXPECT_TRUE(outputs_untouched()) << "phase 1 wrote an output";
  EXPECT_EQ(aclDestroyAclOpExecutor(a), ACLNN_SUCCESS);
  EXPECT_EQ(aclDestroyAclOpExecutor(b), ACLNN_SUCCESS);
}

// Phase 1 copies what it needs: the caller may destroy the aclTensor and aclBoolArray objects
// (not the storage) before phase 2; the run must give the same bits as one with them alive.
TEST_F(Phase2Test, tensor_handles_destroyed_between_phases) {
  uint64_t ws = 0;
  aclOpExecutor* kept = phase1(&ws);
  DeviceBuffer workspace(ws, uint8_t{0});
  ASSERT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws, kept, nullptr), ACLNN_SUCCESS);
  const auto input_grad_bits = input_grad_.storage_bytes();
  const auto grid_grad_bits = grid_grad_.storage_bytes();
  // Same call again into fresh canary outputs, destroying every handle after phase 1.
  input_grad_ = DeviceTensor({2, 3, 5, 6}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kCanary);
  grid_grad_ = DeviceTensor({2, 3, 4, 2}, ACL_FLOAT, gradconf::LayoutSpec{}, Fill::kCanary);
  {
    BoolArray mask({true, true});
    aclOpExecutor* executor = nullptr;
    ASSERT_EQ(aclnnGridSampler2DBackwardGetWorkspaceSize(
                  grad_output_.get(), input_.get(), grid_.get(), 0, 0, false, mask.get(),
                  input_grad_.get(), grid_grad_.get(), &ws, &executor),
              ACLNN_SUCCESS);
    for (DeviceTensor* t : {&grad_output_, &input_, &grid_, &input_grad_, &grid_grad_}) {
      t->destroy_handle();
    }
    // The BoolArray is destroyed at the end of this scope, before phase 2.
    kept = executor;
  }
  EXPECT_EQ(aclnnGridSampler2DBackward(workspace.data(), ws, kept, nullptr), ACLNN_SUCCESS);
  EXPECT_TRUE(input_grad_.storage_bytes() == input_grad_bits);
  EXPECT_TRUE(grid_grad_.storage_bytes() == grid_grad_bits);
}

}  // namespace
