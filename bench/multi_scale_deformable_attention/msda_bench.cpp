// MultiScaleDeformableAttention forward and grad on the Deformable-DETR cases of issue 9: encoder
// (bs 2, levels 64x64/32x32/16x16/8x8, Q = num_keys = 5440, 8 heads, C 32, P 4) and decoder
// (Q 300), fp32 and bf16, 1 and 2 threads. Tensors are built once through the public C API
// (aclrtMalloc, aclCreateTensor); each iteration is phase 1 + phase 2, as a framework calls it.
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "core/dtype.h"
#include "core/parallel.h"

namespace {

struct Device {
  void* data = nullptr;
  aclTensor* tensor = nullptr;
  Device(std::vector<int64_t> dims, aclDataType dtype, const std::vector<double>& values) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    const int64_t esize = gradconf::element_size(dtype);
    aclrtMalloc(&data, static_cast<size_t>(std::max<int64_t>(count * esize, 1)),
                ACL_MEM_MALLOC_HUGE_FIRST);
    std::vector<uint8_t> bytes(static_cast<size_t>(count * esize));
    for (int64_t i = 0; i < count; ++i) {
      const double v = i < static_cast<int64_t>(values.size()) ? values[static_cast<size_t>(i)] : 0;
      uint8_t* out = bytes.data() + i * esize;
      switch (dtype) {
        case ACL_FLOAT: {
          const float f = static_cast<float>(v);
          std::memcpy(out, &f, 4);
          break;
        }
        case ACL_BF16: {
          const gradconf::bfloat16 b(static_cast<float>(v));
          std::memcpy(out, &b, 2);
          break;
        }
        case ACL_INT64: {
          const int64_t x = static_cast<int64_t>(v);
          std::memcpy(out, &x, 8);
          break;
        }
        default:
          break;
      }
    }
    aclrtMemcpy(data, bytes.size(), bytes.data(), bytes.size(), ACL_MEMCPY_HOST_TO_DEVICE);
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
    tensor = aclCreateTensor(dims.data(), dims.size(), dtype, strides.data(), 0, ACL_FORMAT_ND,
                             &count, 1, data);
  }
  ~Device() {
    aclDestroyTensor(tensor);
    aclrtFree(data);
  }
};

std::vector<double> uniform(int64_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = dist(rng);
  return v;
}

void run(benchmark::State& state, bool backward, aclDataType dtype, int64_t queries) {
  gradconf::set_num_threads(static_cast<int>(state.range(0)));
  const int64_t bs = 2, heads = 8, c = 32, levels = 4, points = 4;
  const std::vector<double> hw = {64, 64, 32, 32, 16, 16, 8, 8}, starts = {0, 4096, 5120, 5376};
  const int64_t keys = 5440;
  Device value({bs, keys, heads, c}, dtype, uniform(bs * keys * heads * c, -1, 1, 1));
  Device shape({levels, 2}, ACL_INT64, hw);
  Device start({levels}, ACL_INT64, starts);
  Device location({bs, queries, heads, levels, points, 2}, dtype,
                  uniform(bs * queries * heads * levels * points * 2, 0, 1, 2));
  Device attn({bs, queries, heads, levels, points}, dtype,
              uniform(bs * queries * heads * levels * points, 0, 1, 3));
  Device grad_output({bs, queries, heads, c}, dtype, uniform(bs * queries * heads * c, -1, 1, 4));
  Device output({bs, queries, heads, c}, dtype, {});
  Device grad_value({bs, keys, heads, c}, dtype, {});
  Device grad_location({bs, queries, heads, levels, points, 2}, dtype, {});
  Device grad_attn({bs, queries, heads, levels, points}, dtype, {});
  std::vector<uint8_t> workspace;
  for (auto _ : state) {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    aclnnStatus status = backward ? aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(
                                        value.tensor, shape.tensor, start.tensor, location.tensor,
                                        attn.tensor, grad_output.tensor, grad_value.tensor,
                                        grad_location.tensor, grad_attn.tensor, &size, &executor)
                                  : aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize(
                                        value.tensor, shape.tensor, start.tensor, location.tensor,
                                        attn.tensor, output.tensor, &size, &executor);
    if (status != ACLNN_SUCCESS) {
      state.SkipWithError(aclGetRecentErrMsg());
      break;
    }
    if (workspace.size() < size) workspace.resize(size);
    status = backward
                 ? aclnnMultiScaleDeformableAttentionGrad(workspace.data(), size, executor, nullptr)
                 : aclnnMultiScaleDeformableAttnFunction(workspace.data(), size, executor, nullptr);
    benchmark::DoNotOptimize(status);
  }
  gradconf::set_num_threads(0);
}

void BM_Forward_Encoder_F32(benchmark::State& s) { run(s, false, ACL_FLOAT, 5440); }
void BM_Backward_Encoder_F32(benchmark::State& s) { run(s, true, ACL_FLOAT, 5440); }
void BM_Forward_Encoder_BF16(benchmark::State& s) { run(s, false, ACL_BF16, 5440); }
void BM_Backward_Encoder_BF16(benchmark::State& s) { run(s, true, ACL_BF16, 5440); }
void BM_Forward_Decoder_F32(benchmark::State& s) { run(s, false, ACL_FLOAT, 300); }
void BM_Backward_Decoder_F32(benchmark::State& s) { run(s, true, ACL_FLOAT, 300); }
void BM_Forward_Decoder_BF16(benchmark::State& s) { run(s, false, ACL_BF16, 300); }
void BM_Backward_Decoder_BF16(benchmark::State& s) { run(s, true, ACL_BF16, 300); }

}  // namespace

BENCHMARK(BM_Forward_Encoder_F32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward_Encoder_F32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Forward_Encoder_BF16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward_Encoder_BF16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Forward_Decoder_F32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward_Decoder_F32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Forward_Decoder_BF16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward_Decoder_BF16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
