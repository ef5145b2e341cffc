// NSA-* boundaries that the boundary generators cannot reach with small problems: T1 at most 2M
// (2^21) in NSA-SEQ-01. Float views are declared over tiny storage (validation never reads float
// data); topkIndices, which NSA-DATA-01 reads, has real storage. (The batch-count limit of the
// same clause cannot fire alone: every batch holds a query, so batches <= T1.) The other clauses
// are exercised on both sides by the error_contract law of the registry (tests/properties).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "aclnnop/aclnn_nsa_selected_attention_grad.h"
#include "core/profile.h"
#include "support/declared_tensor.h"

namespace {

using gradconf::testing::DeclaredTensor;

// Phase 1 of the grad: one batch of `queries` queries over 16 keys, N1 = N2 = 1, D 128, B 16, K 1.
aclnnStatus grad_phase1(int64_t queries, std::string* message) {
  static uint16_t halves[64];
  static float floats[64];
  std::vector<int32_t> topk(static_cast<size_t>(queries), 0);
  DeclaredTensor query({queries, 1, 128}, ACL_FLOAT16, halves);
  DeclaredTensor key({16, 1, 128}, ACL_FLOAT16, halves);
  DeclaredTensor value({16, 1, 128}, ACL_FLOAT16, halves);
  DeclaredTensor grad({queries, 1, 128}, ACL_FLOAT16, halves);
  DeclaredTensor max({queries, 1, 8}, ACL_FLOAT, floats);
  DeclaredTensor sum({queries, 1, 8}, ACL_FLOAT, floats);
  DeclaredTensor indices({queries, 1, 1}, ACL_INT32, topk.data(), {1, 1, 1}, queries);
  DeclaredTensor dq({queries, 1, 128}, ACL_FLOAT16, halves, {128, 128, 1}, queries * 128);
  DeclaredTensor dk({16, 1, 128}, ACL_FLOAT16, halves, {128, 128, 1}, 16 * 128);
  DeclaredTensor dv({16, 1, 128}, ACL_FLOAT16, halves, {128, 128, 1}, 16 * 128);
  const int64_t q_end[] = {queries}, kv_end[] = {16};
  aclIntArray* seq_q = aclCreateIntArray(q_end, 1);
  aclIntArray* seq_kv = aclCreateIntArray(kv_end, 1);
  char layout[] = "TND";
  uint64_t workspace = 0;
  aclOpExecutor* executor = nullptr;
  const aclnnStatus status = aclnnNsaSelectedAttentionGradGetWorkspaceSize(
      query.tensor, key.tensor, value.tensor, nullptr, grad.tensor, max.tensor, sum.tensor,
      indices.tensor, seq_q, seq_kv, nullptr, 0.088, 16, 1, 1, layout, 2, dq.tensor, dk.tensor,
      dv.tensor, &workspace, &executor);
  *message = aclGetRecentErrMsg();
  if (status == ACLNN_SUCCESS) aclDestroyAclOpExecutor(executor);
  aclDestroyIntArray(seq_q);
  aclDestroyIntArray(seq_kv);
  return status;
}

TEST(NsaValidation, seq_01_query_tokens_at_most_2m) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  const int64_t largest = int64_t{2} << 20;
  std::string message;
  EXPECT_EQ(grad_phase1(largest, &message), ACLNN_SUCCESS) << message;
  EXPECT_EQ(grad_phase1(largest + 1, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("NSA-SEQ-01: ", 0), 0u) << message;
}

}  // namespace
