// NC-* clauses that the boundary generators cannot reach with small problems, at their exact
// boundaries: NC-LIMIT-02 (the backward's workspace at most 2^62 bytes). Views are declared over
// tiny storage (validation never reads float data), so no large memory is touched. The other
// clauses are exercised on both sides by the error_contract law of the registry
// (tests/properties).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "aclnnop/aclnn_nsa_compress_grad.h"
#include "core/profile.h"
#include "support/declared_tensor.h"

namespace {

using gradconf::testing::DeclaredTensor;

// Phase 1 of the grad (`extended`) with one token, l = d = 1 (T_cmp 1), N 1 and head dim `dim`.
// (In `seed`, l > d >= 16 makes the workspace at most half of input's element count in bytes, so
// the limit is reachable only where every l, d is allowed.)
aclnnStatus grad_phase1(int64_t dim, std::string* message) {
  static uint16_t halves[64];
  DeclaredTensor output_grad({1, 1, dim}, ACL_FLOAT16, halves);
  DeclaredTensor input({1, 1, dim}, ACL_FLOAT16, halves);
  DeclaredTensor weight({1, 1}, ACL_FLOAT16, halves, {1, 1}, 1);
  DeclaredTensor input_grad({1, 1, dim}, ACL_FLOAT16, halves, {dim, dim, 1}, dim);
  DeclaredTensor weight_grad({1, 1}, ACL_FLOAT16, halves, {1, 1}, 1);
  const int64_t ends[] = {1};
  aclIntArray* seq = aclCreateIntArray(ends, 1);
  char layout[] = "TND";
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnNsaCompressGradGetWorkspaceSize(
      output_grad.tensor, input.tensor, weight.tensor, seq, 1, 1, 0, layout, input_grad.tensor,
      weight_grad.tensor, &workspace, &executor);
  *message = aclGetRecentErrMsg();
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  aclDestroyIntArray(seq);
  return status;
}

// Workspace = outputGrad in double (T_cmp * N * D * 8 bytes, aligned up to 64) + one chunk of
// weightGrad partials (l * N * 8 bytes, aligned up to 64): D = 2^59 - 8 gives exactly 2^62
// bytes, the largest accepted; D = 2^59 - 7 aligns up past it.
TEST(NcValidation, limit_02_workspace_boundary_is_exact) {
  gradconf::ScopedSpecProfile extended(gradconf::SpecProfile::kExtended);
  const int64_t largest = (int64_t{1} << 59) - 8;
  std::string message;
  EXPECT_EQ(grad_phase1(largest, &message), ACLNN_SUCCESS) << message;
  EXPECT_EQ(grad_phase1(largest + 1, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("NC-LIMIT-02: ", 0), 0u) << message;
}

}  // namespace
