// The MultiScaleDeformableAttention problem descriptor: the single currency between generators,
// fuzzers, the harness, reports and the CLI. It holds no data: a fill spec (kind + seed) rebuilds
// the exact tensors, so one repro line reproduces a case.
#ifndef GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_PROBLEM_H_
#define GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_PROBLEM_H_

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

namespace gradconf::msda {

/// Every tensor parameter of the two entry points, in C-prototype order.
enum class Role : uint8_t {
  kValue,
  kSpatialShape,
  kLevelStartIndex,
  kLocation,
  kAttnWeight,
  kGradOutput,
  kOutput,
  kGradValue,
  kGradLocation,
  kGradAttnWeight,
};
inline constexpr int kRoleCount = 10;
std::string_view role_name(Role role);

/// How location values are drawn (spec "Essence of testing").
enum class LocationFill : uint8_t {
  kUniform,   ///< U[-0.1, 1.1]
  kSpecials,  ///< half uniform, half 0, 1, exact pixel centres, a few ulps off pixel edges and
              ///< the guard, NaN, +-inf
  kSmooth,  ///< pixel coordinates 0.1 away from integers and inside the guard (finite differences)
  kDetr,    ///< Deformable-DETR's: each query's reference point (the centre of pixel q of the
            ///< levels in order while q < keys, else uniform in [0, 1]) plus per-level offsets
            ///< of up to 4 pixels (half a level on levels under 8): what a trained model samples
};
std::string_view location_fill_name(LocationFill fill);

struct Problem : ProblemBase<Role, kRoleCount, ACL_FLOAT> {
  aclDataType shape_dtype = ACL_INT64;  ///< spatialShape
  aclDataType start_dtype = ACL_INT64;  ///< levelStartIndex
  int64_t batch = 1, heads = 1, channels = 8, queries = 2, points = 1;
  std::vector<std::array<int64_t, 2>> levels = {{2, 3}};  ///< (H, W) per level
  int64_t extra_keys = 0;  ///< keys before the first level (value rows no level addresses)
  LocationFill location_fill = LocationFill::kUniform;
  bool zero_weights = false;  ///< some attention weights exactly 0

  bool operator==(const Problem&) const = default;

  int64_t keys() const;
  std::vector<int64_t> level_starts() const;
  std::vector<int64_t> dims(Role role) const;
  aclDataType dtype_of(Role role) const;
  std::vector<Role> roles() const;  ///< the entry's roles, C-prototype order
  std::string_view op_name() const;

  /// e.g. "msda_grad --dt=bf16 --levels=4x5.2x3 --idx=32.64 --loc=specials --seed=7 b2m2c8q3p2"
  std::string to_repro() const;
  static std::optional<Problem> parse_repro(std::string_view line);
};

/// The logical values of an input role, rounded to its dtype; deterministic in (problem, role).
std::vector<double> make_values(const Problem& problem, Role role);

}  // namespace gradconf::msda

#endif  // GRADCONF_OPS_MULTI_SCALE_DEFORMABLE_ATTENTION_PROBLEM_H_
