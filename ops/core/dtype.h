// The dtypes the operators compute in, and the one dispatch point from aclDataType to C++ type.
#ifndef GRADCONF_OPS_CORE_DTYPE_H_
#define GRADCONF_OPS_CORE_DTYPE_H_

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

#include "aclnn/acl_meta.h"

namespace gradconf {

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;

/// Bytes per element, or 0 for a dtype the project does not know.
int64_t element_size(aclDataType dtype);
bool is_floating(aclDataType dtype);
/// "float32", "float16", "bfloat16", "float64", "int32", ...: the names used by repro lines,
/// case files and reports.
std::string_view dtype_name(aclDataType dtype);
std::optional<aclDataType> parse_dtype(std::string_view name);

/// `value` rounded to the nearest value of a floating dtype (RTNE), returned as double.
double round_to_dtype(aclDataType dtype, double value);

/// The two 16-bit floating types, which store what float computes.
template <typename T>
inline constexpr bool is_16_bit_float_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

/// Half types compute in float; float in float; double in double (spec README §3).
template <typename T>
using compute_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
struct TypeTag {
  using type = T;
};

/// Calls `fn(TypeTag<T>{})` for the floating dtype `dtype`. Precondition: is_floating(dtype).
template <typename Fn>
decltype(auto) dispatch_floating(aclDataType dtype, Fn&& fn) {
  switch (dtype) {
    case ACL_FLOAT16:
      return fn(TypeTag<half>{});
    case ACL_BF16:
      return fn(TypeTag<bfloat16>{});
    case ACL_DOUBLE:
      return fn(TypeTag<double>{});
    case ACL_FLOAT:
    default:
      return fn(TypeTag<float>{});
  }
}

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_DTYPE_H_
