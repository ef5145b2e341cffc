#include "core/dtype.h"

#include <array>
#include <utility>

namespace gradconf {
namespace {
struct DtypeInfo {
  aclDataType dtype;
  std::string_view name;
  int64_t size;
  bool floating;
};
constexpr std::array kDtypes = {
    DtypeInfo{ACL_FLOAT, "float32", 4, true},
    DtypeInfo{ACL_FLOAT16, "float16", 2, true},
    DtypeInfo{ACL_BF16, "bfloat16", 2, true},
    DtypeInfo{ACL_DOUBLE, "float64", 8, true},
    DtypeInfo{ACL_INT8, "int8", 1, false},
    DtypeInfo{ACL_UINT8, "uint8", 1, false},
    DtypeInfo{ACL_INT16, "int16", 2, false},
    DtypeInfo{ACL_UINT16, "uint16", 2, false},
    DtypeInfo{ACL_INT32, "int32", 4, false},
    DtypeInfo{ACL_UINT32, "uint32", 4, false},
    DtypeInfo{ACL_INT64, "int64", 8, false},
    DtypeInfo{ACL_UINT64, "uint64", 8, false},
    DtypeInfo{ACL_BOOL, "bool", 1, false},
    DtypeInfo{ACL_COMPLEX64, "complex64", 8, false},
    DtypeInfo{ACL_COMPLEX128, "complex128", 16, false},
};

const DtypeInfo* find(aclDataType dtype) {
  for (const auto& info : kDtypes) {
    if (info.dtype == dtype) return &info;
  }
  return nullptr;
}
}  // namespace

int64_t element_size(aclDataType dtype) {
  const auto* info = find(dtype);
  return info ? info->size : 0;
}

bool is_floating(aclDataType dtype) {
  const auto* info = find(dtype);
  return info && info->floating;
}

std::string_view dtype_name(aclDataType dtype) {
  const auto* info = find(dtype);
  return info ? info->name : std::string_view("unknown");
}

double round_to_dtype(aclDataType dtype, double value) {
  return dispatch_floating(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // half/bfloat16 from double go through float, as Eigen converts. Double rounding can move a
    // value within a float ulp of a tie by one 16-bit ulp; callers only need the result to be
    // exactly representable, which it is.
    if constexpr (std::is_same_v<T, double>) {
      return value;
    } else if constexpr (std::is_same_v<T, float>) {
      return static_cast<double>(static_cast<float>(value));
    } else {
      return static_cast<double>(static_cast<float>(T(static_cast<float>(value))));
    }
  });
}

std::optional<aclDataType> parse_dtype(std::string_view name) {
  static constexpr std::pair<std::string_view, aclDataType> kAliases[] = {
      {"f32", ACL_FLOAT},   {"f16", ACL_FLOAT16},   {"bf16", ACL_BF16},   {"f64", ACL_DOUBLE},
      {"float", ACL_FLOAT}, {"double", ACL_DOUBLE}, {"half", ACL_FLOAT16}};
  for (const auto& info : kDtypes) {
    if (info.name == name) return info.dtype;
  }
  for (const auto& [alias, dtype] : kAliases) {
    if (alias == name) return dtype;
  }
  return std::nullopt;
}

}  // namespace gradconf
