// The NSA-* validation table (spec nsa_selected_attention.md "Validation"), shared by phase 1 of
// both entry points, the generators of just-invalid calls, the fuzzers' oracle and the
// traceability report. NSA-DATA-01 reads every topk index (after the shapes and sequences that
// bound them validated) before phase 2 can read anything through them.
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_CLAUSES_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_CLAUSES_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core/clause.h"
#include "core/direction.h"
#include "core/sequences.h"
#include "core/tensor.h"

namespace gradconf::nsa {

/// The raw arguments of one phase-1 call. Forward: softmax_max/softmax_sum/attention_out are its
/// outputs (softmaxMaxOut, softmaxSumOut, attentionOut), the gradients null; backward: they are
/// inputs (attentionOut optional).
struct CallArgs {
  Direction direction = Direction::kBackward;
  const aclTensor* query = nullptr;
  const aclTensor* key = nullptr;
  const aclTensor* value = nullptr;
  const aclTensor* topk = nullptr;
  const aclTensor* atten_mask = nullptr;  ///< optional, never read
  const aclTensor* attention_out = nullptr;
  const aclTensor* attention_out_grad = nullptr;
  const aclTensor* softmax_max = nullptr;
  const aclTensor* softmax_sum = nullptr;
  const aclTensor* dq = nullptr;
  const aclTensor* dk = nullptr;
  const aclTensor* dv = nullptr;
  const aclIntArray* seq_q = nullptr;   ///< actualSeqQLenOptional (prefix sums)
  const aclIntArray* seq_kv = nullptr;  ///< actualSeqKvLenOptional (prefix sums)
  double scale = 1.0;
  int64_t head_num = 0;
  const char* layout = nullptr;
  int64_t sparse_mode = 0;
  int64_t block_size = 0;   ///< selectedBlockSize B
  int64_t block_count = 0;  ///< selectedBlockCount K
  uint64_t* workspace_size = nullptr;
  aclOpExecutor** executor = nullptr;
};

/// The sizes every shape relation is written in.
struct Sizes {
  int64_t q_tokens = 0, kv_tokens = 0, q_heads = 0, kv_heads = 0, group = 1, dim_qk = 0, dim_v = 0,
          block = 0, count = 0, batches = 0;
};

/// One batch: its query tokens and its key/value tokens.
struct Batch {
  SequenceRange q, kv;
};

/// Sizes of a call whose ranks and shapes validated.
Sizes sizes_of(const CallArgs& args);

/// The batches of a call whose sequences validated (NSA-SEQ-01).
std::vector<Batch> batches_of(const CallArgs& args);

/// topkIndices[t, n2, k] of a validated INT32 view.
int32_t topk_at(const aclTensor& topk, int64_t t, int64_t n2, int64_t k);

/// The NSA-* clauses in the order phase 1 checks them.
std::span<const Clause<CallArgs>> clause_table();

/// The largest T1, T2 and batch count NSA-SEQ-01 accepts ("1~2M").
inline constexpr int64_t kMaxTokens = int64_t{2} << 20;
/// The longest query or kv sequence of one batch NSA-SEQ-03 accepts: seed 003's "S: 1~128K",
/// read as 128 * 1024 tokens (CANN's K for sequence lengths).
inline constexpr int64_t kMaxBatchTokens = int64_t{128} << 10;

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_CLAUSES_H_
