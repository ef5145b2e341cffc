// The repro-line round trip of any problem descriptor, as a plain function an op family
// registers (OpFamily::check_repro) so that fuzz_problem_repro and reports can run it for every op.
#ifndef GRADCONF_PROPERTIES_REGISTRY_REPRO_CHECK_H_
#define GRADCONF_PROPERTIES_REGISTRY_REPRO_CHECK_H_

#include <string>
#include <string_view>

namespace gradconf::props {

struct ReproCheck {
  bool accepted = false;  ///< parse_repro accepted the text
  std::string op;         ///< the parsed problem's op name
  std::string error;      ///< empty when what was accepted round-trips
};

/// parse_repro(text); when accepted, to_repro() must parse back to the same problem and print the
/// same canonical line.
template <typename Problem>
ReproCheck check_repro_line(std::string_view text) {
  ReproCheck check;
  const auto parsed = Problem::parse_repro(text);
  if (!parsed) return check;
  check.accepted = true;
  check.op = std::string(parsed->op_name());
  const std::string line = parsed->to_repro();
  const auto again = Problem::parse_repro(line);
  if (!again) {
    check.error = "accepted '" + std::string(text) + "' but rejects its own line '" + line + "'";
  } else if (!(*again == *parsed)) {
    check.error = "'" + line + "' parses back differently";
  } else if (again->to_repro() != line) {
    check.error = "'" + line + "' is not canonical";
  }
  return check;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_REGISTRY_REPRO_CHECK_H_
