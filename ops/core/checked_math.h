// Overflow-checked shape arithmetic: every size computed from caller-supplied dims goes through
// these, so a wild shape becomes a validation error instead of a wrapped size.
#ifndef GRADCONF_OPS_CORE_CHECKED_MATH_H_
#define GRADCONF_OPS_CORE_CHECKED_MATH_H_

#include <cstdint>
#include <optional>
#include <span>

namespace gradconf {

inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// Product of non-negative dims; nullopt on overflow or a negative dim.
inline std::optional<int64_t> checked_numel(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    auto next = checked_mul(n, d);
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

/// Storage offset of the last element a view addresses: offset + sum (dims[i] - 1) * strides[i];
/// nullopt on overflow. Meaningful for non-empty views.
inline std::optional<int64_t> checked_last_offset(std::span<const int64_t> dims,
                                                  std::span<const int64_t> strides,
                                                  int64_t offset) {
  int64_t last = offset;
  for (size_t i = 0; i < dims.size() && i < strides.size(); ++i) {
    auto last_index = checked_add(dims[i], -1);
    auto reach = last_index ? checked_mul(*last_index, strides[i]) : std::nullopt;
    auto next = reach ? checked_add(last, *reach) : std::nullopt;
    if (!next) return std::nullopt;
    last = *next;
  }
  return last;
}

/// Rounds `bytes` up to a multiple of `alignment` (a power of two); nullopt on overflow.
inline std::optional<uint64_t> checked_align_up(uint64_t bytes, uint64_t alignment) {
  uint64_t r;
  if (__builtin_add_overflow(bytes, alignment - 1, &r)) return std::nullopt;
  return r & ~(alignment - 1);
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_CHECKED_MATH_H_
