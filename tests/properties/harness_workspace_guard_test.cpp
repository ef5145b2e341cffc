// The harness's workspace guard (properties/harness/harness.cpp): phase 2 may write all of the
// workspace it was given and nothing past it. A fake operator writes one byte at each side of
// that boundary; the guard must tell them apart.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "harness/backend.h"
#include "harness/harness.h"

namespace gradconf::props {
namespace {

constexpr uint64_t kWorkspaceBytes = 64;

aclnnStatus plan(std::span<aclTensor* const>, uint64_t* workspace_size, aclOpExecutor** executor) {
  *workspace_size = kWorkspaceBytes;
  *executor = nullptr;
  return ACLNN_SUCCESS;
}

aclnnStatus writes_last_byte(void* workspace, uint64_t size, aclOpExecutor*, aclrtStream) {
  static_cast<uint8_t*>(workspace)[size - 1] = 1;
  return ACLNN_SUCCESS;
}

aclnnStatus writes_one_past(void* workspace, uint64_t size, aclOpExecutor*, aclrtStream) {
  static_cast<uint8_t*>(workspace)[size] = 1;
  return ACLNN_SUCCESS;
}

Outcome run_fake(Phase2 phase2, bool misaligned) {
  const std::vector<TensorSpec> tensors = {
      {"input", {4}, ACL_FLOAT, ACL_FORMAT_ND, {}, false, false, {1, 2, 3, 4}}};
  RunOptions options;
  options.misaligned_workspace = misaligned;
  options.workspace_fill = WorkspaceFill::kGarbage;
  return run_call(tensors, plan, phase2, options, Backend::linked());
}

TEST(HarnessWorkspaceGuard, allows_the_last_byte_and_catches_one_past) {
  for (const bool misaligned : {false, true}) {
    const Outcome inside = run_fake(writes_last_byte, misaligned);
    EXPECT_EQ(inside.status, ACLNN_SUCCESS);
    EXPECT_TRUE(inside.workspace_guard_intact) << inside.violations;
    const Outcome past = run_fake(writes_one_past, misaligned);
    EXPECT_FALSE(past.workspace_guard_intact) << "misaligned " << misaligned;
    EXPECT_NE(past.violations.find("workspace written past workspaceSize"), std::string::npos);
  }
}

}  // namespace
}  // namespace gradconf::props
