// gradconf bench: times the registry's benchmark cases (or repro lines) through the one two-phase
// runner, on the linked backend or on a library given with --backend, so the same cases time any
// aclnn implementation. Phase 2 only is timed (a fresh, untimed phase 1 before each run: executors
// are single use), as bench/README.md describes; GB/s counts every input read once and every
// output written once, GFLOP/s the useful work a family counts (bench_flops). Each figure is also
// shown as a share of the machine's limit, measured in the same run by gradconf-machine-limits
// (bench/machine_limits.cpp): memory bandwidth, or the fp32 GEMM peak for families that count
// flops.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include <fmt/format.h>

#include "cli/backend_option.h"
#include "cli/commands.h"
#include "cli/op_registry.h"
#include "core/dtype.h"
#include "harness/backend.h"
#include "registry/registry.h"

namespace gradconf::cli {
namespace {

struct Timed {
  std::string name, repro;
  int threads = 0, runs = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0, gb_per_s = 0, gflop_per_s = 0;
  double bytes = 0, flops = 0;  ///< per call: nominal traffic, and the family's useful flops
  std::string error;
};

/// What the machine does at most with a given number of threads.
struct Limit {
  double gb_per_s = 0, gflop_per_s = 0;
};

/// The machine's limits per thread count, measured once by the probe next to this binary; empty
/// when the probe is missing (a build without bench/) or fails.
struct MachineLimits {
  nlohmann::json probe;  // the probe's own output: cpu, isa, limits
  std::map<int, Limit> by_threads;

  static MachineLimits measure(std::vector<int> thread_counts) {
    MachineLimits limits;
    std::error_code error;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    const auto probe = self.parent_path() / "gradconf-machine-limits";
    if (error || !std::filesystem::exists(probe)) return limits;
    std::string command = probe.string();
    for (int t : thread_counts) command += " " + std::to_string(t);
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return limits;
    std::string text;
    char buffer[512];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
    if (pclose(pipe) != 0) return limits;
    limits.probe = nlohmann::json::parse(text, nullptr, false);
    if (limits.probe.is_discarded() || !limits.probe.contains("limits")) return {};
    for (const auto& row : limits.probe["limits"]) {
      limits.by_threads[row["threads"].get<int>()] = {row["stream_gb_per_s"].get<double>(),
                                                      row["sgemm_gflop_per_s"].get<double>()};
    }
    return limits;
  }

  const Limit* at(int threads) const {
    const auto it = by_threads.find(threads);
    return it == by_threads.end() ? nullptr : &it->second;
  }
};

/// Threads a run uses: `threads`, or for 0 the backend's default (every core).
int effective_threads(int threads) {
  return threads > 0 ? threads
                     : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

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

/// Timed runs of a case at most, whatever --min-time asks.
constexpr int kMaxRuns = 10000;

/// Phase-2 times of `repeats` runs, then of more runs until `min_seconds` of phase 2 were timed:
/// five runs of a 0.5 ms case moved its median by 10-40% from one invocation to the next.
std::optional<std::vector<double>> timed_runs(const props::Call& call, props::RunOptions options,
                                              int repeats, double min_seconds,
                                              const props::Backend& backend, Timed& t) {
  std::vector<double> ms;
  const auto run = [&](int runs) {
    options.timed_repeats = runs;
    const props::Outcome outcome = props::run(call, options, backend);
    if (!outcome.ok() || outcome.phase2_ms.empty()) {
      t.error = fmt::format("status {} {}", outcome.status, outcome.message);
      return false;
    }
    ms.insert(ms.end(), outcome.phase2_ms.begin(), outcome.phase2_ms.end());
    return true;
  };
  if (!run(repeats)) return std::nullopt;
  double timed = 0;
  for (double m : ms) timed += m;
  const double wanted_ms = 1000 * min_seconds;
  if (timed >= wanted_ms || timed <= 0) return ms;
  const double mean = timed / static_cast<double>(ms.size());
  const auto more = static_cast<int>(std::min<double>(kMaxRuns - static_cast<double>(ms.size()),
                                                      std::ceil((wanted_ms - timed) / mean)));
  if (more > 0 && !run(more)) return std::nullopt;
  return ms;
}

// `record` is the case parsed once for all its thread counts (parsing makes its inputs and, for a
// backward, the forward's results).
Timed time_case(const std::string& name, const std::string& repro,
                const std::optional<props::CaseRecord>& record, int threads, int repeats,
                double min_seconds, const props::Backend& backend) {
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
  options.fine_split = false;
  std::optional<std::vector<double>> runs =
      timed_runs(record->call, options, repeats, min_seconds, backend, t);
  if (!runs) return t;
  std::vector<double>& ms = *runs;
  std::sort(ms.begin(), ms.end());
  t.runs = static_cast<int>(ms.size());
  t.median_ms = ms[ms.size() / 2];
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  t.bytes = nominal_bytes(record->call);
  t.gb_per_s = t.bytes / (t.median_ms * 1e6);
  const props::OpFamily* family = props::find_family(record->call.entry->family);
  if (family && family->bench_flops) {
    t.flops = family->bench_flops(record->call);
    t.gflop_per_s = t.flops / (t.median_ms * 1e6);
  }
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

/// The share of the machine's limit a timing reaches: of the fp32 GEMM peak when the family
/// counts flops, else of the memory bandwidth. Negative when not measured.
double limit_share(const Timed& t, const Limit* limit) {
  if (limit == nullptr || !t.error.empty()) return -1;
  return t.gflop_per_s > 0 ? t.gflop_per_s / limit->gflop_per_s : t.gb_per_s / limit->gb_per_s;
}

nlohmann::json timing_json(const Timed& t, const Limit* limit) {
  nlohmann::json row = {
      {"median_ms", t.median_ms},  {"min_ms", t.min_ms},     {"max_ms", t.max_ms}, {"runs", t.runs},
      {"bytes_per_call", t.bytes}, {"gb_per_s", t.gb_per_s}, {"error", t.error}};
  if (t.gflop_per_s > 0) {
    row["flops_per_call"] = t.flops;
    row["gflop_per_s"] = t.gflop_per_s;
  }
  if (const double share = limit_share(t, limit); share >= 0) {
    row[t.gflop_per_s > 0 ? "share_of_gemm_peak" : "share_of_bandwidth"] = share;
  }
  return row;
}

std::string timing_columns(const Timed& t, const Limit* limit) {
  if (!t.error.empty()) return "failed: " + t.error;
  const double share = limit_share(t, limit);
  const std::string limit_text =
      share < 0 ? "-" : fmt::format("{:.0f}% {}", 100 * share, t.gflop_per_s > 0 ? "GEMM" : "BW");
  const std::string flops = t.gflop_per_s > 0 ? fmt::format("{:.1f}", t.gflop_per_s) : "-";
  const std::string work = t.flops > 0 ? fmt::format("{:.2f} GFLOP", t.flops / 1e9)
                                       : fmt::format("{:.1f} MB", t.bytes / 1e6);
  return fmt::format("{:>10.3f} {:>10.3f} {:>10.3f} {:>6} {:>11} {:>8.2f} {:>8} {:>9}", t.median_ms,
                     t.min_ms, t.max_ms, t.runs, work, t.gb_per_s, flops, limit_text);
}

/// The lines above the table: the backend, the machine's limits, the peer, the column names.
/// Returns the width of the case column.
size_t print_header(const BenchOptions& options, const props::Backend& backend,
                    const props::Backend* against, const MachineLimits& limits,
                    const std::vector<std::pair<std::string, std::string>>& cases) {
  std::cout << fmt::format(
      "backend {}; phase 2 of at least {} runs and {} s per case, each after its own phase 1\n",
      backend.description(), options.repeats, options.min_seconds);
  if (!limits.by_threads.empty()) {
    std::cout << fmt::format("machine {} ({}); measured limits:", limits.probe.value("cpu", "?"),
                             limits.probe.value("isa", "?"));
    for (const auto& [threads, limit] : limits.by_threads) {
      std::cout << fmt::format(" {} thread(s) {:.1f} GB/s (STREAM scale), {:.1f} GFLOP/s (sgemm);",
                               threads, limit.gb_per_s, limit.gflop_per_s);
    }
    std::cout << "\n";
  } else if (options.limits) {
    std::cout
        << "machine limits not measured (gradconf-machine-limits not built next to gradconf)\n";
  }
  if (against != nullptr) {
    std::cout << fmt::format("against {}: its median on the same case, and its median / ours\n",
                             against->description());
  }
  size_t width = 4;
  for (const auto& selected : cases) width = std::max(width, selected.first.size());
  std::cout << fmt::format(
      "{:<{}} {:>7} {:>10} {:>10} {:>10} {:>6} {:>11} {:>8} {:>8} {:>9}{}\n", "case", width,
      "threads", "median ms", "min ms", "max ms", "runs", "per call", "GB/s", "GFLOP/s", "of limit",
      against != nullptr ? fmt::format(" {:>12} {:>8}", "against ms", "ratio") : "");
  return width;
}

bool write_json(const BenchOptions& options, const props::Backend& backend,
                const props::Backend* against, const MachineLimits& limits,
                nlohmann::json results) {
  std::ofstream out(options.json_out);
  nlohmann::json doc = {{"backend", backend.description()},
                        {"repeats", options.repeats},
                        {"min_seconds", options.min_seconds}};
  doc["results"] = std::move(results);
  if (against != nullptr) doc["against"] = against->description();
  if (!limits.by_threads.empty()) doc["machine"] = limits.probe;
  out << doc.dump(2) << "\n";
  if (!out) {
    std::cerr << "gradconf bench: cannot write " << options.json_out << "\n";
    return false;
  }
  return true;
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
    std::cerr << "gradconf bench: no case selected (--op takes: " << known_families() << ")\n";
    return kExitBadInput;
  }
  const std::vector<int> thread_counts =
      options.threads.empty() ? std::vector<int>{0} : options.threads;
  MachineLimits limits;
  if (options.limits) {
    std::vector<int> effective;
    for (int t : thread_counts) effective.push_back(effective_threads(t));
    limits = MachineLimits::measure(effective);
  }
  const size_t width = print_header(options, backend, against.get(), limits, cases);
  nlohmann::json results = nlohmann::json::array();
  bool all_ran = true;
  for (const auto& [name, repro] : cases) {
    const std::optional<props::CaseRecord> record = props::parse_repro_line(repro);
    for (int threads : thread_counts) {
      const Timed t =
          time_case(name, repro, record, threads, options.repeats, options.min_seconds, backend);
      const Limit* limit = limits.at(effective_threads(threads));
      const std::string shown = threads > 0 ? std::to_string(threads) : "default";
      all_ran = all_ran && t.error.empty();
      nlohmann::json row = {{"case", t.name}, {"repro", t.repro}, {"threads", threads}};
      row.update(timing_json(t, limit));
      std::string compared;
      if (against) {
        const Timed other =
            time_case(name, repro, record, threads, options.repeats, options.min_seconds, *against);
        all_ran = all_ran && other.error.empty();
        row["against"] = timing_json(other, limit);
        compared = !other.error.empty() ? "  against failed: " + other.error
                   : t.error.empty()    ? fmt::format(" {:>12.3f} {:>8.2f}", other.median_ms,
                                                      other.median_ms / t.median_ms)
                                        : "";
      }
      std::cout << fmt::format("{:<{}} {:>7} {}{}\n", t.name, width, shown,
                               timing_columns(t, limit), compared);
      results.push_back(std::move(row));
    }
  }
  if (!options.json_out.empty() &&
      !write_json(options, backend, against.get(), limits, std::move(results))) {
    return kExitRuntimeFailure;
  }
  return all_ran ? kExitOk : kExitCheckFailed;
}

}  // namespace gradconf::cli
