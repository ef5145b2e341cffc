// The harness's workspace guard (properties/harness/harness.cpp): phase 2 may write all of the
// workspace it was given and nothing past it. A fake operator writes one byte at each side of
// that boundary; the guard must tell them apart. And a workspace block the thread reuses from an
// earlier call holds the fill this call asked for, not what the earlier call wrote.
#include <gtest/gtest.h>

#include <algorithm>
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

// What scribbles saw of its workspace: where it was and whether every byte was zero.
void* seen_workspace = nullptr;
bool seen_zeroed = false;

aclnnStatus scribbles(void* workspace, uint64_t size, aclOpExecutor*, aclrtStream) {
  auto* bytes = static_cast<uint8_t*>(workspace);
  seen_workspace = workspace;
  seen_zeroed = std::all_of(bytes, bytes + size, [](uint8_t b) { return b == 0; });
  std::fill(bytes, bytes + size, uint8_t{0x77});
  return ACLNN_SUCCESS;
}

Outcome run_fake(Phase2 phase2, bool misaligned, WorkspaceFill fill = WorkspaceFill::kGarbage) {
  const std::vector<TensorSpec> tensors = {
      {"input", {4}, ACL_FLOAT, ACL_FORMAT_ND, {}, false, false, {1, 2, 3, 4}}};
  RunOptions options;
  options.misaligned_workspace = misaligned;
  options.workspace_fill = fill;
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

TEST(HarnessWorkspaceGuard, a_reused_block_holds_the_fill_asked_for) {
  release_thread_caches();
  ASSERT_EQ(run_fake(scribbles, false, WorkspaceFill::kZero).status, ACLNN_SUCCESS);
  ASSERT_TRUE(seen_zeroed);
  void* const first = seen_workspace;
  const Outcome second = run_fake(scribbles, false, WorkspaceFill::kZero);
  ASSERT_EQ(second.status, ACLNN_SUCCESS);
  EXPECT_EQ(seen_workspace, first) << "the second call of the same sizes got another block";
  EXPECT_TRUE(seen_zeroed) << "the reused block kept the first call's bytes";
  EXPECT_TRUE(second.workspace_guard_intact) << second.violations;
  release_thread_caches();
}

}  // namespace
}  // namespace gradconf::props
