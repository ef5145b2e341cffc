// RapidCheck generators of GridSampler2D problems and of boundary cases (one clause broken at
// its boundary, or the same edit kept just valid), and the classification that makes their
// coverage visible in a property's output. Built from gen::build / mapcat / oneOf (and the shared
// with_layouts), so every value shrinks field by field (sizes toward 1, layouts toward contiguous,
// choices toward 0).
#ifndef GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_GEN_H_
#define GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_GEN_H_

#include <rapidcheck.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "aclnn/acl_meta.h"
#include "core/layout.h"
#include "core/profile.h"
#include "families/grid_sampler2d/breakers.h"
#include "families/grid_sampler2d/entries.h"
#include "gen/layout_gen.h"
#include "grid_sampler2d/problem.h"

namespace gradconf::props::gs {

using grid_sampler2d::GridFill;
using grid_sampler2d::ValueFill;

/// How a role's layout is drawn, by the generators and the fuzz decoders: the RoleSpec's default
/// (inputs may broadcast; an output with a zero stride on a dim > 1 is invalid, GS-OUT-01), with
/// the orders of gs_ranges::kOrders and its pad and offset limits.
LayoutRule layout_rule(const Problem& p, Role role);

/// What gen_problem may draw. Unset optionals mean "every value".
struct GenOptions {
  /// Unset: seed and cann-latest two in five each, extended one in five (it adds nothing to
  /// GridSampler2D: DOUBLE is a seed dtype here). Under cann-latest every mode is drawn, bicubic
  /// and reflection included.
  std::optional<SpecProfile> profile = {};
  std::optional<aclDataType> dtype = {};
  std::optional<Direction> entry = {};
  bool strided = true;         ///< false: every tensor contiguous
  bool allow_empty = true;     ///< N, C, Hout or Wout = 0 now and then
  bool allow_specials = true;  ///< GridFill::kSpecials (NaN, +-inf, 1e30, ...) now and then
  std::optional<GridFill> grid_fill = {};
  std::optional<ValueFill> value_fill = {};
  bool allow_null_mask =
      false;  ///< backward: a null outputMask (GS-MASK-01 early-out) now and then
};

/// Valid problems within gs_ranges limits: sizes biased to gs_ranges::kBoundarySizes, 1 and the
/// limit; every entry, profile, dtype, interpolation and padding of the profile, alignCorners and
/// outputMask (00 included);
/// layouts per role from gen_layout; grid fill mostly uniform, some specials and exact; value fill
/// uniform or dyadic; a random seed. Each case stays under ~15k elements per tensor.
///
/// @param options  Restrictions; see GenOptions.
rc::Gen<Problem> gen_problem(const GenOptions& options = {});

using BoundaryCase = props::BoundaryCase<Problem>;

/// Boundary cases: a clause drawn uniformly among the breakers that apply (to options.entry if
/// set), a small valid base problem (gs_ranges::kBoundaryMax*, no empty tensors, non-null mask),
/// either side of the boundary, and a choice among the breaker's ways.
///
/// @param options  Restrictions on the base problem (allow_empty and allow_null_mask ignored).
rc::Gen<BoundaryCase> gen_boundary_case(const GenOptions& options = {});

/// The axes a problem is classified along; combine with |.
enum ClassifyAxis : uint32_t {
  kAxisEntry = 1u << 0,
  kAxisDtype = 1u << 1,
  kAxisInterpolation = 1u << 2,
  kAxisPadding = 1u << 3,
  kAxisAlignCorners = 1u << 4,
  kAxisMask = 1u << 5,
  kAxisLayouts = 1u << 6,  ///< per role: contiguous, permuted, padded, offset, broadcast
  kAxisEmpty = 1u << 7,
  kAxisBoundarySizes = 1u << 8,  ///< per size in gs_ranges::kBoundarySizes
  kAxisGridFill = 1u << 9,
  kAxisValueFill = 1u << 10,
  kAxisProfile = 1u << 11,
  kAllAxes = (1u << 12) - 1,
};

/// The tags of a problem along `axes`, e.g. "dtype=bf16", "layout:grid=permuted" and
/// "layout:grid=padded" (one tag per layout kind), "boundary:iw=8", "empty". RapidCheck prints the
/// distribution of whole tag sets, so properties that want readable counts pass a few axes;
/// marginal counts per tag come from this list.
std::vector<std::string> problem_tags(const Problem& problem, uint32_t axes = kAllAxes);

/// RC_TAGs the current test case with problem_tags(problem, axes). Call inside a property.
void classify(const Problem& problem, uint32_t axes = kAllAxes);

/// RC_TAGs the clause id, the side ("just-valid"/"just-invalid") and the entry.
inline void classify(const BoundaryCase& boundary_case) { classify_boundary(boundary_case); }

/// Prints summarize(call) in counterexamples.
void showValue(const Call& call, std::ostream& os);

}  // namespace gradconf::props::gs

#endif  // GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_GEN_H_
