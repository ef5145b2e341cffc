// The per-thread last-error message (spec README §2). It lives in a trivially destructible
// thread_local buffer: a thread_local std::string is destroyed when its thread exits, and on the
// main thread that happens before atexit handlers and static destructors run, so every later call
// (successful ones too: each clears the message) would write into freed memory. A buffer has no
// destructor and no heap block, so calls at exit, from any thread, stay safe.
#include <algorithm>
#include <mutex>
#include <string>

#include "core/planted_fault.h"
#include "core/status.h"

namespace gradconf {
namespace {
// Messages are one line; the longest the clause tables write (shapes of rank 8 with strides) are
// a few hundred characters. Longer ones are cut and end in "...".
constexpr size_t kMessageCapacity = 2048;
thread_local char message_buffer[kMessageCapacity] = {};

// The planted fault core.message_in_thread_local_string: the old storage, kept only to prove the
// host-process laws see it.
std::string& planted_message() {
  thread_local std::string message;
  return message;
}

// The planted fault core.message_shared_across_threads: one message for every thread.
struct SharedMessage {
  std::mutex mutex;
  std::string text;
};
SharedMessage& shared_message() {
  static auto* shared = new SharedMessage;
  return *shared;
}
[[maybe_unused]] const SharedMessage& shared_at_load = shared_message();  // core/fork_safe.h

void store_in_buffer(std::string_view message) {
  if (message.size() < kMessageCapacity) {
    std::copy(message.begin(), message.end(), message_buffer);  // an empty view may have no data
    message_buffer[message.size()] = '\0';
    return;
  }
  constexpr std::string_view kCut = "...";
  const size_t kept = kMessageCapacity - 1 - kCut.size();
  std::copy_n(message.begin(), kept, message_buffer);
  std::copy(kCut.begin(), kCut.end(), message_buffer + kept);
  message_buffer[kMessageCapacity - 1] = '\0';
}

void store(std::string_view message) {
  if (core_fault_planted(CoreFault::kMessageInThreadLocalString)) {
    planted_message() = std::string(message);
    return;
  }
  if (core_fault_planted(CoreFault::kMessageSharedAcrossThreads)) {
    std::lock_guard lock(shared_message().mutex);
    shared_message().text = std::string(message);
    return;
  }
  store_in_buffer(message);
}
}  // namespace

aclnnStatus fail(aclnnStatus status, std::string message) {
  store(message);
  return status;
}

void clear_last_error() { store({}); }

const char* last_error() {
  if (core_fault_planted(CoreFault::kMessageInThreadLocalString)) {
    return planted_message().c_str();
  }
  if (core_fault_planted(CoreFault::kMessageSharedAcrossThreads)) {
    std::lock_guard lock(shared_message().mutex);
    store_in_buffer(shared_message().text);
  }
  return message_buffer;
}

}  // namespace gradconf
