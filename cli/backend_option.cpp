#include "cli/backend_option.h"

#include <iostream>

namespace gradconf::cli {

const props::Backend* backend_option(const std::string& path, std::string_view command,
                                     std::shared_ptr<const props::Backend>& holder) {
  if (path.empty()) return &props::Backend::linked();
  std::string error;
  holder = props::Backend::load(path, &error);
  if (!holder) {
    std::cerr << "gradconf " << command << ": cannot use backend '" << path << "': " << error
              << "\n";
    return nullptr;
  }
  return holder.get();
}

}  // namespace gradconf::cli
