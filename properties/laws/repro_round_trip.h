// The problem descriptor's own law: parse_repro(to_repro(p)) == p, and to_repro is canonical
// (printing the parsed problem gives the same line).
#ifndef GRADCONF_PROPERTIES_LAWS_REPRO_ROUND_TRIP_H_
#define GRADCONF_PROPERTIES_LAWS_REPRO_ROUND_TRIP_H_

#include "laws/law.h"

namespace gradconf::props {

template <typename Problem>
LawResult repro_round_trip(const Problem& p) {
  const std::string line = p.to_repro();
  const auto parsed = Problem::parse_repro(line);
  if (!parsed) return law_failure("repro_round_trip", line, "parse_repro rejected its own line");
  if (!(*parsed == p)) {
    return law_failure("repro_round_trip", line, "parsed back as '" + parsed->to_repro() + "'");
  }
  if (parsed->to_repro() != line) return law_failure("repro_round_trip", line, "not canonical");
  LawResult result;
  result.measured.add_checks(3);  // parses, parses back equal, prints canonically
  return result;
}

}  // namespace gradconf::props

#endif  // GRADCONF_PROPERTIES_LAWS_REPRO_ROUND_TRIP_H_
