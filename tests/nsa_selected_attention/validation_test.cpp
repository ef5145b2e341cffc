// NSA-* boundaries that the boundary generators cannot reach with small problems: T1 at most 2M
// (2^21) in NSA-SEQ-01, and a batch's query or kv length at most 128K (131072) in NSA-SEQ-03.
// Float views are declared over tiny storage (validation never reads float data); topkIndices,
// which NSA-DATA-01 reads, has real storage. (The batch-count limit of NSA-SEQ-01 cannot fire
// alone: every batch holds a query, so batches <= T1.) The other clauses are exercised on both
// sides by the error_contract law of the registry (tests/properties).
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "aclnnop/aclnn_nsa_selected_attention_grad.h"
#include "core/profile.h"
#include "support/declared_tensor.h"

namespace {

using gradconf::testing::DeclaredTensor;

std::vector<int64_t> prefix_sums(const std::vector<int64_t>& lengths) {
  std::vector<int64_t> ends(lengths.size());
  std::partial_sum(lengths.begin(), lengths.end(), ends.begin());
  return ends;
}

// Phase 1 of the grad over batches of the given query and kv lengths: N1 = N2 = 1, D 128, B 16,
// K 1, every topk index 0.
aclnnStatus grad_phase1(const std::vector<int64_t>& q_lengths,
                        const std::vector<int64_t>& kv_lengths, std::string* message) {
  static uint16_t halves[64];
  static float floats[64];
  const std::vector<int64_t> q_ends = prefix_sums(q_lengths), kv_ends = prefix_sums(kv_lengths);
  const int64_t queries = q_ends.back(), keys = kv_ends.back();
  std::vector<int32_t> topk(static_cast<size_t>(queries), 0);
  DeclaredTensor query({queries, 1, 128}, ACL_FLOAT16, halves);
  DeclaredTensor key({keys, 1, 128}, ACL_FLOAT16, halves);
  DeclaredTensor value({keys, 1, 128}, ACL_FLOAT16, halves);
  DeclaredTensor grad({queries, 1, 128}, ACL_FLOAT16, halves);
  DeclaredTensor max({queries, 1, 8}, ACL_FLOAT, floats);
  DeclaredTensor sum({queries, 1, 8}, ACL_FLOAT, floats);
  DeclaredTensor indices({queries, 1, 1}, ACL_INT32, topk.data(), {1, 1, 1}, queries);
  DeclaredTensor dq({queries, 1, 128}, ACL_FLOAT16, halves, {128, 128, 1}, queries * 128);
  DeclaredTensor dk({keys, 1, 128}, ACL_FLOAT16, halves, {128, 128, 1}, keys * 128);
  DeclaredTensor dv({keys, 1, 128}, ACL_FLOAT16, halves, {128, 128, 1}, keys * 128);
  aclIntArray* seq_q = aclCreateIntArray(q_ends.data(), q_ends.size());
  aclIntArray* seq_kv = aclCreateIntArray(kv_ends.data(), kv_ends.size());
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

constexpr int64_t k128K = int64_t{128} << 10;

TEST(NsaValidation, seq_01_query_tokens_at_most_2m) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  // 2M queries in 16 batches of 128K (each within NSA-SEQ-03), then one query more.
  std::vector<int64_t> q(16, k128K), kv(16, 16);
  std::string message;
  EXPECT_EQ(grad_phase1(q, kv, &message), ACLNN_SUCCESS) << message;
  q.push_back(1);
  kv.push_back(16);
  EXPECT_EQ(grad_phase1(q, kv, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("NSA-SEQ-01: ", 0), 0u) << message;
}

// Seed 003 约束说明 "S：取值范围为1~128K", with 128K read as 131072 tokens.
TEST(NsaValidation, seq_03_batch_query_length_at_most_128k) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  std::string message;
  EXPECT_EQ(grad_phase1({k128K}, {16}, &message), ACLNN_SUCCESS) << message;
  EXPECT_EQ(grad_phase1({k128K + 1}, {16}, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("NSA-SEQ-03: ", 0), 0u) << message;
  // A later batch over the limit, after one within it.
  EXPECT_EQ(grad_phase1({5, k128K + 1}, {16, 16}, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("NSA-SEQ-03: ", 0), 0u) << message;
}

TEST(NsaValidation, seq_03_batch_kv_length_at_most_128k) {
  gradconf::ScopedSpecProfile seed(gradconf::SpecProfile::kSeed);
  std::string message;
  EXPECT_EQ(grad_phase1({1}, {k128K}, &message), ACLNN_SUCCESS) << message;
  // The probe: T2 = 131088 (a multiple of B = 16, so NSA-SEQ-02 holds).
  EXPECT_EQ(grad_phase1({1}, {k128K + 16}, &message), ACLNN_ERR_PARAM_INVALID);
  EXPECT_EQ(message.rfind("NSA-SEQ-03: ", 0), 0u) << message;
}

}  // namespace
