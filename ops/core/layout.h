// How a logical tensor sits in its storage, as a small spec that a repro line can carry: memory
// order of the dims, padding after every level, a leading offset and zero-stride (broadcast)
// dims. Problems carry one LayoutSpec per tensor; the harness turns it into strides.
#ifndef GRADCONF_OPS_CORE_LAYOUT_H_
#define GRADCONF_OPS_CORE_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gradconf {

struct LayoutSpec {
  std::vector<int> order;  ///< memory order, outermost first; empty = identity (row-major)
  int64_t pad = 0;         ///< elements of gap after each level (filled with NaN by harnesses)
  int64_t offset = 0;      ///< elements before the view's first element
  uint32_t broadcast = 0;  ///< bit d set: dim d has stride 0 (inputs only)

  bool contiguous() const;
  bool operator==(const LayoutSpec&) const = default;
  /// "" for the default; else e.g. "o0231.p3.f5.b1" (order, pad, offset, broadcast bits).
  std::string to_string() const;
  static std::optional<LayoutSpec> parse(std::string_view text, size_t rank);
};

struct ViewGeometry {
  std::vector<int64_t> strides;
  int64_t offset = 0;
  int64_t storage_numel = 0;  ///< elements the storage must hold
};

/// Strides for `dims` laid out per `spec`; nullopt when the spec does not fit the rank or the
/// sizes overflow.
std::optional<ViewGeometry> make_geometry(std::span<const int64_t> dims, const LayoutSpec& spec);

/// Row-major strides (saturated at INT64_MAX when the product of dims overflows).
std::vector<int64_t> contiguous_strides(std::span<const int64_t> dims);
/// The same, into `strides` (at least dims.size() long), for callers that avoid allocating.
void contiguous_strides(std::span<const int64_t> dims, std::span<int64_t> strides);

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_LAYOUT_H_
