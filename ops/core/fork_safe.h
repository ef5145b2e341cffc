// Process-wide locks of a library that lives inside other people's processes. fork() copies only
// the calling thread: a mutex another thread held at that moment stays locked in the child
// forever, and the child's first call that needs it hangs. Every such lock is a ForkSafeMutex:
// the process's fork handlers take all of them before fork() and release them on both sides, so
// the child starts with every one free and every guarded structure consistent.
//
// No static of the library is first initialised by a call: each one a call can reach (the locks'
// owners, the thread pool, the settings read from the environment, the detected ISA) is created
// while the library loads, before any caller's thread exists (each owner's `*_at_load`
// reference). Created on first use, a thread's first call could be inside its initialiser (blocked
// on a lock the fork handlers hold, or just reading the environment) at the moment another thread
// forks: the child inherits the initialisation as in progress, and its own first call waits for it
// forever (the host-process probes saw both).
#ifndef GRADCONF_OPS_CORE_FORK_SAFE_H_
#define GRADCONF_OPS_CORE_FORK_SAFE_H_

#include <mutex>

#include "core/planted_fault.h"

namespace gradconf {

class ForkSafeMutex {
 public:
  /// `unguarded_by` names the core fault that removes this mutex from the fork handlers in the
  /// planted-fault library (kNone: always guarded). Instances must live for the whole process
  /// (function-local statics allocated with new): the handlers keep their address.
  explicit ForkSafeMutex(CoreFault unguarded_by = CoreFault::kNone);
  ForkSafeMutex(const ForkSafeMutex&) = delete;
  ForkSafeMutex& operator=(const ForkSafeMutex&) = delete;

  void lock() { mutex_.lock(); }
  void unlock() { mutex_.unlock(); }
  bool try_lock() { return mutex_.try_lock(); }

  /// How many exist (white-box tests: all of them are created at load).
  static size_t count();

 private:
  friend struct ForkHandlers;
  std::mutex mutex_;
  CoreFault unguarded_by_;
  bool held_for_fork_ = false;
};

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_FORK_SAFE_H_
