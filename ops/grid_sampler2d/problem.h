// The GridSampler2D problem descriptor: the single currency between generators, fuzzers, the
// harness, reports and the CLI (spec ARCHITECTURE.md). It holds no data: a fill spec (seed + kinds)
// rebuilds the exact tensors, so one repro line reproduces a case.
#ifndef GRADCONF_OPS_GRID_SAMPLER2D_PROBLEM_H_
#define GRADCONF_OPS_GRID_SAMPLER2D_PROBLEM_H_

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "aclnn/acl_meta.h"
#include "core/direction.h"
#include "core/layout.h"
#include "core/problem_base.h"
#include "core/profile.h"
#include "core/repro.h"
#include "grid_sampler2d/coords.h"

namespace gradconf::grid_sampler2d {

/// Every tensor parameter of the two entry points, in C-prototype order.
enum class Role : uint8_t { kGradOutput, kInput, kGrid, kOut, kInputGrad, kGridGrad };
inline constexpr int kRoleCount = 6;
/// The C API parameter name ("gradOutput", "input", ...).
std::string_view role_name(Role role);

/// How grid coordinates are drawn (spec "Essence of testing").
enum class GridFill : uint8_t {
  kUniform,   ///< mostly U[-1.2, 1.2], some U[-2, 2]
  kSpecials,  ///< half uniform, half specials: +-1, 0, pixel centres/edges, NaN, +-inf, 1e30
  kExact,     ///< only exact pixel centres and edges (dyadic where the size allows)
  kSmooth,    ///< U[-0.9, 0.9] kept 2^-6 away from every kink (finite differences)
};
/// How input and gradOutput values are drawn.
enum class ValueFill : uint8_t {
  kUniform,   ///< U[-1, 1]
  kDyadic,    ///< k/4 for integer |k| <= 16: exact in every dtype, so sums are exact
  kSpecials,  ///< input: U[-1, 1] with one value in 8 +inf, -inf or NaN (gradOutput: uniform),
              ///< so a tap whose tiny weight is dropped shows up as NaN instead of inf
};

/// The names repro lines use: "uniform", "specials", ...; "f32", "f16", "bf16", "f64" (other
/// dtypes: their aclDataType name).
std::string_view grid_fill_name(GridFill fill);
std::string_view value_fill_name(ValueFill fill);
using gradconf::dtype_repro_name;

struct Problem : ProblemBase<Role, kRoleCount, ACL_FLOAT> {
  int64_t n = 1, c = 1, in_h = 5, in_w = 8, out_h = 3, out_w = 3;
  Interpolation interpolation = Interpolation::kBilinear;
  Padding padding = Padding::kZeros;
  bool align_corners = false;
  std::optional<std::array<bool, 2>> output_mask =
      std::array<bool, 2>{true, true};  ///< nullopt: null
  GridFill grid_fill = GridFill::kUniform;
  ValueFill value_fill = ValueFill::kUniform;

  bool operator==(const Problem&) const = default;

  /// The logical shape of a role's tensor.
  std::vector<int64_t> dims(Role role) const;
  /// The roles this entry has, inputs first, in C-prototype order.
  std::vector<Role> inputs() const;
  std::vector<Role> outputs() const;
  /// inputs() then outputs(): the entry's tensors in C-prototype order.
  std::vector<Role> roles() const;
  /// True when the output is computed (backward: per outputMask).
  bool wants(Role output) const;
  /// "GridSampler2DBackward" or "GridSampler2D".
  std::string_view op_name() const;

  /// One canonical line, defaults omitted, e.g.
  /// "grid_sampler2d_backward --dt=bf16 --interp=nearest --mask=10 --seed=7 n2c3_ih5iw8_oh3ow7".
  std::string to_repro() const;
  /// Accepts what to_repro writes (options in any order); nullopt on anything else.
  static std::optional<Problem> parse_repro(std::string_view line);
};

std::ostream& operator<<(std::ostream& os, const Problem& problem);

/// The logical (contiguous, row-major) values of an input role, already rounded to the dtype and
/// constant along broadcast dims. Deterministic in (problem, role) on every platform.
std::vector<double> make_values(const Problem& problem, Role role);

}  // namespace gradconf::grid_sampler2d

#endif  // GRADCONF_OPS_GRID_SAMPLER2D_PROBLEM_H_
