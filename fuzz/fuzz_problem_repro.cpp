// fuzz_problem_repro: every registered op family's Problem::parse_repro on arbitrary text. It
// never crashes, and what it accepts round-trips: to_repro() of the parsed problem parses back to
// the same problem and prints the same canonical line.
#include <string>
#include <string_view>

#include "common/fuzz_support.h"
#include "registry/registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  bool accepted = false;
  for (const gradconf::props::OpFamily* family : gradconf::props::op_families()) {
    if (family->check_repro == nullptr) continue;
    const gradconf::props::ReproCheck check = family->check_repro(text);
    if (!check.accepted) continue;
    accepted = true;
    gradconf::fuzz::tag("op=" + check.op);
    if (!check.error.empty()) gradconf::fuzz::finding(check.error);
  }
  gradconf::fuzz::tag(accepted ? "accepted" : "rejected");
  return 0;
}
