// --backend LIB and --against LIB, as every command that runs calls takes them: the library
// loaded, or the linked backend for "" or "linked".
#ifndef GRADCONF_CLI_BACKEND_OPTION_H_
#define GRADCONF_CLI_BACKEND_OPTION_H_

#include <memory>
#include <string>
#include <string_view>

#include "harness/backend.h"

namespace gradconf::cli {

/// The backend `path` names ("" or "linked": the one linked into this binary); nullptr, with a
/// message on stderr prefixed "gradconf <command>:", when the library cannot be used.
std::shared_ptr<const props::Backend> backend_option(const std::string& path,
                                                     std::string_view command);

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_BACKEND_OPTION_H_
