#include "ops/nsa_selected_attention/reference/reference.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>

namespace gradconf::nsa::reference {
namespace {

// One selected kv row of query token t: its kv token and whether it is masked.
struct Selected {
  int64_t token;
  bool masked;
};

std::vector<Selected> selection(const Dims& d, const std::vector<double>& topk, int64_t t,
                                int64_t n2) {
  std::size_t b = 0;
  while (t >= d.seq_q[b]) ++b;
  const int64_t q_start = b == 0 ? 0 : d.seq_q[b - 1];
  const int64_t kv_start = b == 0 ? 0 : d.seq_kv[b - 1];
  const int64_t s = t - q_start;
  std::vector<Selected> rows;
  rows.reserve(static_cast<std::size_t>(d.count * d.block));
  for (int64_t k = 0; k < d.count; ++k) {
    const auto index =
        static_cast<int64_t>(topk[static_cast<std::size_t>((t * d.kv_heads + n2) * d.count + k)]);
    for (int64_t r = 0; r < d.block; ++r) {
      const int64_t position = index * d.block + r;
      rows.push_back({kv_start + position, d.causal && position > s});
    }
  }
  return rows;
}

double dot(const std::vector<double>& a, int64_t a_at, const std::vector<double>& b, int64_t b_at,
           int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    sum += a[static_cast<std::size_t>(a_at + i)] * b[static_cast<std::size_t>(b_at + i)];
  return sum;
}

}  // namespace

int64_t unmasked_pairs(const Dims& d, const std::vector<double>& topk) {
  int64_t pairs = 0;
  for (int64_t t = 0; t < d.q_tokens; ++t) {
    for (int64_t n2 = 0; n2 < d.kv_heads; ++n2) {
      for (const Selected& row : selection(d, topk, t, n2)) pairs += row.masked ? 0 : 1;
    }
  }
  return pairs * (d.kv_heads > 0 ? d.q_heads / d.kv_heads : 0);
}

Forward forward(const Dims& d, const std::vector<double>& query, const std::vector<double>& key,
                const std::vector<double>& value, const std::vector<double>& topk) {
  const int64_t group = d.q_heads / d.kv_heads;
  Forward f;
  f.attention_out.assign(static_cast<std::size_t>(d.q_tokens * d.q_heads * d.dim_v), 0.0);
  f.softmax_max.assign(static_cast<std::size_t>(d.q_tokens * d.q_heads * 8), 0.0);
  f.softmax_sum.assign(f.softmax_max.size(), 0.0);
  for (int64_t t = 0; t < d.q_tokens; ++t) {
    for (int64_t n1 = 0; n1 < d.q_heads; ++n1) {
      const int64_t n2 = n1 / group;
      const auto rows = selection(d, topk, t, n2);
      std::vector<double> score(rows.size());
      double m = -INFINITY;
      for (std::size_t j = 0; j < rows.size(); ++j) {
        score[j] = d.scale * dot(query, (t * d.q_heads + n1) * d.dim_qk, key,
                                 (rows[j].token * d.kv_heads + n2) * d.dim_qk, d.dim_qk);
        if (!rows[j].masked) m = std::max(m, score[j]);
      }
      double l = 0;
      for (std::size_t j = 0; j < rows.size(); ++j) {
        if (!rows[j].masked) l += std::exp(score[j] - m);
      }
      for (std::size_t j = 0; j < rows.size() && l > 0; ++j) {
        if (rows[j].masked) continue;
        const double p = std::exp(score[j] - m) / l;
        for (int64_t c = 0; c < d.dim_v; ++c) {
          f.attention_out[static_cast<std::size_t>((t * d.q_heads + n1) * d.dim_v + c)] +=
              p * value[static_cast<std::size_t>((rows[j].token * d.kv_heads + n2) * d.dim_v + c)];
        }
      }
      for (int64_t lane = 0; lane < 8; ++lane) {
        const auto at = static_cast<std::size_t>((t * d.q_heads + n1) * 8 + lane);
        f.softmax_max[at] = l > 0 ? m : -static_cast<double>(FLT_MAX);
        f.softmax_sum[at] = l;
      }
    }
  }
  return f;
}

Gradients backward(const Dims& d, const std::vector<double>& query, const std::vector<double>& key,
                   const std::vector<double>& value, const std::vector<double>& attention_out,
                   const std::vector<double>& attention_out_grad,
                   const std::vector<double>& softmax_max, const std::vector<double>& softmax_sum,
                   const std::vector<double>& topk) {
  const int64_t group = d.q_heads / d.kv_heads;
  // attentionOut is optional: recomputed when absent, read in place otherwise.
  const std::vector<double> recomputed = attention_out.empty()
                                             ? forward(d, query, key, value, topk).attention_out
                                             : std::vector<double>{};
  const std::vector<double>& out = attention_out.empty() ? recomputed : attention_out;
  Gradients g;
  g.dq.assign(query.size(), 0.0);
  g.dk.assign(key.size(), 0.0);
  g.dv.assign(value.size(), 0.0);
  for (int64_t t = 0; t < d.q_tokens; ++t) {
    for (int64_t n1 = 0; n1 < d.q_heads; ++n1) {
      const int64_t n2 = n1 / group;
      const int64_t q_at = (t * d.q_heads + n1) * d.dim_qk, o_at = (t * d.q_heads + n1) * d.dim_v;
      const double m = softmax_max[static_cast<std::size_t>((t * d.q_heads + n1) * 8)];
      const double l = softmax_sum[static_cast<std::size_t>((t * d.q_heads + n1) * 8)];
      const double dr = dot(attention_out_grad, o_at, out, o_at, d.dim_v);
      for (const Selected& row : selection(d, topk, t, n2)) {
        if (row.masked || !(l > 0)) continue;
        const int64_t k_at = (row.token * d.kv_heads + n2) * d.dim_qk;
        const int64_t v_at = (row.token * d.kv_heads + n2) * d.dim_v;
        const double p = std::exp(d.scale * dot(query, q_at, key, k_at, d.dim_qk) - m) / l;
        const double dp = dot(attention_out_grad, o_at, value, v_at, d.dim_v);
        const double ds = p * (dp - dr);
        for (int64_t c = 0; c < d.dim_qk; ++c) {
          g.dq[static_cast<std::size_t>(q_at + c)] +=
              d.scale * ds * key[static_cast<std::size_t>(k_at + c)];
          g.dk[static_cast<std::size_t>(k_at + c)] +=
              d.scale * ds * query[static_cast<std::size_t>(q_at + c)];
        }
        for (int64_t c = 0; c < d.dim_v; ++c) {
          g.dv[static_cast<std::size_t>(v_at + c)] +=
              p * attention_out_grad[static_cast<std::size_t>(o_at + c)];
        }
      }
    }
  }
  return g;
}

}  // namespace gradconf::nsa::reference
