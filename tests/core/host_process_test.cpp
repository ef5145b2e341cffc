// The seven defects of the host-process probes (issue: "Host-process robustness"), each as the
// probe made it, through the public C API: formats, phase-2 messages, NSA's per-batch length (see
// tests/nsa_selected_attention/validation_test.cpp), MSDA's empty queries, calls at exit, a fork
// under load, and data changed between the phases. Whatever may abort or hang runs in a child
// process (properties/harness/child_process.h). The registry's host-process laws check the same
// for every op; these pin the probes themselves.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "aclnnop/aclnn_nsa_compress.h"
#include "aclnnop/aclnn_nsa_compress_grad.h"
#include "aclnnop/aclnn_nsa_selected_attention.h"
#include "core/fork_safe.h"
#include "core/layout.h"
#include "harness/child_process.h"
#include "support/device_tensor.h"

namespace gradconf::testing {
namespace {

using props::ChildExit;
using props::run_in_child;

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

DeviceTensor zeros(std::vector<int64_t> dims, aclDataType dtype, Fill fill = Fill::kInput,
                   aclFormat format = ACL_FORMAT_ND) {
  const std::vector<double> values(static_cast<size_t>(numel(dims)), 0.0);
  return DeviceTensor(std::move(dims), dtype, LayoutSpec{}, fill, values, format);
}

// A contiguous index tensor holding `values` (DeviceTensor writes floating values only).
template <typename Index>
DeviceTensor indices(std::vector<int64_t> dims, aclDataType dtype, std::vector<Index> values) {
  DeviceTensor t(std::move(dims), dtype, LayoutSpec{}, Fill::kInput);
  const size_t bytes = values.size() * sizeof(Index);
  aclrtMemcpy(t.device(), bytes, values.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
  return t;
}

// The probes' NsaCompressGrad baseline: fp16, T 64, N 2, D 16, l 32, d 16, actSeqLen {64}, TND
// (T_cmp 3), with `input` in `input_format`.
struct NcGradCall {
  DeviceTensor output_grad, input, weight, input_grad, weight_grad;
  aclIntArray* seq = nullptr;

  explicit NcGradCall(aclFormat input_format = ACL_FORMAT_ND)
      : output_grad(zeros({3, 2, 16}, ACL_FLOAT16)),
        input(zeros({64, 2, 16}, ACL_FLOAT16, Fill::kInput, input_format)),
        weight(zeros({32, 2}, ACL_FLOAT16)),
        input_grad(zeros({64, 2, 16}, ACL_FLOAT16, Fill::kCanary)),
        weight_grad(zeros({32, 2}, ACL_FLOAT16, Fill::kCanary)) {
    const int64_t ends[] = {64};
    seq = aclCreateIntArray(ends, 1);
  }
  ~NcGradCall() { aclDestroyIntArray(seq); }

  aclnnStatus phase1(uint64_t* workspace, aclOpExecutor** executor) {
    char layout[] = "TND";
    return aclnnNsaCompressGradGetWorkspaceSize(output_grad.get(), input.get(), weight.get(), seq,
                                                32, 16, 0, layout, input_grad.get(),
                                                weight_grad.get(), workspace, executor);
  }
  // Both phases; 0 on success.
  aclnnStatus run() {
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    if (const aclnnStatus s = phase1(&size, &executor); s != ACLNN_SUCCESS) return s;
    std::vector<std::byte> workspace(size + 64);
    return aclnnNsaCompressGrad(size ? workspace.data() : nullptr, size, executor, nullptr);
  }
};

// 1. Formats: ND only (NCHW/NHWC as aliases of ND on 4-D tensors).
TEST(HostProbes, nsa_compress_grad_rejects_every_format_but_nd) {
  for (const aclFormat format : {ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z, ACL_FORMAT_UNDEFINED,
                                 ACL_FORMAT_NCHW, ACL_FORMAT_NHWC}) {
    NcGradCall call(format);
    uint64_t size = 0;
    aclOpExecutor* executor = nullptr;
    EXPECT_EQ(call.phase1(&size, &executor), ACLNN_ERR_PARAM_INVALID) << "aclFormat " << format;
    EXPECT_TRUE(starts_with(aclGetRecentErrMsg(), "NC-FORMAT-01: ")) << aclGetRecentErrMsg();
    EXPECT_TRUE(call.input_grad.untouched() && call.weight_grad.untouched());
  }
  NcGradCall nd(ACL_FORMAT_ND);
  EXPECT_EQ(nd.run(), ACLNN_SUCCESS) << aclGetRecentErrMsg();
}

// 2. Phase-2 messages name EXEC-NULL-01, EXEC-WS-01 and EXEC-STATE-01.
TEST(HostProbes, phase2_messages_name_their_clause) {
  EXPECT_EQ(aclnnNsaCompressGrad(nullptr, 0, nullptr, nullptr), ACLNN_ERR_PARAM_NULLPTR);
  EXPECT_TRUE(starts_with(aclGetRecentErrMsg(), "EXEC-NULL-01: ")) << aclGetRecentErrMsg();

  NcGradCall call;
  uint64_t size = 0;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(call.phase1(&size, &executor), ACLNN_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_GT(size, 0u);
  std::vector<std::byte> workspace(size);
  EXPECT_EQ(aclnnNsaCompressGrad(workspace.data(), size - 1, executor, nullptr),
            ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(starts_with(aclGetRecentErrMsg(), "EXEC-WS-01: ")) << aclGetRecentErrMsg();
  EXPECT_TRUE(call.input_grad.untouched() && call.weight_grad.untouched());
  // The failed run released the executor: a second run finds it unknown.
  EXPECT_EQ(aclnnNsaCompressGrad(workspace.data(), size, executor, nullptr),
            ACLNN_ERR_RUNTIME_ERROR);
  EXPECT_TRUE(starts_with(aclGetRecentErrMsg(), "EXEC-STATE-01: ")) << aclGetRecentErrMsg();

  ASSERT_EQ(call.phase1(&size, &executor), ACLNN_SUCCESS);
  EXPECT_EQ(aclnnNsaCompressGrad(nullptr, size, executor, nullptr), ACLNN_ERR_PARAM_INVALID);
  EXPECT_TRUE(starts_with(aclGetRecentErrMsg(), "EXEC-WS-01: ")) << aclGetRecentErrMsg();
}

// 4. MSDA with no queries: bs 1, 6 keys, 1 head, C 8, one 2x3 level, P 1, Q 0, fp32.
TEST(HostProbes, msda_grad_without_queries_needs_no_workspace) {
  DeviceTensor value = zeros({1, 6, 1, 8}, ACL_FLOAT);
  DeviceTensor spatial = indices<int64_t>({1, 2}, ACL_INT64, {2, 3});
  DeviceTensor level_start = indices<int64_t>({1}, ACL_INT64, {0});
  DeviceTensor location = zeros({1, 0, 1, 1, 1, 2}, ACL_FLOAT);
  DeviceTensor weight = zeros({1, 0, 1, 1, 1}, ACL_FLOAT);
  DeviceTensor grad_output = zeros({1, 0, 1, 8}, ACL_FLOAT);
  DeviceTensor grad_value = zeros({1, 6, 1, 8}, ACL_FLOAT, Fill::kCanary);
  DeviceTensor grad_location = zeros({1, 0, 1, 1, 1, 2}, ACL_FLOAT, Fill::kCanary);
  DeviceTensor grad_weight = zeros({1, 0, 1, 1, 1}, ACL_FLOAT, Fill::kCanary);
  uint64_t size = 1;
  aclOpExecutor* executor = nullptr;
  ASSERT_EQ(aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(
                value.get(), spatial.get(), level_start.get(), location.get(), weight.get(),
                grad_output.get(), grad_value.get(), grad_location.get(), grad_weight.get(), &size,
                &executor),
            ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(size, 0u);
  ASSERT_EQ(aclnnMultiScaleDeformableAttentionGrad(nullptr, 0, executor, nullptr), ACLNN_SUCCESS)
      << aclGetRecentErrMsg();
  EXPECT_EQ(grad_value.values(), std::vector<double>(48, 0.0));  // defined: zero-filled
}

// 5. A failing call in main, then calls from an atexit handler and a static destructor.
TEST(HostProbes, calls_work_from_atexit_handlers_and_static_destructors) {
  const auto child = run_in_child(
      [] {
        if (aclnnNsaCompress(nullptr, 0, nullptr, nullptr) != ACLNN_ERR_PARAM_NULLPTR) return 1;
        std::atexit([] {
          const bool failed_again =
              aclnnNsaCompress(nullptr, 0, nullptr, nullptr) == ACLNN_ERR_PARAM_NULLPTR &&
              starts_with(aclGetRecentErrMsg(), "EXEC-NULL-01: ");
          NcGradCall call;  // and a successful call, which clears the message
          const bool ran = call.run() == ACLNN_SUCCESS && *aclGetRecentErrMsg() == '\0';
          if (!failed_again || !ran) _exit(3);
        });
        struct AtDestruction {
          ~AtDestruction() {
            NcGradCall call;
            if (call.run() != ACLNN_SUCCESS) _exit(4);
          }
        };
        static AtDestruction at_destruction;
        return 0;
      },
      ChildExit::kNormal, std::chrono::seconds(30));
  EXPECT_TRUE(child.ok()) << child.describe();
}

/// Forks `forks` children one after another, each making one call: 0 when all succeeded, else 3
/// with the first failure reported (a child that hangs is killed at its deadline).
int fork_children_that_call(int forks) {
  for (int f = 0; f < forks; ++f) {
    const auto child = run_in_child(
        [] {
          NcGradCall call;
          return call.run() == ACLNN_SUCCESS ? 0 : 1;
        },
        ChildExit::kImmediate, std::chrono::seconds(5));
    if (!child.ok()) {
      props::child_report("fork " + std::to_string(f) + ": " + child.describe());
      return 3;
    }
  }
  return 0;
}

// 6. Three threads loop phase 1 + destroy + a full run while the main thread forks; each child
// calls once. A process-wide lock inherited locked would hang a child.
TEST(HostProbes, forked_children_call_while_threads_hammer_the_executor_registry) {
  const auto host = run_in_child(
      [] {
        std::atomic<bool> stop{false};
        std::vector<std::thread> hammers;
        for (int t = 0; t < 3; ++t) {
          hammers.emplace_back([&] {
            NcGradCall call;
            while (!stop) {
              uint64_t size = 0;
              aclOpExecutor* executor = nullptr;
              if (call.phase1(&size, &executor) == ACLNN_SUCCESS) {
                aclDestroyAclOpExecutor(executor);
              }
              call.run();
            }
          });
        }
        const int code = fork_children_that_call(300);
        stop = true;
        for (std::thread& t : hammers) t.join();
        return code;
      },
      ChildExit::kImmediate, std::chrono::seconds(120));
  EXPECT_TRUE(host.ok()) << host.describe();
}

// 6b. The same in the first moments of a process: the threads make their first calls while the
// main thread forks. A process-wide static created on first use could then be half-initialised
// in the child (its initialiser blocked on a lock the fork handlers hold), and the child's own
// first call would wait for it forever. Each round is a fresh process (forked from the test
// process, which makes no call of its own first), so each round races the first calls again.
TEST(HostProbes, children_forked_during_other_threads_first_calls_can_call) {
  for (int round = 0; round < 200; ++round) {
    const auto host = run_in_child(
        [] {
          std::vector<std::thread> first_calls;
          for (int t = 0; t < 3; ++t) {
            first_calls.emplace_back([] {
              NcGradCall call;
              call.run();
            });
          }
          const int code = fork_children_that_call(4);
          for (std::thread& t : first_calls) t.join();
          return code;
        },
        ChildExit::kImmediate, std::chrono::seconds(60));
    ASSERT_TRUE(host.ok()) << "round " << round << ": " << host.describe();
  }
}

// White-box: every process-wide lock exists before the first call (created while the library
// loads, core/fork_safe.h), and calls create none.
TEST(HostProbes, every_process_wide_lock_exists_before_the_first_call) {
  const size_t at_load = ForkSafeMutex::count();
  EXPECT_GE(at_load, 3u) << "the executor registry, the streams and the planted-fault selection";
  NcGradCall call;
  ASSERT_EQ(call.run(), ACLNN_SUCCESS);
  EXPECT_EQ(ForkSafeMutex::count(), at_load);
}

// 7. NsaSelectedAttention: topkIndices changed to 1e8 between the phases. N1 = N2 = 1, D 128,
// B 16, K 1, T1 1, T2 16, fp16. Phase 2 computes with what phase 1 validated (a copy), never
// reads through the new index.
TEST(HostProbes, nsa_topk_changed_between_the_phases_is_never_read_out_of_bounds) {
  const auto child = run_in_child(
      [] {
        DeviceTensor query = zeros({1, 1, 128}, ACL_FLOAT16);
        DeviceTensor key = zeros({16, 1, 128}, ACL_FLOAT16);
        DeviceTensor value = zeros({16, 1, 128}, ACL_FLOAT16);
        DeviceTensor topk = indices<int32_t>({1, 1, 1}, ACL_INT32, {0});
        DeviceTensor softmax_max = zeros({1, 1, 8}, ACL_FLOAT, Fill::kCanary);
        DeviceTensor softmax_sum = zeros({1, 1, 8}, ACL_FLOAT, Fill::kCanary);
        DeviceTensor out = zeros({1, 1, 128}, ACL_FLOAT16, Fill::kCanary);
        const int64_t q_end[] = {1}, kv_end[] = {16};
        aclIntArray* seq_q = aclCreateIntArray(q_end, 1);
        aclIntArray* seq_kv = aclCreateIntArray(kv_end, 1);
        char layout[] = "TND";
        uint64_t size = 0;
        aclOpExecutor* executor = nullptr;
        if (aclnnNsaSelectedAttentionGetWorkspaceSize(
                query.get(), key.get(), value.get(), topk.get(), nullptr, seq_q, seq_kv, 0.088, 1,
                layout, 0, 16, 1, softmax_max.get(), softmax_sum.get(), out.get(), &size,
                &executor) != ACLNN_SUCCESS) {
          props::child_report(aclGetRecentErrMsg());
          return 1;
        }
        const int32_t far = 100000000;
        aclrtMemcpy(topk.device(), sizeof far, &far, sizeof far, ACL_MEMCPY_HOST_TO_DEVICE);
        std::vector<std::byte> workspace(size + 64);
        const aclnnStatus status =
            aclnnNsaSelectedAttention(size ? workspace.data() : nullptr, size, executor, nullptr);
        aclDestroyIntArray(seq_q);
        aclDestroyIntArray(seq_kv);
        if (status != ACLNN_SUCCESS) props::child_report(aclGetRecentErrMsg());
        return status == ACLNN_SUCCESS ? 0 : 2;
      },
      ChildExit::kImmediate, std::chrono::seconds(30));
  EXPECT_TRUE(child.ok()) << child.describe();
}

}  // namespace
}  // namespace gradconf::testing
