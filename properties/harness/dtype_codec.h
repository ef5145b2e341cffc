// The harness's one dtype codec: logical values (doubles) to and from the storage bytes of a
// tensor's dtype, as the backend under test reads and writes them.
#ifndef GRADCONF_PROPERTIES_HARNESS_DTYPE_CODEC_H_
#define GRADCONF_PROPERTIES_HARNESS_DTYPE_CODEC_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <variant>
#include <vector>

#include "aclnn/acl_meta.h"
#include "core/dtype.h"

namespace gradconf::props {

/// Bytes per stored element; unknown dtypes (error-contract tests) still get storage, as 4 bytes.
inline int64_t storage_element_size(aclDataType dtype) {
  const int64_t size = element_size(dtype);
  return size > 0 ? size : 4;
}

// Calls fn with a value of the storage type of `dtype`; std::monostate for the dtypes the harness
// stores as zeros. Loops over elements go inside fn, so the dtype is dispatched once per tensor.
template <typename Fn>
decltype(auto) visit_storage_type(aclDataType dtype, Fn&& fn) {
  switch (dtype) {
    case ACL_FLOAT:
      return fn(float{});
    case ACL_DOUBLE:
      return fn(double{});
    case ACL_FLOAT16:
      return fn(half{});
    case ACL_BF16:
      return fn(bfloat16{});
    case ACL_INT32:
      return fn(int32_t{});
    case ACL_INT64:
      return fn(int64_t{});
    default:
      return fn(std::monostate{});
  }
}

template <typename T>
T to_storage(double v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, int32_t>) {
    return std::isfinite(v) ? static_cast<int32_t>(std::clamp(v, -2147483648.0, 2147483647.0)) : 0;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return std::isfinite(v) ? static_cast<int64_t>(std::clamp(v, -0x1p62, 0x1p62)) : 0;
  } else {
    return static_cast<T>(v);
  }
}

template <typename T>
double from_storage(T x) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<float>(x);
  } else {
    return static_cast<double>(x);
  }
}

// Elements of `dtype`: element i is value_of(i), stored at address_of(i).
template <typename ValueOf, typename AddressOf>
void encode_elements(aclDataType dtype, size_t count, ValueOf value_of, AddressOf address_of) {
  const auto esize = static_cast<size_t>(storage_element_size(dtype));
  visit_storage_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    for (size_t i = 0; i < count; ++i) {
      uint8_t* out = address_of(i);
      if constexpr (std::is_same_v<T, std::monostate>) {
        std::memset(out, 0, esize);
      } else {
        const T x = to_storage<T>(value_of(i));
        std::memcpy(out, &x, sizeof(T));
      }
    }
  });
}

// Elements of `dtype` as doubles; element i starts at address_of(i).
template <typename AddressOf>
std::vector<double> decode_elements(aclDataType dtype, size_t count, AddressOf address_of) {
  std::vector<double> values(count);
  visit_storage_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, std::monostate>) {
      for (size_t i = 0; i < count; ++i) {
        T x;
        std::memcpy(&x, address_of(i), sizeof(T));
        values[i] = from_storage(x);
      }
    }
  });
  return values;
}

/// Storage bytes of `count` values of `dtype` (round to nearest even for 16-bit types).
std::vector<uint8_t> encode(aclDataType dtype, std::span<const double> values);
std::vector<double> decode(aclDataType dtype, std::span<const uint8_t> bytes);

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_HARNESS_DTYPE_CODEC_H_
