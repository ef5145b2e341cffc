// --backend LIB, as every command that runs calls takes it: the library loaded, or the linked
// backend when none is given.
#ifndef GRADCONF_CLI_BACKEND_OPTION_H_
#define GRADCONF_CLI_BACKEND_OPTION_H_

#include <memory>
#include <string>
#include <string_view>

#include "harness/backend.h"

namespace gradconf::cli {

/// The backend `path` names (the linked one for ""), kept alive by `holder`; nullptr, with a
/// message on stderr prefixed "gradconf <command>:", when the library cannot be used.
const props::Backend* backend_option(const std::string& path, std::string_view command,
                                     std::shared_ptr<const props::Backend>& holder);

}  // namespace gradconf::cli

#endif  // GRADCONF_CLI_BACKEND_OPTION_H_
