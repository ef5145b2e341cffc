// fuzz_problem_repro: every op's Problem::parse_repro on arbitrary text. It never crashes, and
// what it accepts round-trips: to_repro() of the parsed problem parses back to the same problem
// and prints the same canonical line.
#include <string>
#include <string_view>

#include "common/fuzz_support.h"
#include "grid_sampler2d/problem.h"

namespace {

template <typename Problem>
void round_trips(std::string_view text) {
  const auto parsed = Problem::parse_repro(text);
  gradconf::fuzz::tag(parsed ? "accepted" : "rejected");
  if (!parsed) return;
  gradconf::fuzz::tag(std::string("op=") + std::string(parsed->op_name()));
  const std::string line = parsed->to_repro();
  const auto again = Problem::parse_repro(line);
  if (!again) gradconf::fuzz::finding("accepted '" + std::string(text) + "' but rejects its own line '" + line + "'");
  if (!(*again == *parsed)) gradconf::fuzz::finding("'" + line + "' parses back differently");
  if (again->to_repro() != line) gradconf::fuzz::finding("'" + line + "' is not canonical");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  round_trips<gradconf::grid_sampler2d::Problem>(text);
  return 0;
}
