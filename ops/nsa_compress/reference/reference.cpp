#include "ops/nsa_compress/reference/reference.h"

#include <cstddef>

namespace gradconf::nc::reference {
namespace {

// (batch start token, window count) per batch; windows are numbered across batches in order.
struct Windowing {
  std::vector<int64_t> start, count;
};

Windowing windowing(const Dims& d) {
  Windowing w;
  std::vector<int64_t> ends = d.act_seq_len;
  if (ends.empty()) ends.push_back(d.tokens);
  int64_t previous = 0;
  for (int64_t end : ends) {
    const int64_t length = end - previous;
    w.start.push_back(previous);
    w.count.push_back(length >= d.block ? (length - d.block) / d.stride + 1 : 0);
    previous = end;
  }
  return w;
}

int64_t at(const Dims& d, int64_t token, int64_t head, int64_t k) {
  return (token * d.heads + head) * d.dim + k;
}

}  // namespace

int64_t compressed_rows(const Dims& d) {
  int64_t rows = 0;
  for (int64_t n : windowing(d).count) rows += n;
  return rows;
}

std::vector<double> forward(const Dims& d, const std::vector<double>& input,
                            const std::vector<double>& weight) {
  const Windowing w = windowing(d);
  std::vector<double> out(static_cast<std::size_t>(compressed_rows(d) * d.heads * d.dim), 0.0);
  int64_t row = 0;
  for (std::size_t b = 0; b < w.start.size(); ++b) {
    for (int64_t i = 0; i < w.count[b]; ++i, ++row) {
      for (int64_t n = 0; n < d.heads; ++n) {
        for (int64_t k = 0; k < d.dim; ++k) {
          double sum = 0;
          for (int64_t j = 0; j < d.block; ++j) {
            sum += weight[j * d.heads + n] * input[at(d, w.start[b] + i * d.stride + j, n, k)];
          }
          out[at(d, row, n, k)] = sum;
        }
      }
    }
  }
  return out;
}

Gradients backward(const Dims& d, const std::vector<double>& input,
                   const std::vector<double>& weight, const std::vector<double>& output_grad) {
  const Windowing w = windowing(d);
  Gradients g;
  g.input.assign(input.size(), 0.0);
  g.weight.assign(static_cast<std::size_t>(d.block * d.heads), 0.0);
  int64_t row = 0;
  for (std::size_t b = 0; b < w.start.size(); ++b) {
    for (int64_t i = 0; i < w.count[b]; ++i, ++row) {
      for (int64_t j = 0; j < d.block; ++j) {
        const int64_t token = w.start[b] + i * d.stride + j;
        for (int64_t n = 0; n < d.heads; ++n) {
          for (int64_t k = 0; k < d.dim; ++k) {
            const double og = output_grad[at(d, row, n, k)];
            g.input[at(d, token, n, k)] += weight[j * d.heads + n] * og;
            g.weight[j * d.heads + n] += og * input[at(d, token, n, k)];
          }
        }
      }
    }
  }
  return g;
}

}  // namespace gradconf::nc::reference
