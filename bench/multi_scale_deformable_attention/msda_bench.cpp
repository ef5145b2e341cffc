// MultiScaleDeformableAttention forward and grad on the Deformable-DETR cases of issue 9: encoder
// (bs 2, levels 64x64/32x32/16x16/8x8, Q = num_keys = 5440, 8 heads, C 32, P 4) and decoder
// (Q 300), fp32 and bf16, 1 and 2 threads. Tensors are built once through the public C API
// (aclrtMalloc, aclCreateTensor); each iteration is phase 1 + phase 2, as a framework calls it.
// Two kinds of sampling locations: uniform in [0, 1] (no locality at all: the worst case for
// caches), and Deformable-DETR's (each query's reference point, a pixel centre of the feature map
// for the encoder or a random point for a decoder query, plus per-level offsets of up to 4
// pixels: what a trained model samples). torch_peer.py draws the same two kinds.
#include <benchmark/benchmark.h>

#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "common/bench_tensor.h"
#include "core/dtype.h"
#include "core/parallel.h"

namespace {

using Device = gradconf::bench::BenchTensor;
using gradconf::bench::uniform;

/// location (bs, Q, heads, L, P, 2) as Deformable-DETR forms it: reference point + offset / size.
std::vector<double> detr_locations(int64_t bs, int64_t queries, int64_t heads, int64_t points,
                                   const std::vector<double>& hw) {
  const int64_t levels = static_cast<int64_t>(hw.size() / 2);
  const auto offsets = uniform(bs * queries * heads * levels * points * 2, -4, 4, 5);
  const auto random_refs = uniform(queries * 2, 0, 1, 6);
  std::vector<double> out(offsets.size());
  size_t i = 0;
  for (int64_t b = 0; b < bs; ++b) {
    for (int64_t q = 0; q < queries; ++q) {
      // Encoder queries are the pixels of all levels in order; decoder queries anywhere.
      double ref_x = random_refs[static_cast<size_t>(2 * q)];
      double ref_y = random_refs[static_cast<size_t>(2 * q + 1)];
      int64_t first = 0;
      for (int64_t l = 0; l < levels; ++l) {
        const auto h = static_cast<int64_t>(hw[2 * l]), w = static_cast<int64_t>(hw[2 * l + 1]);
        if (q >= first && q < first + h * w) {
          ref_x = (static_cast<double>((q - first) % w) + 0.5) / static_cast<double>(w);
          ref_y = (static_cast<double>((q - first) / w) + 0.5) / static_cast<double>(h);
        }
        first += h * w;
      }
      for (int64_t m = 0; m < heads; ++m) {
        for (int64_t l = 0; l < levels; ++l) {
          for (int64_t p = 0; p < points; ++p, i += 2) {
            out[i] = ref_x + offsets[i] / hw[2 * l + 1];
            out[i + 1] = ref_y + offsets[i + 1] / hw[2 * l];
          }
        }
      }
    }
  }
  return out;
}

void run(benchmark::State& state, bool backward, aclDataType dtype, int64_t queries,
         bool detr = false) {
  gradconf::set_num_threads(static_cast<int>(state.range(0)));
  const int64_t bs = 2, heads = 8, c = 32, levels = 4, points = 4;
  const std::vector<double> hw = {64, 64, 32, 32, 16, 16, 8, 8}, starts = {0, 4096, 5120, 5376};
  const int64_t keys = 5440;
  Device value({bs, keys, heads, c}, dtype, uniform(bs * keys * heads * c, -1, 1, 1));
  Device shape({levels, 2}, ACL_INT64, hw);
  Device start({levels}, ACL_INT64, starts);
  Device location({bs, queries, heads, levels, points, 2}, dtype,
                  detr ? detr_locations(bs, queries, heads, points, hw)
                       : uniform(bs * queries * heads * levels * points * 2, 0, 1, 2));
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
                                        value.get(), shape.get(), start.get(), location.get(),
                                        attn.get(), grad_output.get(), grad_value.get(),
                                        grad_location.get(), grad_attn.get(), &size, &executor)
                                  : aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize(
                                        value.get(), shape.get(), start.get(), location.get(),
                                        attn.get(), output.get(), &size, &executor);
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
void BM_Forward_EncoderDetr_F32(benchmark::State& s) { run(s, false, ACL_FLOAT, 5440, true); }
void BM_Backward_EncoderDetr_F32(benchmark::State& s) { run(s, true, ACL_FLOAT, 5440, true); }
void BM_Forward_EncoderDetr_BF16(benchmark::State& s) { run(s, false, ACL_BF16, 5440, true); }
void BM_Backward_EncoderDetr_BF16(benchmark::State& s) { run(s, true, ACL_BF16, 5440, true); }
void BM_Forward_Decoder_F32(benchmark::State& s) { run(s, false, ACL_FLOAT, 300); }
void BM_Backward_Decoder_F32(benchmark::State& s) { run(s, true, ACL_FLOAT, 300); }
void BM_Forward_Decoder_BF16(benchmark::State& s) { run(s, false, ACL_BF16, 300); }
void BM_Backward_Decoder_BF16(benchmark::State& s) { run(s, true, ACL_BF16, 300); }

}  // namespace

BENCHMARK(BM_Forward_Encoder_F32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward_Encoder_F32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Forward_Encoder_BF16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward_Encoder_BF16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Forward_EncoderDetr_F32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward_EncoderDetr_F32)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Forward_EncoderDetr_BF16)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Backward_EncoderDetr_BF16)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_Forward_Decoder_F32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward_Decoder_F32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Forward_Decoder_BF16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Backward_Decoder_BF16)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
