#include "property_support.h"

#include <cstdlib>
#include <string>

namespace gradconf::props::testing {

int property_scale() {
  const char* text = std::getenv("GRADCONF_PROPERTY_SCALE");
  if (text == nullptr) return 1;
  const int scale = std::atoi(text);
  return scale > 0 ? scale : 1;
}

void configure_rapidcheck_from_scale() {
  const char* existing = std::getenv("RC_PARAMS");
  std::string params = existing ? existing : "";
  if (params.find("max_success") != std::string::npos) return;
  if (!params.empty()) params += ' ';
  params += "max_success=" + std::to_string(kDefaultCases * property_scale());
  setenv("RC_PARAMS", params.c_str(), 1);
}

}  // namespace gradconf::props::testing
