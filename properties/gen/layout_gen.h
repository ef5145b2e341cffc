// Layouts of any rank for generators and fuzz decoders: contiguous about half of the time;
// otherwise permuted, padded strides (gaps hold NaN in the harness), a leading offset, for inputs
// zero-stride (broadcast) dims, or a combination. Shrinks toward contiguous.
#ifndef GRADCONF_PROPERTIES_GEN_LAYOUT_GEN_H_
#define GRADCONF_PROPERTIES_GEN_LAYOUT_GEN_H_

#include <rapidcheck.h>

#include <ostream>
#include <string_view>
#include <vector>

#include "core/layout.h"
#include "op/op_spec.h"

namespace gradconf {
/// Prints a layout in counterexamples ("contiguous" or its repro text, e.g. "o0231.p3").
void showValue(const LayoutSpec& layout, std::ostream& os);
}  // namespace gradconf

namespace gradconf::props {

struct LayoutLimits {
  int64_t max_pad = 3;     ///< elements of gap after each level
  int64_t max_offset = 5;  ///< elements before the first one
  /// Bit d set: dim d may be broadcast (inputs). A dim whose values all equal each other can make
  /// an op's gradient vanish by construction (identical NSA keys give dS = 0): leave it out.
  uint32_t broadcastable_dims = ~0u;
};

/// The memory orders drawn for `rank` dims (identity spelled as the empty order, as
/// LayoutSpec::parse returns it): identity, reversed, the two inner dims swapped, innermost dim
/// moved outermost-but-one (channels-last for 4-D) and outermost moved innermost.
/// Ranks above kMaxRank get kMaxRank's orders (no tensor has more dims).
const std::vector<std::vector<int>>& standard_orders(int rank);

/// A layout for a tensor of `rank` dims. `orders` defaults to standard_orders(rank).
///
/// @param is_input  Broadcast bits are drawn only for inputs: an output with a zero stride on a
///                  dim > 1 overlaps itself (an *-OUT-01 clause).
rc::Gen<LayoutSpec> gen_layout(int rank, bool is_input, const LayoutLimits& limits = {},
                               std::vector<std::vector<int>> orders = {});

/// How one role's layouts are drawn, by generators and fuzz decoders alike.
struct LayoutRule {
  bool broadcastable = true;  ///< zero-stride dims may be drawn (inputs only)
  LayoutLimits limits = {};
  std::vector<std::vector<int>> orders = {};  ///< empty: standard_orders(rank)
};

/// The rule of a role by default: inputs may broadcast; outputs may not (they would overlap
/// themselves, an *-OUT-01 clause), nor index inputs (data-dependent clauses read them, and a
/// zero stride would repeat one entry, e.g. merge MSDA's levels).
LayoutRule default_layout_rule(const RoleSpec& role);

/// The default rule of the entry's role `role` (a plain rule for a name the entry lacks).
LayoutRule default_layout_rule(const EntrySpec& entry, std::string_view role);

/// "contiguous", or each non-default part: "permuted", "padded", "offset", "broadcast".
std::vector<std::string_view> layout_kinds(const LayoutSpec& layout);

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_GEN_LAYOUT_GEN_H_
