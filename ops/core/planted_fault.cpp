#include "core/planted_fault.h"

#include <cstdlib>
#include <mutex>

namespace gradconf {
namespace {
struct Selection {
  std::mutex mutex;
  std::string name;
  Selection() {
    if (const char* env = std::getenv("GRADCONF_PLANTED_FAULT")) name = env;
  }
};
// Never destroyed: a call from a static destructor still finds it.
Selection& selection() {
  static auto* instance = new Selection();
  return *instance;
}
}  // namespace

std::string selected_planted_fault() {
  std::lock_guard lock(selection().mutex);
  return selection().name;
}

void select_planted_fault(std::string_view name) {
  std::lock_guard lock(selection().mutex);
  selection().name = std::string(name);
}

}  // namespace gradconf
