#include "support/planted_backend.h"

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "registry/registry.h"

namespace gradconf::testing {

const props::Backend& planted_backend() {
  static const std::shared_ptr<const props::Backend> backend = [] {
    const char* env = std::getenv("GRADCONF_PLANTED_BACKEND");
    const std::string path = env && *env ? env : GRADCONF_PLANTED_BACKEND_PATH;
    std::string error;
    auto loaded = props::Backend::load(path, &error);
    if (!loaded || !loaded->can_select_faults()) {
      // A tree configured with GRADCONF_BUILD_PLANTED=OFF (the fuzz preset) builds it on request.
      throw std::runtime_error("cannot load the planted-fault backend " + path + ": " + error +
                               " (build it: cmake --build <tree> --target gradconf_aclnn_planted)");
    }
    return loaded;
  }();
  return *backend;
}

const props::Backend& planted_backend(std::string_view family, std::string_view fault) {
  const props::Backend& backend = planted_backend();
  if (!backend.select_fault(props::planted_fault_name(family, fault))) {
    throw std::runtime_error("the planted-fault backend refused " + std::string(fault));
  }
  return backend;
}

}  // namespace gradconf::testing
