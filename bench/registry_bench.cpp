// Google Benchmark registrations generated from the op registry's benchmark cases (bench_cases in
// properties/families/<op>/family.cpp), one per case and thread count, timed through the one
// two-phase runner on whatever backend -DGRADCONF_BACKEND linked: phase 2 only, each iteration
// after its own untimed phase 1 (manual time), as `gradconf bench` does.
#include <benchmark/benchmark.h>

#include <string>

#include "harness/backend.h"
#include "op/registry.h"

namespace {

using gradconf::props::Backend;

// The call is made when the benchmark first runs (a case's inputs, and for a backward the
// forward's results, are computed then), so a --benchmark_filter run pays for its cases only.
void time_case(benchmark::State& state, std::string_view repro, int threads) {
  const auto record = gradconf::props::parse_repro_line(repro);
  if (!record) {
    state.SkipWithError("not a repro line of any registered op");
    return;
  }
  const gradconf::props::Call& call = record->call;
  gradconf::props::RunOptions options;
  options.threads = threads;
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
      for (int threads : {1, 2}) {
        const std::string name = std::string(family->family) + "/" + std::string(c.name) +
                                 "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(),
                                     [repro = c.repro, threads](benchmark::State& state) {
                                       time_case(state, repro, threads);
                                     })
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
