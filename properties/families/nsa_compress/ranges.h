// The value ranges NsaCompress problems are drawn from: one set of constants shared by the
// RapidCheck generators (gen.cpp) and the fuzzers' byte decoders (fuzz/nsa_compress/), so a
// property and a fuzzer explore the same space.
#ifndef GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_RANGES_H_
#define GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_RANGES_H_

#include <array>
#include <cstdint>

#include "aclnn/acl_meta.h"

namespace gradconf::props::nc_ranges {

/// `seed` takes the half types; `extended` adds FLOAT and DOUBLE.
inline constexpr std::array<aclDataType, 2> kSeedDtypes = {ACL_FLOAT16, ACL_BF16};
inline constexpr std::array<aclDataType, 4> kFloatDtypes = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT,
                                                            ACL_DOUBLE};

/// `seed` windowing: d a multiple of 16, l = d + 16 k with k >= 1 (cann-latest: k >= 0, errata
/// E-NC-1), l <= 128 (the forward's limit) and l / d <= 8.
inline constexpr std::array<int64_t, 2> kSeedStrides = {16, 32};
inline constexpr int64_t kBlockStep = 16;
inline constexpr int64_t kMaxSeedBlock = 128;
inline constexpr int64_t kMaxBlockPerStride = 8;
/// `extended` windowing: any small positive l and d (l <= d too: gaps between windows).
inline constexpr int64_t kMaxExtendedBlock = 9;
inline constexpr int64_t kMaxExtendedStride = 5;

/// N: small, and the forward's limit 128 now and then (one short batch then).
inline constexpr int64_t kMaxHeads = 3;
inline constexpr int64_t kWideHeads = 128;
/// D: multiples of 16 for `seed`; any small D for `extended`.
inline constexpr std::array<int64_t, 2> kSeedDims = {16, 32};
inline constexpr int64_t kMaxExtendedDim = 5;

/// Batches, and a batch's length: up to this many windows past its first, plus a tail.
inline constexpr int64_t kMaxBatches = 4;
inline constexpr int64_t kMaxExtraWindows = 3;

}  // namespace gradconf::props::nc_ranges

#endif  // GRADCONF_PROPERTIES_FAMILIES_NSA_COMPRESS_RANGES_H_
