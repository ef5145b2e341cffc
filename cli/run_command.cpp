// gradconf run --repro LINE: one case from its repro line (what a law's failure prints), run on
// the backend and held against the double reference, with the worst elements and their indices.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>

#include "cli/backend_option.h"
#include "cli/commands.h"
#include "compare/compare.h"
#include "harness/backend.h"
#include "registry/registry.h"

namespace gradconf::cli {
namespace {

std::string index_text(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = dims[d] > 0 ? flat % dims[d] : 0;
    flat = dims[d] > 0 ? flat / dims[d] : 0;
  }
  std::string text = "[";
  for (size_t d = 0; d < index.size(); ++d) text += (d ? "," : "") + std::to_string(index[d]);
  return text + "]";
}

}  // namespace

int run_repro(const ReproOptions& options) {
  const std::optional<props::CaseRecord> record = props::parse_repro_line(options.line);
  if (!record) {
    std::cerr << "gradconf run: not a problem repro line of any registered op: '" << options.line
              << "'\n";
    return kExitBadInput;
  }
  std::cout << "case:   " << record->repro << "\ncall:   " << props::summarize(record->call)
            << "\n";
  const auto backend = backend_option(options.backend, "run");
  if (!backend) return kExitBadInput;
  std::cout << "backend: " << backend->description() << "\n";
  const props::Outcome outcome = props::run(record->call, {}, *backend);
  std::cout << "status: " << outcome.status
            << (outcome.message.empty() ? "" : " (" + outcome.message + ")") << "\n";
  if (!outcome.violations.empty()) std::cout << "violations: " << outcome.violations << "\n";
  if (!outcome.ok()) return kExitCheckFailed;
  bool all_pass = outcome.violations.empty();
  std::cout << std::setprecision(9);
  for (const props::ExpectedOutput& e : record->expected) {
    const auto& got = outcome.values[static_cast<size_t>(e.tensor)];
    const props::Comparison c =
        e.compare_with(got, props::tolerance_for(record->op, e.name, record->dtype), record->dtype);
    all_pass = all_pass && c.status != props::CompareStatus::kFailed;
    std::cout << e.name << ": " << c.summary() << "\n";
    std::vector<int64_t> order(std::min(got.size(), e.values.size()));
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
    auto error = [&](int64_t i) {
      const double d = std::fabs(got[static_cast<size_t>(i)] - e.values[static_cast<size_t>(i)]);
      return std::isnan(d) ? INFINITY : d;
    };
    const size_t shown = std::min<size_t>(order.size(), static_cast<size_t>(options.worst));
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown),
                      order.end(), [&](int64_t a, int64_t b) { return error(a) > error(b); });
    for (size_t k = 0; k < shown; ++k) {
      const auto i = static_cast<size_t>(order[k]);
      std::cout << "  " << index_text(order[k], e.dims) << " got " << got[i] << " expected "
                << e.values[i] << " |error| " << error(order[k]) << "\n";
    }
  }
  return all_pass ? kExitOk : kExitCheckFailed;
}

}  // namespace gradconf::cli
