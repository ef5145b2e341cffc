// The harness's thread settings (properties/harness/backend.cpp, ScopedBackendThreads): a law
// that asks for N threads gets small calls split across them (fine split); a benchmark gets the
// backend's own splitting, as a user who sets the count does. A fake operator reads the linked
// backend's setting while phase 2 runs.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "harness/backend.h"
#include "harness/harness.h"

namespace gradconf::props {
namespace {

int fine_split_seen = -1;

aclnnStatus plan(std::span<aclTensor* const>, uint64_t* workspace_size, aclOpExecutor** executor) {
  *workspace_size = 0;
  *executor = nullptr;
  return ACLNN_SUCCESS;
}

int read_fine_split() {
  const AclRuntime& rt = Backend::linked().runtime();
  const int setting = rt.set_fine_split(0);
  rt.set_fine_split(setting);
  return setting;
}

aclnnStatus records_fine_split(void*, uint64_t, aclOpExecutor*, aclrtStream) {
  fine_split_seen = read_fine_split();
  return ACLNN_SUCCESS;
}

int fine_split_in_phase2(bool fine_split) {
  const std::vector<TensorSpec> tensors = {
      {"input", {4}, ACL_FLOAT, ACL_FORMAT_ND, {}, false, false, {1, 2, 3, 4}}};
  RunOptions options;
  options.threads = 2;
  options.fine_split = fine_split;
  fine_split_seen = -1;
  const Outcome outcome = run_call(tensors, plan, records_fine_split, options, Backend::linked());
  EXPECT_EQ(outcome.status, ACLNN_SUCCESS);
  return fine_split_seen;
}

TEST(HarnessThreads, laws_split_small_calls_finely_and_benchmarks_time_the_backends_own_split) {
  ASSERT_EQ(read_fine_split(), 0);
  EXPECT_EQ(fine_split_in_phase2(true), 1);
  EXPECT_EQ(fine_split_in_phase2(false), 0);
  EXPECT_EQ(read_fine_split(), 0) << "the guard restores the setting";
}

}  // namespace
}  // namespace gradconf::props
