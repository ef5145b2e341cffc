// The NsaCompress problem descriptor: the single currency between generators, fuzzers, the
// harness, reports and the CLI. It holds no data: a fill spec (seed) rebuilds the exact tensors,
// so one repro line reproduces a case.
#ifndef GRADCONF_OPS_NSA_COMPRESS_PROBLEM_H_
#define GRADCONF_OPS_NSA_COMPRESS_PROBLEM_H_

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

namespace gradconf::nc {

/// Every tensor parameter of the two entry points.
enum class Role : uint8_t { kInput, kWeight, kOutputGrad, kOutput, kInputGrad, kWeightGrad };
inline constexpr int kRoleCount = 6;
std::string_view role_name(Role role);

struct Problem : ProblemBase<Role, kRoleCount, ACL_FLOAT16> {
  int64_t heads = 1, dim = 16, block = 32, stride = 16;
  std::vector<int64_t> lengths = {48};  ///< per-batch sequence lengths (0 allowed)
  bool null_seq_len = false;            ///< actSeqLen passed as null (then lengths has one entry)
  bool null_layout = false;             ///< layoutOptional passed as null instead of "TND"

  bool operator==(const Problem&) const = default;

  int64_t tokens() const;
  std::vector<int64_t> prefix_sums() const;  ///< actSeqLen
  int64_t compressed_rows() const;           ///< T_cmp
  std::vector<int64_t> dims(Role role) const;
  std::vector<Role> roles() const;  ///< the entry's roles, C-prototype order
  std::string_view op_name() const;

  /// e.g. "nc_grad --dt=bf16 --seqs=0.40.17 --layout-input=permuted --seed=7 n2d16l32s16"
  std::string to_repro() const;
  static std::optional<Problem> parse_repro(std::string_view line);
};

/// The logical values of an input role, rounded to the dtype; deterministic in (problem, role).
std::vector<double> make_values(const Problem& problem, Role role);

}  // namespace gradconf::nc

#endif  // GRADCONF_OPS_NSA_COMPRESS_PROBLEM_H_
