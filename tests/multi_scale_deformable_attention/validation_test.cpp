// MSDA-* clauses that the boundary generators cannot reach with small problems, at their exact
// boundaries: MSDA-LIMIT-02 (Q < 500000) and MSDA-LIMIT-05 (workspace at most 2^62 bytes). Views
// are declared over tiny storage with zero strides (validation never reads float data), so no
// large memory is touched. The other clauses are exercised on both sides by the error_contract
// law of the registry (tests/properties).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "core/parallel.h"
#include "core/profile.h"
#include "support/declared_tensor.h"

namespace {

using Declared = gradconf::testing::DeclaredTensor;

// Phase 1 of the grad with bs = heads = P = L = 1, C = 8, one 1x1 level, `queries` queries and
// `keys` keys; outputs get contiguous strides over declared storage.
aclnnStatus grad_phase1(int64_t queries, int64_t keys, std::string* message) {
  static float floats[16];
  static int64_t shape[2] = {1, 1};
  static int64_t start[1] = {0};
  Declared value({1, keys, 1, 8}, ACL_FLOAT, floats);
  Declared spatial({1, 2}, ACL_INT64, shape, {2, 1}, 2);
  Declared level_start({1}, ACL_INT64, start, {1}, 1);
  Declared location({1, queries, 1, 1, 1, 2}, ACL_FLOAT, floats);
  Declared attn({1, queries, 1, 1, 1}, ACL_FLOAT, floats);
  Declared grad_output({1, queries, 1, 8}, ACL_FLOAT, floats);
  Declared grad_value({1, keys, 1, 8}, ACL_FLOAT, floats, {keys * 8, 8, 8, 1}, keys * 8);
  Declared grad_location({1, queries, 1, 1, 1, 2}, ACL_FLOAT, floats, {queries * 2, 2, 2, 2, 2, 1},
                         queries * 2);
  Declared grad_attn({1, queries, 1, 1, 1}, ACL_FLOAT, floats, {queries, 1, 1, 1, 1}, queries);
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(
      value.tensor, spatial.tensor, level_start.tensor, location.tensor, attn.tensor,
      grad_output.tensor, grad_value.tensor, grad_location.tensor, grad_attn.tensor, &workspace,
      &executor);
  *message = aclGetRecentErrMsg();
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  return status;
}

TEST(MsdaValidation, limit_02_queries_below_500000) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  std::string message;
  EXPECT_EQ(grad_phase1(499999, 1, &message), ACLNN_SUCCESS) << message;
  EXPECT_EQ(grad_phase1(500000, 1, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("MSDA-LIMIT-02: ", 0), 0u) << message;
}

// One worker (one (batch, head) slice): a slice block of keys rows, each 8 values and 8 sums,
// sized at the widest compute type (double) for every dtype: 128 * keys bytes, at most 2^62
// bytes: keys = 2^55 is the largest accepted.
TEST(MsdaValidation, limit_05_workspace_boundary_is_exact) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const int64_t largest = int64_t{1} << 55;
  std::string message;
  EXPECT_EQ(grad_phase1(1, largest, &message), ACLNN_SUCCESS) << message;
  EXPECT_EQ(grad_phase1(1, largest + 1, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("MSDA-LIMIT-05: ", 0), 0u) << message;
}

}  // namespace
