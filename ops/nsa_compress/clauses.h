// The NC-* validation table (spec nsa_compress.md "Validation"), shared by phase 1 of both entry
// points, the generators of just-invalid calls, the fuzzers' oracle and the traceability report.
// Phase 1 checks the attributes and actSeqLen before the shapes: the expected shapes of output
// and outputGrad follow from them (T_cmp).
#ifndef GRADCONF_OPS_NSA_COMPRESS_CLAUSES_H_
#define GRADCONF_OPS_NSA_COMPRESS_CLAUSES_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core/clause.h"
#include "core/direction.h"
#include "core/sequences.h"
#include "core/tensor.h"

namespace gradconf::nc {

/// The raw arguments of one phase-1 call. Forward: outputGrad and the two gradients are null and
/// ignored; backward: output is.
struct CallArgs {
  Direction direction = Direction::kBackward;
  const aclTensor* input = nullptr;
  const aclTensor* weight = nullptr;
  const aclTensor* output_grad = nullptr;
  const aclTensor* output = nullptr;
  const aclTensor* input_grad = nullptr;
  const aclTensor* weight_grad = nullptr;
  const aclIntArray* act_seq_len = nullptr;  ///< null: one batch of length T
  const char* layout = nullptr;              ///< null or "TND"
  int64_t block_size = 0;                    ///< compressBlockSize l
  int64_t stride = 0;                        ///< compressStride d
  int64_t act_seq_len_type = 0;
  uint64_t* workspace_size = nullptr;
  aclOpExecutor** executor = nullptr;
};

/// The sizes every shape relation is written in.
struct Sizes {
  int64_t tokens = 0, heads = 0, dim = 0, block = 0, stride = 0, compressed = 0;
};

/// One batch: its tokens and its windows (compressed rows [first_window, first_window + windows)).
struct Batch {
  SequenceRange tokens;
  int64_t windows = 0, first_window = 0;
};

/// n_b = L_b >= l ? (L_b - l) / d + 1 : 0. Precondition: l, d > 0.
int64_t windows_of(int64_t length, int64_t block, int64_t stride);

/// The batches of a call whose attributes and actSeqLen validated (NC-ATTR-01, NC-SEQ-01).
std::vector<Batch> batches_of(const CallArgs& args);

/// Sizes of a call whose ranks, attributes and actSeqLen validated.
Sizes sizes_of(const CallArgs& args);

/// The NC-* clauses in the order phase 1 checks them.
std::span<const Clause<CallArgs>> clause_table();

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_CLAUSES_H_
