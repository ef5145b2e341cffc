// Variable-length sequences packed along the token dim (layout TND), given as prefix sums of the
// per-batch lengths (CANN's actSeqLen / actualSeqQLen): batch b spans [a[b-1], a[b]) with
// a[-1] = 0. Shared by every op that takes such an array, so that all validate it alike.
#ifndef GRADCONF_OPS_CORE_SEQUENCES_H_
#define GRADCONF_OPS_CORE_SEQUENCES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gradconf {

/// Tokens [begin, end) of one batch.
struct SequenceRange {
  int64_t begin = 0, end = 0;
  int64_t length() const { return end - begin; }
};

/// nullopt when `prefix` is a valid prefix-sum array over `total` tokens (not empty, no negative
/// value, non-decreasing, last == total); else "expected ..., but got ..." naming `name`.
std::optional<std::string> check_prefix_sums(std::span<const int64_t> prefix, int64_t total,
                                             std::string_view name);

/// The batches of a valid prefix-sum array.
std::vector<SequenceRange> sequence_ranges(std::span<const int64_t> prefix);

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_SEQUENCES_H_
