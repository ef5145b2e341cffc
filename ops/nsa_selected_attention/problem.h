// The NsaSelectedAttention problem descriptor: the single currency between generators, fuzzers,
// the harness, reports and the CLI. It holds no data: a fill spec (kinds + seed) rebuilds the
// exact tensors, so one repro line reproduces a case.
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_PROBLEM_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_PROBLEM_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"
#include "core/direction.h"
#include "core/layout.h"
#include "core/problem_base.h"
#include "core/profile.h"
#include "core/tensor.h"

namespace gradconf::nsa {

/// Every tensor parameter of the two entry points.
enum class Role : uint8_t {
  kQuery,
  kKey,
  kValue,
  kTopk,
  kAttenMask,
  kAttentionOut,  ///< forward: output; backward: optional input
  kAttentionOutGrad,
  kSoftmaxMax,  ///< backward inputs
  kSoftmaxSum,
  kSoftmaxMaxOut,  ///< forward outputs
  kSoftmaxSumOut,
  kDq,
  kDk,
  kDv,
};
inline constexpr int kRoleCount = 14;
std::string_view role_name(Role role);

/// How topkIndices are drawn (spec "Essence of testing").
enum class TopkFill : uint8_t {
  kCausal,     ///< every index <= s / B, the own block usually included, the others distinct
  kArbitrary,  ///< any block of the batch: duplicates and future blocks
};
std::string_view topk_fill_name(TopkFill fill);

struct Problem : ProblemBase<Role, kRoleCount, ACL_FLOAT16> {
  int64_t q_heads = 1, kv_heads = 1, dim_qk = 128, dim_v = 128, block = 16, count = 1;
  std::vector<std::array<int64_t, 2>> seqs = {{16, 16}};  ///< (query length, kv length) per batch
  int64_t sparse_mode = 2;
  TopkFill topk_fill = TopkFill::kCausal;
  bool with_mask = false;           ///< attenMask passed (2-D BOOL, never read)
  bool null_attention_out = false;  ///< backward: attentionOut null (recomputed)
  double scale = 0;                 ///< 0: 1 / sqrt(Dqk)

  bool operator==(const Problem&) const = default;

  int64_t q_tokens() const;
  int64_t kv_tokens() const;
  std::vector<int64_t> seq_q() const;   ///< actualSeqQLen
  std::vector<int64_t> seq_kv() const;  ///< actualSeqKvLen
  double scale_value() const;
  DimVector dims(Role role) const;  ///< inline: validation and fuzz decoding ask for every role's
  aclDataType dtype_of(Role role) const;
  std::vector<Role> roles() const;  ///< the entry's roles, C-prototype order
  std::string_view op_name() const;

  /// e.g. "nsa_grad --dt=bf16 --seqs=16x32.8x16 --topk=arbitrary n4m2dq128dv128b16k2"
  std::string to_repro() const;
  static std::optional<Problem> parse_repro(std::string_view line);
};

/// The logical values of query, key, value, attentionOutGrad, topkIndices and attenMask, rounded
/// to their dtypes; deterministic in (problem, role). The forward's results the backward consumes
/// (attentionOut, softmax statistics) come from the reference (properties/families).
std::vector<double> make_values(const Problem& problem, Role role);

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_PROBLEM_H_
