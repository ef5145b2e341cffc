#include "core/fork_safe.h"

#include <pthread.h>

#include <array>
#include <cstdlib>

namespace gradconf {

// The registered mutexes, in registration order. Registration itself is guarded by `enrol`,
// which the handlers hold across fork too, so a fork during a registration is consistent.
struct ForkHandlers {
  static constexpr size_t kCapacity = 32;
  std::mutex enrol;
  std::array<ForkSafeMutex*, kCapacity> mutexes{};
  size_t count = 0;

  static ForkHandlers& instance() {
    static ForkHandlers* handlers = [] {
      auto* h = new ForkHandlers;  // never destroyed: fork handlers outlive static destructors
      pthread_atfork(&before_fork, &after_fork, &after_fork);
      return h;
    }();
    return *handlers;
  }

  void add(ForkSafeMutex* mutex) {
    std::lock_guard lock(enrol);
    if (count == kCapacity) std::abort();  // a fixed set of process-wide locks: a bug if full
    mutexes[count++] = mutex;
  }

  // Locks are taken in registration order and released in reverse; no guarded section takes a
  // second ForkSafeMutex, so this order cannot deadlock against a caller.
  static void before_fork() {
    ForkHandlers& h = instance();
    h.enrol.lock();
    for (size_t i = 0; i < h.count; ++i) {
      ForkSafeMutex* m = h.mutexes[i];
      m->held_for_fork_ =
          m->unguarded_by_ == CoreFault::kNone || !core_fault_planted(m->unguarded_by_);
      if (m->held_for_fork_) m->mutex_.lock();
    }
  }
  static void after_fork() {
    ForkHandlers& h = instance();
    for (size_t i = h.count; i-- > 0;) {
      ForkSafeMutex* m = h.mutexes[i];
      if (m->held_for_fork_) m->mutex_.unlock();
      m->held_for_fork_ = false;
    }
    h.enrol.unlock();
  }
};

ForkSafeMutex::ForkSafeMutex(CoreFault unguarded_by) : unguarded_by_(unguarded_by) {
  ForkHandlers::instance().add(this);
}

size_t ForkSafeMutex::count() {
  ForkHandlers& h = ForkHandlers::instance();
  std::lock_guard lock(h.enrol);
  return h.count;
}

}  // namespace gradconf
