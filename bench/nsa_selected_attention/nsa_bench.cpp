// NsaSelectedAttention forward and grad on the cases of issue 11: 2 sequences of 1024, N1 16,
// N2 1, Dqk 192, Dv 128, B 64, K 8 ("Small"), and DeepSeek-like 2 x 8192 with K 16 ("Long", heavy:
// run it with --benchmark_filter=Long); fp32 and bf16, 1 and 2 threads, causal topk (own block
// and distinct earlier blocks), sparseMode 2. The counter GFLOP/s counts the products an
// attention backward needs (S, dP, dq, dk, dv; the forward S and O): compare it with the
// machine's fp32 peak (bench/README.md).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "aclnnop/aclnn_nsa_selected_attention.h"
#include "aclnnop/aclnn_nsa_selected_attention_grad.h"
#include "common/bench_tensor.h"
#include "core/parallel.h"
#include "core/profile.h"

namespace {

using gradconf::bench::BenchTensor;
using gradconf::bench::uniform;

struct Case {
  int64_t length, count;
};

// Causal topk: block s / B first, then distinct earlier blocks, then repeats of block 0.
std::vector<double> causal_topk(int64_t batches, int64_t length, int64_t block, int64_t count) {
  std::vector<double> topk;
  std::mt19937 rng(5);
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t s = 0; s < length; ++s) {
      const int64_t own = s / block;
      std::vector<int64_t> earlier(static_cast<size_t>(own));
      std::iota(earlier.begin(), earlier.end(), 0);
      std::shuffle(earlier.begin(), earlier.end(), rng);
      topk.push_back(static_cast<double>(own));
      for (int64_t k = 1; k < count; ++k) {
        topk.push_back(k - 1 < own ? static_cast<double>(earlier[static_cast<size_t>(k - 1)]) : 0);
      }
    }
  }
  return topk;
}

void run(benchmark::State& state, bool backward, aclDataType dtype, Case c) {
  gradconf::set_num_threads(static_cast<int>(state.range(0)));
  const gradconf::ScopedSpecProfile profile(dtype == ACL_FLOAT ? gradconf::SpecProfile::kExtended
                                                               : gradconf::SpecProfile::kSeed);
  const int64_t batches = 2, t = batches * c.length, n1 = 16, n2 = 1, dqk = 192, dv = 128;
  const int64_t block = 64;
  std::vector<int64_t> prefix = {c.length, 2 * c.length};
  aclIntArray* seq_q = aclCreateIntArray(prefix.data(), prefix.size());
  aclIntArray* seq_kv = aclCreateIntArray(prefix.data(), prefix.size());
  char layout[] = "TND";
  const double scale = 1.0 / std::sqrt(static_cast<double>(dqk));
  BenchTensor query({t, n1, dqk}, dtype, uniform(t * n1 * dqk, -1, 1, 1));
  BenchTensor key({t, n2, dqk}, dtype, uniform(t * n2 * dqk, -1, 1, 2));
  BenchTensor value({t, n2, dv}, dtype, uniform(t * n2 * dv, -1, 1, 3));
  BenchTensor topk({t, n2, c.count}, ACL_INT32, causal_topk(batches, c.length, block, c.count));
  BenchTensor grad({t, n1, dv}, dtype, uniform(t * n1 * dv, -1, 1, 4));
  BenchTensor out({t, n1, dv}, dtype, {});
  BenchTensor max({t, n1, 8}, ACL_FLOAT, {});
  BenchTensor sum({t, n1, 8}, ACL_FLOAT, {});
  BenchTensor dq({t, n1, dqk}, dtype, {});
  BenchTensor dk({t, n2, dqk}, dtype, {});
  BenchTensor dvt({t, n2, dv}, dtype, {});
  std::vector<uint8_t> workspace;
  auto forward_call = [&] {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = aclnnNsaSelectedAttentionGetWorkspaceSize(
        query.get(), key.get(), value.get(), topk.get(), nullptr, seq_q, seq_kv, scale, n1, layout,
        2, block, c.count, max.get(), sum.get(), out.get(), &size, &executor);
    if (status != ACLNN_SUCCESS) return status;
    if (workspace.size() < size) workspace.resize(size);
    return aclnnNsaSelectedAttention(workspace.data(), size, executor, nullptr);
  };
  if (backward && forward_call() != ACLNN_SUCCESS) {  // the statistics the backward consumes
    state.SkipWithError(aclGetRecentErrMsg());
    return;
  }
  for (auto _ : state) {
    aclnnStatus status = ACLNN_SUCCESS;
    if (backward) {
      uint64_t size = 0;
      aclOpExecutor* executor = nullptr;
      status = aclnnNsaSelectedAttentionGradGetWorkspaceSize(
          query.get(), key.get(), value.get(), out.get(), grad.get(), max.get(), sum.get(),
          topk.get(), seq_q, seq_kv, nullptr, scale, block, c.count, n1, layout, 2, dq.get(),
          dk.get(), dvt.get(), &size, &executor);
      if (status == ACLNN_SUCCESS) {
        if (workspace.size() < size) workspace.resize(size);
        status = aclnnNsaSelectedAttentionGrad(workspace.data(), size, executor, nullptr);
      }
    } else {
      status = forward_call();
    }
    if (status != ACLNN_SUCCESS) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
  }
  // Products per (query token, query head) over its K*B selected rows.
  const double rows = static_cast<double>(c.count * block);
  const double per_head = backward ? 2 * rows * (3 * dqk + 2 * dv) : 2 * rows * (dqk + dv);
  state.counters["GFLOP/s"] = benchmark::Counter(
      per_head * static_cast<double>(t * n1) * static_cast<double>(state.iterations()) * 1e-9,
      benchmark::Counter::kIsRate);
  aclDestroyIntArray(seq_q);
  aclDestroyIntArray(seq_kv);
  gradconf::set_num_threads(0);
}

constexpr Case kSmall{1024, 8};
constexpr Case kLong{8192, 16};

#define GRADCONF_NSA_BENCH(name, backward, dtype, c)             \
  void name(benchmark::State& s) { run(s, backward, dtype, c); } \
  BENCHMARK(name)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()

GRADCONF_NSA_BENCH(BM_Forward_Small_F32, false, ACL_FLOAT, kSmall);
GRADCONF_NSA_BENCH(BM_Backward_Small_F32, true, ACL_FLOAT, kSmall);
GRADCONF_NSA_BENCH(BM_Forward_Small_BF16, false, ACL_BF16, kSmall);
GRADCONF_NSA_BENCH(BM_Backward_Small_BF16, true, ACL_BF16, kSmall);
GRADCONF_NSA_BENCH(BM_Forward_Long_F32, false, ACL_FLOAT, kLong);
GRADCONF_NSA_BENCH(BM_Backward_Long_F32, true, ACL_FLOAT, kLong);
GRADCONF_NSA_BENCH(BM_Forward_Long_BF16, false, ACL_BF16, kLong);
GRADCONF_NSA_BENCH(BM_Backward_Long_BF16, true, ACL_BF16, kLong);

}  // namespace

BENCHMARK_MAIN();
