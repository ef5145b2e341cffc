// The value ranges NsaSelectedAttention problems are drawn from: one set of constants shared by
// the RapidCheck generators (gen.cpp) and the fuzzers' byte decoders
// (fuzz/nsa_selected_attention/), so a property and a fuzzer explore the same space.
#ifndef GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_RANGES_H_
#define GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_RANGES_H_

#include <array>
#include <cstdint>

#include "aclnn/acl_meta.h"

namespace gradconf::props::nsa_ranges {

inline constexpr std::array<aclDataType, 2> kSeedDtypes = {ACL_FLOAT16, ACL_BF16};
inline constexpr std::array<aclDataType, 4> kFloatDtypes = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT,
                                                            ACL_DOUBLE};

/// Heads: M kv heads, G = N / M query heads each (32, the limit, with one kv head only).
inline constexpr int64_t kMaxKvHeads = 2;
inline constexpr int64_t kMaxGroup = 32;
/// Head dims D1, D2: 128 or 192 for `seed`; any small dim for `extended`.
inline constexpr std::array<int64_t, 2> kSeedHeadDims = {128, 192};
inline constexpr int64_t kMaxExtendedHeadDim = 8;
/// selectedBlockSize B: multiples of 16 for `seed`; small for `extended`. K blocks per query.
inline constexpr std::array<int64_t, 2> kSeedBlocks = {16, 32};
inline constexpr int64_t kMaxExtendedBlock = 4;
inline constexpr int64_t kMaxCount = 3;

/// Batches; a batch's kv length is B * (K + up to this many blocks).
inline constexpr int64_t kMaxBatches = 3;
inline constexpr int64_t kMaxExtraKvBlocks = 2;
/// Queries a batch: the double reference stays fast. The byte decoders run every input through
/// the kernels and keep fewer (`seed` problems, with head dims of 128+, fewer still).
inline constexpr int64_t kMaxQueries = 20;
inline constexpr int64_t kFuzzMaxQueries = 12;
inline constexpr int64_t kFuzzMaxSeedQueries = 2;

}  // namespace gradconf::props::nsa_ranges

#endif  // GRADCONF_PROPERTIES_FAMILIES_NSA_SELECTED_ATTENTION_RANGES_H_
