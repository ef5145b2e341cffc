// Google Benchmark registrations generated from the op registry's benchmark cases (bench_cases in
// properties/families/<op>/family.cpp), one per case and thread count, timed through the one
// two-phase runner on whatever backend -DGRADCONF_BACKEND linked: phase 2 only, each iteration
// after its own untimed phase 1 (manual time), as `gradconf bench` does.
#include <benchmark/benchmark.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "harness/backend.h"
#include "registry/registry.h"

namespace {

using gradconf::props::Backend;

// A case's call, made when one of its benchmarks first runs (its inputs, and for a backward the
// forward's results, are computed then, so a --benchmark_filter run pays for its cases only) and
// kept for the benchmark's further runs and for its other thread count.
class LazyCase {
 public:
  explicit LazyCase(std::string_view repro) : repro_(repro) {}
  const std::optional<gradconf::props::CaseRecord>& record() {
    if (!parsed_) {
      record_ = gradconf::props::parse_repro_line(repro_);
      parsed_ = true;
    }
    return record_;
  }

 private:
  std::string_view repro_;
  bool parsed_ = false;
  std::optional<gradconf::props::CaseRecord> record_;
};

void time_case(benchmark::State& state, LazyCase& lazy, int threads) {
  const auto& record = lazy.record();
  if (!record) {
    state.SkipWithError("not a repro line of any registered op");
    return;
  }
  const gradconf::props::Call& call = record->call;
  gradconf::props::RunOptions options;
  options.threads = threads;
  options.fine_split = false;
  options.timed_repeats = 1;
  for (auto _ : state) {
    const gradconf::props::Outcome outcome = gradconf::props::run(call, options, Backend::linked());
    if (!outcome.ok() || outcome.phase2_ms.empty()) {
      state.SkipWithError(outcome.message.c_str());
      break;
    }
    state.SetIterationTime(outcome.phase2_ms.front() / 1e3);
  }
}

void register_registry_cases() {
  for (const gradconf::props::OpFamily* family : gradconf::props::op_families()) {
    for (const gradconf::props::BenchCase& c : family->bench_cases) {
      auto lazy = std::make_shared<LazyCase>(c.repro);
      for (int threads : {1, 2}) {
        const std::string name = std::string(family->family) + "/" + std::string(c.name) +
                                 "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(
            name.c_str(),
            [lazy, threads](benchmark::State& state) { time_case(state, *lazy, threads); })
            ->UseManualTime()
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  register_registry_cases();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
