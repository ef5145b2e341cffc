#include "core/status.h"

namespace gradconf {

std::string format_dims(const int64_t* dims, uint64_t rank) {
  std::string text = "[";
  for (uint64_t i = 0; i < rank; ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

}  // namespace gradconf
