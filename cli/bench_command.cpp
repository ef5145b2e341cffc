// gradconf bench: times the registry's benchmark cases (or repro lines) through the one two-phase
// runner, on the linked backend or on a library given with --backend, so the same cases time any
// aclnn implementation. Phase 2 only is timed (a fresh, untimed phase 1 before each run: executors
// are single use), as bench/README.md describes; GB/s counts every input read once and every
// output written once.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "cli/backend_option.h"
#include "cli/commands.h"
#include "core/dtype.h"
#include "harness/backend.h"
#include "registry/registry.h"

namespace gradconf::cli {
namespace {

struct Timed {
  std::string name, repro;
  int threads = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0, gb_per_s = 0;
  std::string error;
};

/// Bytes the call must move at least: every input view read once, every output view written once.
double nominal_bytes(const props::Call& call) {
  double bytes = 0;
  for (const props::TensorSpec& t : call.tensors) {
    if (t.null) continue;
    double elements = 1;
    for (int64_t d : t.dims) elements *= static_cast<double>(d);
    bytes += elements * static_cast<double>(element_size(t.dtype));
  }
  return bytes;
}

// `record` is the case parsed once for all its thread counts (parsing makes its inputs and, for a
// backward, the forward's results).
Timed time_case(const std::string& name, const std::string& repro,
                const std::optional<props::CaseRecord>& record, int threads, int repeats,
                const props::Backend& backend) {
  Timed t;
  t.name = name;
  t.repro = repro;
  t.threads = threads;
  if (!record) {
    t.error = "not a repro line of any registered op";
    return t;
  }
  props::RunOptions options;
  options.threads = threads;
  options.timed_repeats = repeats;
  const props::Outcome outcome = props::run(record->call, options, backend);
  if (!outcome.ok() || outcome.phase2_ms.empty()) {
    t.error = fmt::format("status {} {}", outcome.status, outcome.message);
    return t;
  }
  std::vector<double> ms = outcome.phase2_ms;
  std::sort(ms.begin(), ms.end());
  t.median_ms = ms[ms.size() / 2];
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.gb_per_s = nominal_bytes(record->call) / (t.median_ms * 1e6);
  return t;
}

std::vector<std::pair<std::string, std::string>> selected_cases(const BenchOptions& options) {
  std::vector<std::pair<std::string, std::string>> cases;
  for (size_t i = 0; i < options.repro_lines.size(); ++i) {
    cases.emplace_back(fmt::format("repro{}", i), options.repro_lines[i]);
  }
  if (!cases.empty()) return cases;
  for (const props::OpFamily* family : props::op_families()) {
    const bool wanted = options.ops.empty() || std::find(options.ops.begin(), options.ops.end(),
                                                         family->family) != options.ops.end();
    if (!wanted) continue;
    for (const props::BenchCase& c : family->bench_cases) {
      cases.emplace_back(fmt::format("{}/{}", family->family, c.name), std::string(c.repro));
    }
  }
  return cases;
}

}  // namespace

namespace {

nlohmann::json timing_json(const Timed& t) {
  return {{"median_ms", t.median_ms},
          {"min_ms", t.min_ms},
          {"max_ms", t.max_ms},
          {"gb_per_s", t.gb_per_s},
          {"error", t.error}};
}

std::string timing_columns(const Timed& t) {
  if (!t.error.empty()) return "failed: " + t.error;
  return fmt::format("{:>10.3f} {:>10.3f} {:>10.3f} {:>8.2f}", t.median_ms, t.min_ms, t.max_ms,
                     t.gb_per_s);
}

}  // namespace

int run_bench(const BenchOptions& options) {
  const auto chosen = backend_option(options.backend, "bench");
  if (!chosen) return kExitBadInput;
  std::shared_ptr<const props::Backend> against;
  if (!options.against.empty()) {
    against = backend_option(options.against, "bench");
    if (!against) return kExitBadInput;
  }
  const props::Backend& backend = *chosen;
  const auto cases = selected_cases(options);
  if (cases.empty()) {
    std::cerr << "gradconf bench: no case selected\n";
    return kExitBadInput;
  }
  const std::vector<int> thread_counts =
      options.threads.empty() ? std::vector<int>{0} : options.threads;
  std::cout << fmt::format("backend {}; phase 2 of {} runs per case, each after its own phase 1\n",
                           backend.description(), options.repeats);
  if (against) {
    std::cout << fmt::format("against {}: its median on the same case, and its median / ours\n",
                             against->description());
  }
  size_t width = 4;
  for (const auto& selected : cases) width = std::max(width, selected.first.size());
  std::cout << fmt::format("{:<{}} {:>7} {:>10} {:>10} {:>10} {:>8}{}\n", "case", width, "threads",
                           "median ms", "min ms", "max ms", "GB/s",
                           against ? fmt::format(" {:>12} {:>8}", "against ms", "ratio") : "");
  nlohmann::json results = nlohmann::json::array();
  bool all_ran = true;
  for (const auto& [name, repro] : cases) {
    const std::optional<props::CaseRecord> record = props::parse_repro_line(repro);
    for (int threads : thread_counts) {
      const Timed t = time_case(name, repro, record, threads, options.repeats, backend);
      const std::string shown = threads > 0 ? std::to_string(threads) : "default";
      all_ran = all_ran && t.error.empty();
      nlohmann::json row = {{"case", t.name}, {"repro", t.repro}, {"threads", threads}};
      row.update(timing_json(t));
      std::string compared;
      if (against) {
        const Timed other = time_case(name, repro, record, threads, options.repeats, *against);
        all_ran = all_ran && other.error.empty();
        row["against"] = timing_json(other);
        compared = !other.error.empty() ? "  against failed: " + other.error
                   : t.error.empty()    ? fmt::format(" {:>12.3f} {:>8.2f}", other.median_ms,
                                                      other.median_ms / t.median_ms)
                                        : "";
      }
      std::cout << fmt::format("{:<{}} {:>7} {}{}\n", t.name, width, shown, timing_columns(t),
                               compared);
      results.push_back(std::move(row));
    }
  }
  if (!options.json_out.empty()) {
    std::ofstream out(options.json_out);
    nlohmann::json doc = {
        {"backend", backend.description()}, {"repeats", options.repeats}, {"results", results}};
    if (against) doc["against"] = against->description();
    out << doc.dump(2) << "\n";
    if (!out) {
      std::cerr << "gradconf bench: cannot write " << options.json_out << "\n";
      return kExitRuntimeFailure;
    }
  }
  return all_ran ? kExitOk : kExitCheckFailed;
}

}  // namespace gradconf::cli
