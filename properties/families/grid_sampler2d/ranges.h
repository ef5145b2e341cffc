// The value ranges GridSampler2D problems are drawn from: one set of constants shared by the
// RapidCheck generators (properties/families/grid_sampler2d/gen.cpp) and the fuzzers' byte decoders
// (fuzz/), so a property and a fuzzer explore the same space.
#ifndef GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_RANGES_H_
#define GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_RANGES_H_

#include <array>
#include <cstdint>
#include <vector>

#include "aclnn/acl_meta.h"

namespace gradconf::props::gs_ranges {

/// Sizes stay small so one case runs in milliseconds; the boundary values straddle the widths
/// where vectorized kernels change strategy (8 and 16 lanes) and include 1.
inline constexpr int64_t kMaxBatch = 3;
inline constexpr int64_t kMaxChannels = 17;
inline constexpr int64_t kMaxSpatial = 17;
inline constexpr std::array<int64_t, 8> kBoundarySizes = {1, 2, 7, 8, 9, 15, 16, 17};

/// Layout knobs: padding after each level and a leading offset, in elements.
inline constexpr int64_t kMaxLayoutPad = 3;
inline constexpr int64_t kMaxLayoutOffset = 5;

inline constexpr std::array<aclDataType, 4> kFloatDtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,
                                                            ACL_DOUBLE};

/// The permutations a layout generator draws for 4-D tensors: identity, channels-last, a
/// transpose of the two inner dims, and fully reversed.
inline constexpr std::array<std::array<int, 4>, 4> kOrders = {
    {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 1, 3, 2}, {3, 2, 1, 0}}};

/// kOrders as the layout kit takes them.
inline std::vector<std::vector<int>> layout_orders() {
  std::vector<std::vector<int>> orders;
  for (const auto& order : kOrders) orders.emplace_back(order.begin(), order.end());
  return orders;
}

/// Base problems of boundary cases (just-invalid / just-valid calls) stay smaller still: a
/// breaker only needs the shape relations, and the just-valid side runs the kernels.
inline constexpr int64_t kBoundaryMaxBatch = 2;
inline constexpr int64_t kBoundaryMaxChannels = 4;
inline constexpr int64_t kBoundaryMaxSpatial = 9;

/// Argument values just outside what GS-* validation accepts, nearest first (a zero choice
/// picks the first), shared by the breakers and the argument fuzzers. 2 (bicubic, reflection) is
/// valid under cann-latest only.
inline constexpr std::array<int64_t, 6> kInvalidModes = {2,         -1,        3,
                                                         INT64_MIN, INT64_MAX, int64_t{1} << 32};
/// The modes each profile accepts: seed and extended {0, 1}; cann-latest adds 2 (E-GS-5).
inline constexpr int64_t kSeedModes = 2;
inline constexpr int64_t kCannLatestModes = 3;
/// Every non-floating aclDataType, plus undefined.
inline constexpr std::array<aclDataType, 13> kNonFloatingDtypes = {
    ACL_INT32,  ACL_INT64,  ACL_BOOL,   ACL_UINT8,     ACL_INT8,       ACL_INT16,       ACL_UINT16,
    ACL_UINT32, ACL_UINT64, ACL_STRING, ACL_COMPLEX64, ACL_COMPLEX128, ACL_DT_UNDEFINED};
/// outputMask sizes GS-MASK-02 rejects; at most 16 because the harness passes at most 16 values.
inline constexpr std::array<uint64_t, 6> kInvalidMaskSizes = {1, 3, 0, 4, 8, 16};

}  // namespace gradconf::props::gs_ranges

#endif  // GRADCONF_PROPERTIES_FAMILIES_GRID_SAMPLER2D_RANGES_H_
