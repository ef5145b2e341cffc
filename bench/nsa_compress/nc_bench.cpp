// NsaCompress forward and grad on the DeepSeek-like cases of issue 10: T = 32768 in 4 sequences
// of 8192, N 4, D 128, (l, d) = (32, 16) and (64, 32); fp16, bf16 and fp32; 1 and 2 threads. Each
// iteration is phase 1 + phase 2, as a framework calls it. The counter "bytes_per_second" is the
// bytes the call must move at least (every input read once, every output written once) over the
// time: compare it with the machine's memory bandwidth (bench/README.md).
#include <benchmark/benchmark.h>

#include <vector>

#include "aclnnop/aclnn_nsa_compress.h"
#include "aclnnop/aclnn_nsa_compress_grad.h"
#include "common/bench_tensor.h"
#include "core/parallel.h"
#include "core/profile.h"

namespace {

using gradconf::bench::BenchTensor;
using gradconf::bench::uniform;

void run(benchmark::State& state, bool backward, aclDataType dtype, int64_t block, int64_t stride) {
  gradconf::set_num_threads(static_cast<int>(state.range(0)));
  // FLOAT is an `extended` dtype of NsaCompress.
  const gradconf::ScopedSpecProfile profile(dtype == ACL_FLOAT ? gradconf::SpecProfile::kExtended
                                                               : gradconf::SpecProfile::kSeed);
  const int64_t batches = 4, length = 8192, tokens = batches * length, heads = 4, dim = 128;
  const int64_t windows = (length - block) / stride + 1, rows = batches * windows;
  std::vector<int64_t> prefix;
  for (int64_t b = 1; b <= batches; ++b) prefix.push_back(b * length);
  aclIntArray* seq = aclCreateIntArray(prefix.data(), prefix.size());
  char layout[] = "TND";
  BenchTensor input({tokens, heads, dim}, dtype, uniform(tokens * heads * dim, -1, 1, 1));
  BenchTensor weight({block, heads}, dtype, uniform(block * heads, -1, 1, 2));
  BenchTensor output_grad({rows, heads, dim}, dtype, uniform(rows * heads * dim, -1, 1, 3));
  BenchTensor output({rows, heads, dim}, dtype, {});
  BenchTensor input_grad({tokens, heads, dim}, dtype, {});
  BenchTensor weight_grad({block, heads}, dtype, {});
  const size_t moved = backward ? output_grad.bytes() + input.bytes() + weight.bytes() +
                                      input_grad.bytes() + weight_grad.bytes()
                                : input.bytes() + weight.bytes() + output.bytes();
  std::vector<uint8_t> workspace;
  for (auto _ : state) {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status =
        backward ? aclnnNsaCompressGradGetWorkspaceSize(
                       output_grad.get(), input.get(), weight.get(), seq, block, stride, 0, layout,
                       input_grad.get(), weight_grad.get(), &size, &executor)
                 : aclnnNsaCompressGetWorkspaceSize(input.get(), weight.get(), seq, layout, block,
                                                    stride, 0, output.get(), &size, &executor);
    if (status != ACLNN_SUCCESS) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
    if (workspace.size() < size) workspace.resize(size);
    status = backward ? aclnnNsaCompressGrad(workspace.data(), size, executor, nullptr)
                      : aclnnNsaCompress(workspace.data(), size, executor, nullptr);
    benchmark::DoNotOptimize(status);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * moved));
  aclDestroyIntArray(seq);
  gradconf::set_num_threads(0);
}

#define GRADCONF_NC_BENCH(name, backward, dtype, block, stride)              \
  void name(benchmark::State& s) { run(s, backward, dtype, block, stride); } \
  BENCHMARK(name)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()

GRADCONF_NC_BENCH(BM_Forward_L32D16_F16, false, ACL_FLOAT16, 32, 16);
GRADCONF_NC_BENCH(BM_Backward_L32D16_F16, true, ACL_FLOAT16, 32, 16);
GRADCONF_NC_BENCH(BM_Forward_L32D16_BF16, false, ACL_BF16, 32, 16);
GRADCONF_NC_BENCH(BM_Backward_L32D16_BF16, true, ACL_BF16, 32, 16);
GRADCONF_NC_BENCH(BM_Forward_L32D16_F32, false, ACL_FLOAT, 32, 16);
GRADCONF_NC_BENCH(BM_Backward_L32D16_F32, true, ACL_FLOAT, 32, 16);
GRADCONF_NC_BENCH(BM_Forward_L64D32_F16, false, ACL_FLOAT16, 64, 32);
GRADCONF_NC_BENCH(BM_Backward_L64D32_F16, true, ACL_FLOAT16, 64, 32);
GRADCONF_NC_BENCH(BM_Forward_L64D32_BF16, false, ACL_BF16, 64, 32);
GRADCONF_NC_BENCH(BM_Backward_L64D32_BF16, true, ACL_BF16, 64, 32);
GRADCONF_NC_BENCH(BM_Forward_L64D32_F32, false, ACL_FLOAT, 64, 32);
GRADCONF_NC_BENCH(BM_Backward_L64D32_F32, true, ACL_FLOAT, 64, 32);

}  // namespace

BENCHMARK_MAIN();
