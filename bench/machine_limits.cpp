// gradconf-machine-limits: what this machine can do at most, the denominators of `gradconf bench`'s
// "% of limit" columns. Prints one JSON object:
//   {"cpu": ..., "isa": ..., "limits": [{"threads": T, "stream_gb_per_s": ..., "sgemm_gflop_per_s":
//   ...}, ...]}
// - Memory bandwidth: STREAM's scale kernel (a[i] = s * b[i]) over two 256 MiB arrays, each thread
//   on its own slice, best of 10 passes. The stores are non-temporal, so the bytes STREAM counts
//   (one read and one write per element) are the bytes that move: without them every written line
//   is read first, and a kernel that streams its outputs would show more than 100%.
// - fp32 GEMM peak: Eigen's single-threaded sgemm (1024 x 1024 x 1024) on every thread at once,
// each
//   on its own matrices, best of 5. This binary alone is built for the build machine's CPU
//   (-march=native): the peak is what the hardware can do, not what the portable backend build
//   reaches. Eigen is the well-kept library the project already depends on.
#include <immintrin.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// Runs body(thread) on `threads` threads at once and returns the wall seconds of the slowest.
template <typename Body>
double seconds_on_threads(int threads, Body body) {
  std::vector<std::thread> pool;
  const auto start = Clock::now();
  for (int t = 0; t < threads; ++t) pool.emplace_back(body, t);
  for (std::thread& thread : pool) thread.join();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double stream_scale_gb_per_s(int threads) {
  constexpr size_t kElements = size_t{256} << 20 >> 3;  // 256 MiB of doubles per array
  std::vector<double> a(kElements), b(kElements, 1.0);
  const size_t slice = kElements / static_cast<size_t>(threads);
  auto pass = [&](int t) {
    double* out = a.data() + slice * static_cast<size_t>(t);
    const double* in = b.data() + slice * static_cast<size_t>(t);
    size_t i = 0;
    for (; i < slice && reinterpret_cast<uintptr_t>(out + i) % 16 != 0; ++i) out[i] = 3.0 * in[i];
    for (; i + 2 <= slice; i += 2) {
      _mm_stream_pd(out + i, _mm_mul_pd(_mm_set1_pd(3.0), _mm_loadu_pd(in + i)));
    }
    for (; i < slice; ++i) out[i] = 3.0 * in[i];
    _mm_sfence();
  };
  seconds_on_threads(threads, pass);  // first touch of every page, on its own thread
  double best = 1e30;
  for (int repeat = 0; repeat < 10; ++repeat)
    best = std::min(best, seconds_on_threads(threads, pass));
  if (a[kElements / 2] != 3.0) std::abort();  // keeps the passes observable
  return 2.0 * sizeof(double) * static_cast<double>(slice * static_cast<size_t>(threads)) / best /
         1e9;
}

double sgemm_gflop_per_s(int threads) {
  constexpr int kSize = 1024;
  std::vector<Eigen::MatrixXf> a, b, c;
  for (int t = 0; t < threads; ++t) {
    a.push_back(Eigen::MatrixXf::Random(kSize, kSize));
    b.push_back(Eigen::MatrixXf::Random(kSize, kSize));
    c.push_back(Eigen::MatrixXf::Zero(kSize, kSize));
  }
  auto product = [&](int t) { c[static_cast<size_t>(t)].noalias() = a[t] * b[t]; };
  seconds_on_threads(threads, product);
  double best = 1e30;
  for (int repeat = 0; repeat < 5; ++repeat)
    best = std::min(best, seconds_on_threads(threads, product));
  return 2.0 * kSize * kSize * double{kSize} * threads / best / 1e9;
}

std::string cpu_model() {
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

}  // namespace

int main(int argc, char** argv) {
  Eigen::setNbThreads(1);
  std::vector<int> thread_counts;
  for (int i = 1; i < argc; ++i) thread_counts.push_back(std::max(1, std::atoi(argv[i])));
  if (thread_counts.empty())
    thread_counts = {1, static_cast<int>(std::thread::hardware_concurrency())};
  std::printf("{\"cpu\": \"%s\", \"isa\": \"%s\", \"limits\": [", cpu_model().c_str(),
              Eigen::SimdInstructionSetsInUse());
  for (size_t i = 0; i < thread_counts.size(); ++i) {
    const int threads = thread_counts[i];
    std::printf("%s{\"threads\": %d, \"stream_gb_per_s\": %.2f, \"sgemm_gflop_per_s\": %.2f}",
                i ? ", " : "", threads, stream_scale_gb_per_s(threads), sgemm_gflop_per_s(threads));
  }
  std::printf("]}\n");
  return 0;
}
