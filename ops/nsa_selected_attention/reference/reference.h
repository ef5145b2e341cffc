// NOTE: Naive double-precision oracle for NsaSelectedAttention, written straight from
// ../shared/spec/nsa_selected_attention.md with no code shared with the kernels, so that a bug in
// one cannot cancel out in the other. Tensors are logical row-major vectors (layout TND).
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_REFERENCE_REFERENCE_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_REFERENCE_REFERENCE_H_

#include <cstdint>
#include <vector>

namespace gradconf::nsa::reference {

struct Dims {
  int64_t q_tokens = 0, kv_tokens = 0, q_heads = 0, kv_heads = 0, dim_qk = 0, dim_v = 0;
  int64_t block = 0, count = 0;
  std::vector<int64_t> seq_q, seq_kv;  ///< prefix sums
  double scale = 1;
  bool causal = false;  ///< sparseMode 2
};

struct Forward {
  std::vector<double> attention_out;             ///< (T1, N1, Dv)
  std::vector<double> softmax_max, softmax_sum;  ///< (T1, N1, 8), replicated
};

/// topk (T1, N2, K) holds block indices local to each batch's keys.
Forward forward(const Dims& d, const std::vector<double>& query, const std::vector<double>& key,
                const std::vector<double>& value, const std::vector<double>& topk);

struct Gradients {
  std::vector<double> dq, dk, dv;
};

/// attention_out empty: recomputed from query, key, value. Statistics read at lane 0.
Gradients backward(const Dims& d, const std::vector<double>& query, const std::vector<double>& key,
                   const std::vector<double>& value, const std::vector<double>& attention_out,
                   const std::vector<double>& attention_out_grad,
                   const std::vector<double>& softmax_max, const std::vector<double>& softmax_sum,
                   const std::vector<double>& topk);

/// (query token, query head, selected kv row) triples the causal mask leaves in: the pairs
/// whose products the op must compute (benchmarks count flops from it).
int64_t unmasked_pairs(const Dims& d, const std::vector<double>& topk);

}  // namespace gradconf::nsa::reference

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_REFERENCE_REFERENCE_H_
