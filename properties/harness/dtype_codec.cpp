#include "harness/dtype_codec.h"

namespace gradconf::props {

std::vector<uint8_t> encode(aclDataType dtype, std::span<const double> values) {
  const auto size = static_cast<size_t>(storage_element_size(dtype));
  std::vector<uint8_t> bytes(values.size() * size);
  encode_elements(
      dtype, values.size(), [&](size_t i) { return values[i]; },
      [&](size_t i) { return bytes.data() + i * size; });
  return bytes;
}

std::vector<double> decode(aclDataType dtype, std::span<const uint8_t> bytes) {
  const auto size = static_cast<size_t>(storage_element_size(dtype));
  return decode_elements(dtype, bytes.size() / size,
                         [&](size_t i) { return bytes.data() + i * size; });
}

}  // namespace gradconf::props
