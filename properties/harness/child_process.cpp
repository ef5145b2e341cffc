#include "harness/child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace gradconf::props {
namespace {
// The write end of the report pipe in a child; -1 elsewhere. A plain int: readable from atexit
// handlers and static destructors.
int report_fd = -1;
// A report longer than this is cut (a sanitizer's report can run to many kilobytes).
constexpr size_t kReportLimit = 8192;
// Exit code of a child whose parent died before it could ask to die with it; no one reads it.
constexpr int kOrphaned = 125;

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}
}  // namespace

void child_report(const std::string& text) {
  if (report_fd >= 0) write_all(report_fd, text.data(), text.size());
}

std::string ChildResult::describe() const {
  std::string text;
  if (hung) {
    text = "the child process hung (killed at the deadline)";
  } else if (!exited) {
    text = "the child process was killed by signal " + std::to_string(signal) + " (" +
           strsignal(signal) + ")";
  } else {
    text = "the child process exited with " + std::to_string(exit_code);
  }
  if (!report.empty()) text += ": " + report;
  return text;
}

ChildResult run_in_child(const std::function<int()>& body, ChildExit how,
                         std::chrono::milliseconds deadline) {
  ChildResult result;
  int fds[2];
  if (pipe(fds) != 0) {
    result.report = std::string("pipe failed: ") + std::strerror(errno);
    result.exited = true;
    result.exit_code = -1;
    return result;
  }
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    close(fds[0]);
    close(fds[1]);
    result.report = std::string("fork failed: ") + std::strerror(errno);
    result.exited = true;
    result.exit_code = -1;
    return result;
  }
  if (child == 0) {
    // The child ends with the process that forked it (killed by a CI timeout, or a `check --jobs`
    // shard ended with its parent), instead of running on, an orphan, to its deadline or forever.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(kOrphaned);
    close(fds[0]);
    report_fd = fds[1];
    // What the C library or a sanitizer prints when the child dies ("free(): double free
    // detected", an ASan report) becomes part of the report.
    dup2(fds[1], STDERR_FILENO);
    const int code = body();
    if (how == ChildExit::kNormal) std::exit(code);
    _exit(code);
  }
  close(fds[1]);
  const auto end = std::chrono::steady_clock::now() + deadline;
  // Read the report until the child closes the pipe (it ends) or the deadline passes.
  char buffer[4096];
  bool open = true;
  while (open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      open = false;
    } else if (result.report.size() < kReportLimit) {
      result.report.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fds[0]);
  // The pipe closes a moment before the process is reaped; a grandchild that inherited it may
  // also keep it open. Either way wait until the deadline for the child itself.
  int status = 0;
  pid_t done = 0;
  while ((done = waitpid(child, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    result.hung = true;
    return result;
  }
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  return result;
}

}  // namespace gradconf::props
