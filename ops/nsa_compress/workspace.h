// The backward's workspace plan, apart from the kernel so that clause NC-LIMIT-02 can size a call
// before phase 1 builds an executor for it: outputGrad converted once to the compute type (every
// row of it is read by the l tokens of its window), then one double weightGrad partial (l x N)
// per chunk of tokens. Chunks are fixed by the problem, not by the thread count, and are summed in
// order: bitwise identical weightGrad for any thread count. At most kMaxChunks chunks, so the
// partials stay a small multiple of weightGrad however long the sequences.
#ifndef GRADCONF_OPS_NSA_COMPRESS_WORKSPACE_H_
#define GRADCONF_OPS_NSA_COMPRESS_WORKSPACE_H_

#include <algorithm>
#include <cstdint>
#include <optional>

#include <type_traits>

#include "core/checked_math.h"
#include "core/dtype.h"
#include "core/executor.h"
#include "nsa_compress/clauses.h"

namespace gradconf::nc {

inline constexpr int64_t kMinChunkTokens = 256;
inline constexpr int64_t kMaxChunks = 64;

/// Tokens per weightGrad chunk: at least kMinChunkTokens, at most kMaxChunks chunks.
inline int64_t chunk_tokens(int64_t tokens) {
  return std::max(kMinChunkTokens, tokens / kMaxChunks + (tokens % kMaxChunks != 0));
}

struct BackwardWorkspace {
  uint64_t grad_bytes = 0;     ///< outputGrad in the compute type, (T_cmp, N, D) contiguous
  uint64_t partial_bytes = 0;  ///< chunks x l x N doubles
  int64_t chunks = 0;
  uint64_t total() const { return grad_bytes + partial_bytes; }
};

/// Whether the backward converts outputGrad (of element type T) into the workspace: not when its
/// rows already are contiguous in the compute type.
template <typename T>
bool converts_output_grad(const aclTensor& output_grad) {
  return !(std::is_same_v<T, compute_t<T>> && output_grad.strides[2] == 1);
}

/// nullopt when some size is not representable or the total exceeds kMaxWorkspaceBytes.
/// NC-LIMIT-02 sizes the worst case (compute_bytes 8, converted outputGrad).
inline std::optional<BackwardWorkspace> backward_workspace(const Sizes& s, int64_t compute_bytes,
                                                           bool convert_output_grad = true) {
  BackwardWorkspace w;
  // An empty problem (extended: T, N, D or T_cmp = 0) sums nothing: its gradients are zeros,
  // written without a workspace (spec: empty inputs have workspace 0).
  if (s.tokens == 0 || s.heads == 0 || s.dim == 0 || s.compressed == 0) return w;
  const int64_t per_chunk = chunk_tokens(s.tokens);
  w.chunks = s.tokens / per_chunk + (s.tokens % per_chunk != 0);
  auto bytes = [](std::initializer_list<int64_t> factors) -> std::optional<uint64_t> {
    int64_t n = 1;
    for (int64_t f : factors) {
      auto next = checked_mul(n, f);
      if (!next) return std::nullopt;
      n = *next;
    }
    return checked_align_up(static_cast<uint64_t>(n), kWorkspaceAlignment);
  };
  const auto grad = bytes({convert_output_grad ? s.compressed : 0, s.heads, s.dim, compute_bytes});
  const auto partial = bytes({w.chunks, s.block, s.heads, int64_t{sizeof(double)}});
  if (!grad || !partial || *grad > kMaxWorkspaceBytes || *partial > kMaxWorkspaceBytes - *grad) {
    return std::nullopt;
  }
  w.grad_bytes = *grad;
  w.partial_bytes = *partial;
  return w;
}

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_WORKSPACE_H_
