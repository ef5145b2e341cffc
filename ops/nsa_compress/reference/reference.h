// NOTE: Naive double-precision oracle for NsaCompress, written straight from
// ../shared/spec/nsa_compress.md with no code shared with the kernels, so that a bug in one cannot
// cancel out in the other. Tensors are logical row-major vectors.
#ifndef GRADCONF_OPS_NSA_COMPRESS_REFERENCE_REFERENCE_H_
#define GRADCONF_OPS_NSA_COMPRESS_REFERENCE_REFERENCE_H_

#include <cstdint>
#include <vector>

namespace gradconf::nc::reference {

struct Dims {
  int64_t tokens = 0, heads = 0, dim = 0, block = 0, stride = 0;
  std::vector<int64_t> act_seq_len;  ///< prefix sums; empty: one batch of all tokens
};

/// Compressed rows of all batches, in order: T_cmp.
int64_t compressed_rows(const Dims& d);

/// output (T_cmp, N, D) from input (T, N, D) and weight (l, N).
std::vector<double> forward(const Dims& d, const std::vector<double>& input,
                            const std::vector<double>& weight);

struct Gradients {
  std::vector<double> input, weight;
};

Gradients backward(const Dims& d, const std::vector<double>& input,
                   const std::vector<double>& weight, const std::vector<double>& output_grad);

}  // namespace gradconf::nc::reference

#endif  // GRADCONF_OPS_NSA_COMPRESS_REFERENCE_REFERENCE_H_
