#include "core/status.h"

namespace gradconf {
namespace {
thread_local std::string last_error_message;
}  // namespace

aclnnStatus fail(aclnnStatus status, std::string message) {
  last_error_message = std::move(message);
  return status;
}

void clear_last_error() { last_error_message.clear(); }

const char* last_error() { return last_error_message.c_str(); }

std::string format_dims(const int64_t* dims, uint64_t rank) {
  std::string text = "[";
  for (uint64_t i = 0; i < rank; ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

}  // namespace gradconf
