#include "cli/backend_option.h"

#include <iostream>

namespace gradconf::cli {

std::shared_ptr<const props::Backend> backend_option(const std::string& path,
                                                     std::string_view command) {
  if (path.empty() || path == "linked") return props::unowned(props::Backend::linked());
  std::string error;
  auto loaded = props::Backend::load(path, &error);
  if (!loaded) {
    std::cerr << "gradconf " << command << ": cannot use backend '" << path << "': " << error
              << "\n";
  }
  return loaded;
}

}  // namespace gradconf::cli
