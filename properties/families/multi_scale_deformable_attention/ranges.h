// The value ranges MultiScaleDeformableAttention problems are drawn from: one set of constants
// shared by the RapidCheck generators (gen.cpp) and the fuzzers' byte decoders
// (fuzz/multi_scale_deformable_attention/), so a property and a fuzzer explore the same space.
#ifndef GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_RANGES_H_
#define GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_RANGES_H_

#include <array>
#include <cstdint>

#include "aclnn/acl_meta.h"

namespace gradconf::props::msda_ranges {

/// `seed` and cann-latest take FLOAT and the half types; `extended` adds DOUBLE.
inline constexpr std::array<aclDataType, 3> kSeedDtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
inline constexpr std::array<aclDataType, 4> kFloatDtypes = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16,
                                                            ACL_DOUBLE};

/// Sizes stay small so one case runs in milliseconds. The byte decoders run every input through
/// the kernels and keep fewer batches and queries.
inline constexpr int64_t kMaxBatch = 3;
inline constexpr int64_t kMaxHeads = 3;
inline constexpr int64_t kMaxQueries = 6;
inline constexpr int64_t kMaxPoints = 3;
inline constexpr int64_t kFuzzMaxBatch = 2;
inline constexpr int64_t kFuzzMaxQueries = 4;

/// Levels: up to 4, each side 1..9 (1x1 and non-square levels included).
inline constexpr int64_t kMaxLevels = 4;
inline constexpr int64_t kMaxLevelSide = 9;
/// Extra keys past the last level (value rows no level addresses).
inline constexpr int64_t kExtraKeys = 3;
inline constexpr int64_t kFuzzMaxExtraKeys = 5;

/// C: multiples of 8 (CANN's tiling) in `seed` and cann-latest; `extended` also any other C,
/// e.g. mmcv's and Deformable-DETR's own test shapes (1, 2, 4, 30, 71) and the tails of a lane
/// vector (any C up to kMaxOddChannels).
inline constexpr std::array<int64_t, 5> kSeedChannels = {8, 16, 24, 32, 64};
inline constexpr std::array<int64_t, 5> kOddChannels = {1, 2, 4, 30, 71};
inline constexpr int64_t kMaxOddChannels = 39;

}  // namespace gradconf::props::msda_ranges

#endif  // GRADCONF_PROPERTIES_FAMILIES_MULTI_SCALE_DEFORMABLE_ATTENTION_RANGES_H_
