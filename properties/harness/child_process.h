// Runs a piece of a law in a forked child process, so that what a library may do to its host
// process (abort, crash on a use after free at exit, hang on a lock inherited from fork) is a
// failed law with a reason instead of a dead or stuck test suite.
#ifndef GRADCONF_PROPERTIES_HARNESS_CHILD_PROCESS_H_
#define GRADCONF_PROPERTIES_HARNESS_CHILD_PROCESS_H_

#include <chrono>
#include <functional>
#include <string>

namespace gradconf::props {

/// How the child ends once its body returned.
enum class ChildExit {
  kImmediate,  ///< _exit: no atexit handlers, no static destructors
  kNormal,     ///< exit: thread_local and static destructors and atexit handlers run, as when
               ///< a host program returns from main
};

/// What the child wrote and how it ended.
struct ChildResult {
  bool exited = false;  ///< ended by exit/_exit (else a signal or the deadline)
  int exit_code = 0;
  int signal = 0;      ///< the signal that ended it, 0 if none
  bool hung = false;   ///< still running at the deadline: killed
  std::string report;  ///< what the child wrote with child_report() or to stderr (cut at 8 KiB)

  bool ok() const { return exited && exit_code == 0; }
  /// "exited 3: <report>", "killed by signal 6 (Aborted): <report>", "hung for more than 5 s".
  std::string describe() const;
};

/// Forks; the child runs `body` (its return value is the exit code) and ends as `how` says. The
/// parent waits at most `deadline`, then kills the child. Flushes stdio first, so nothing the
/// parent buffered is written twice.
ChildResult run_in_child(const std::function<int()>& body, ChildExit how,
                         std::chrono::milliseconds deadline);

/// In a child of run_in_child: appends `text` to what the parent receives (a pipe; safe from
/// atexit handlers and static destructors). Elsewhere: does nothing.
void child_report(const std::string& text);

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_HARNESS_CHILD_PROCESS_H_
