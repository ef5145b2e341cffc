// Google Benchmark of aclnnGridSampler2DBackward (and aclnnGridSampler2D) through the public C API
// only, exactly as the seed's call example drives it: storage from aclrtMalloc, data moved with
// aclrtMemcpy, views from aclCreateTensor, phase 2 on a stream. Nothing here dereferences a
// tensor's data pointer, so the same binary measures any backend linked behind the API.
//
// Timed: phase 2 (aclnnGridSampler2DBackward / aclnnGridSampler2D + aclrtSynchronizeStream).
// Phase 1 must run before every phase 2 (executors are single-use); it runs with the timer paused
// and is measured on its own by the */phase1 benchmarks.
//
// Inputs come from a counter-based generator (splitmix64 of seed, stream, index) that
// bench/torch_compare.py reimplements in numpy, so both sides time identical bits.
//
// Extra flags (before the benchmark flags):
//   --dump=<dtype>/<shape>/<interp>/<padding> --dump_dir=DIR
//       runs that backward case once with the default thread count and writes DIR/{gradOutput,
//       input,grid,inputGrad,gridGrad}.npy (bf16 as float32 values, as in case files); used by
//       torch_compare.py when the gradconf CLI is not available.
// --benchmark_min_time defaults to 0.05 s here (whole binary in well under a minute).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "core/dtype.h"     // host-side value conversion only (gradconf::half, gradconf::bfloat16)
#include "core/parallel.h"  // gradconf::set_num_threads

namespace {

// ---------------------------------------------------------------------------------------------
// Configurations

struct Shape {
  const char* name;
  int64_t n, c, in_h, in_w, out_h, out_w;
  int64_t points() const { return n * out_h * out_w; }
  std::vector<int64_t> input() const { return {n, c, in_h, in_w}; }
  std::vector<int64_t> grid() const { return {n, out_h, out_w, 2}; }
  std::vector<int64_t> grad_output() const { return {n, c, out_h, out_w}; }
};

constexpr Shape kShapes[] = {
    {"N4_C32_in64x64_grid64x64", 4, 32, 64, 64, 64, 64},        // base
    {"N1_C256_in64x64_grid64x64", 1, 256, 64, 64, 64, 64},      // large C
    {"N1_C4_in256x256_grid256x256", 1, 4, 256, 256, 256, 256},  // large spatial
};

struct DType {
  const char* name;
  aclDataType acl;
  int64_t bytes;
};
constexpr DType kFp32{"fp32", ACL_FLOAT, 4};
constexpr DType kBf16{"bf16", ACL_BF16, 2};
constexpr DType kFp16{"fp16", ACL_FLOAT16, 2};
constexpr DType kFp64{"fp64", ACL_DOUBLE, 8};
constexpr DType kDTypes[] = {kFp32, kBf16, kFp16, kFp64};

constexpr const char* kInterpNames[] = {"bilinear", "nearest"};  // interpolationMode 0, 1
constexpr const char* kPaddingNames[] = {"zeros", "border"};     // paddingMode 0, 1
constexpr bool kAlignCorners = false;

// ---------------------------------------------------------------------------------------------
// Input values: shared with torch_compare.py (keep both in sync).

constexpr uint64_t kSeed = 20240611;
enum Stream : uint64_t { kGradOutputStream = 1, kInputStream = 2, kGridStream = 3 };

uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// value[i] = lo + (hi - lo) * u_i in double, u_i = top 53 bits of splitmix64(key + i) / 2^53.
std::vector<double> uniform_values(int64_t count, uint64_t stream, double lo, double hi) {
  const uint64_t key = splitmix64(kSeed ^ (stream << 48));
  std::vector<double> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const double u =
        static_cast<double>(splitmix64(key + static_cast<uint64_t>(i)) >> 11) * 0x1p-53;
    v[static_cast<size_t>(i)] = lo + (hi - lo) * u;
  }
  return v;
}

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// Host bytes of `values` in `dtype`: double -> float -> half/bf16 (round to nearest even each
/// step), the same casts numpy/torch do on the Python side.
std::vector<unsigned char> encode(const std::vector<double>& values, aclDataType dtype) {
  std::vector<unsigned char> bytes;
  auto put = [&](auto cast) {
    using T = decltype(cast(0.0));
    bytes.resize(values.size() * sizeof(T));
    for (size_t i = 0; i < values.size(); ++i) {
      const T v = cast(values[i]);
      std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
    }
  };
  switch (dtype) {
    case ACL_DOUBLE:
      put([](double x) { return x; });
      break;
    case ACL_FLOAT16:
      put([](double x) { return gradconf::half(static_cast<float>(x)); });
      break;
    case ACL_BF16:
      put([](double x) { return gradconf::bfloat16(static_cast<float>(x)); });
      break;
    default:
      put([](double x) { return static_cast<float>(x); });
      break;
  }
  return bytes;
}

std::vector<double> decode(const std::vector<unsigned char>& bytes, aclDataType dtype) {
  std::vector<double> values;
  auto get = [&](auto tag) {
    using T = decltype(tag);
    values.resize(bytes.size() / sizeof(T));
    for (size_t i = 0; i < values.size(); ++i) {
      T v;
      std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
      values[i] = static_cast<double>(v);
    }
  };
  switch (dtype) {
    case ACL_DOUBLE:
      get(double{});
      break;
    case ACL_FLOAT16:
      get(gradconf::half{});
      break;
    case ACL_BF16:
      get(gradconf::bfloat16{});
      break;
    default:
      get(float{});
      break;
  }
  return values;
}

// ---------------------------------------------------------------------------------------------
// Device tensors through the public API only.

void check_acl(int ret, const char* what) {
  if (ret != 0) {
    throw std::runtime_error(std::string(what) + " failed: " + std::to_string(ret) + " " +
                             aclGetRecentErrMsg());
  }
}

class DeviceTensor {
 public:
  DeviceTensor(std::vector<int64_t> shape, aclDataType dtype,
               const std::vector<unsigned char>& host)
      : shape_(std::move(shape)), dtype_(dtype), bytes_(host.size()) {
    check_acl(aclrtMalloc(&addr_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    check_acl(aclrtMemcpy(addr_, bytes_, host.data(), bytes_, ACL_MEMCPY_HOST_TO_DEVICE),
              "aclrtMemcpy");
    std::vector<int64_t> strides(shape_.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape_.size()) - 2; i >= 0; --i) {
      strides[i] = shape_[i + 1] * strides[i + 1];
    }
    tensor_ = aclCreateTensor(shape_.data(), shape_.size(), dtype_, strides.data(), 0,
                              ACL_FORMAT_ND, shape_.data(), shape_.size(), addr_);
    if (tensor_ == nullptr) throw std::runtime_error("aclCreateTensor failed");
  }
  /// Zero-filled.
  DeviceTensor(std::vector<int64_t> shape, aclDataType dtype, int64_t element_bytes)
      : DeviceTensor(shape, dtype,
                     std::vector<unsigned char>(
                         static_cast<size_t>(element_count(shape) * element_bytes), 0)) {}
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;
  ~DeviceTensor() {
    aclDestroyTensor(tensor_);
    aclrtFree(addr_);
  }

  aclTensor* get() const { return tensor_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  size_t bytes() const { return bytes_; }
  std::vector<double> read() const {
    std::vector<unsigned char> host(bytes_);
    check_acl(aclrtMemcpy(host.data(), host.size(), addr_, bytes_, ACL_MEMCPY_DEVICE_TO_HOST),
              "aclrtMemcpy");
    return decode(host, dtype_);
  }

 private:
  std::vector<int64_t> shape_;
  aclDataType dtype_;
  size_t bytes_;
  void* addr_ = nullptr;
  aclTensor* tensor_ = nullptr;
};

class DeviceBuffer {
 public:
  explicit DeviceBuffer(uint64_t bytes) : bytes_(bytes) {
    if (bytes_ > 0)
      check_acl(aclrtMalloc(&addr_, bytes_, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (addr_ != nullptr) aclrtFree(addr_);
  }
  void* get() const { return addr_; }
  uint64_t bytes() const { return bytes_; }

 private:
  uint64_t bytes_;
  void* addr_ = nullptr;
};

aclrtStream g_stream = nullptr;

struct Case {
  Shape shape;
  DType dtype;
  int64_t interpolation;  // 0 bilinear, 1 nearest
  int64_t padding;        // 0 zeros, 1 border
  std::string name() const {
    return std::string(dtype.name) + "/" + shape.name + "/" + kInterpNames[interpolation] + "/" +
           kPaddingNames[padding];
  }
};

DeviceTensor make_input(const Case& k, std::vector<int64_t> shape, uint64_t stream, double lo,
                        double hi) {
  return DeviceTensor(shape, k.dtype.acl,
                      encode(uniform_values(element_count(shape), stream, lo, hi), k.dtype.acl));
}

/// The five tensors (and mask) of one backward call, allocated once per benchmark.
struct BackwardProblem {
  explicit BackwardProblem(const Case& k)
      : c(k),
        grad_output(make_input(k, k.shape.grad_output(), kGradOutputStream, -1.0, 1.0)),
        input(make_input(k, k.shape.input(), kInputStream, -1.0, 1.0)),
        grid(make_input(k, k.shape.grid(), kGridStream, -1.1, 1.1)),
        input_grad(k.shape.input(), k.dtype.acl, k.dtype.bytes),
        grid_grad(k.shape.grid(), k.dtype.acl, k.dtype.bytes) {
    const bool mask_values[2] = {true, true};
    mask = aclCreateBoolArray(mask_values, 2);
  }
  ~BackwardProblem() { aclDestroyBoolArray(mask); }

  aclOpExecutor* phase1(uint64_t* workspace_size) const {
    aclOpExecutor* executor = nullptr;
    const aclnnStatus ret = aclnnGridSampler2DBackwardGetWorkspaceSize(
        grad_output.get(), input.get(), grid.get(), c.interpolation, c.padding, kAlignCorners, mask,
        input_grad.get(), grid_grad.get(), workspace_size, &executor);
    check_acl(ret, "aclnnGridSampler2DBackwardGetWorkspaceSize");
    return executor;
  }
  void phase2(const DeviceBuffer& workspace, aclOpExecutor* executor) const {
    check_acl(aclnnGridSampler2DBackward(workspace.get(), workspace.bytes(), executor, g_stream),
              "aclnnGridSampler2DBackward");
    check_acl(aclrtSynchronizeStream(g_stream), "aclrtSynchronizeStream");
  }
  /// Bytes the op reads and writes: gradOutput + input + grid + inputGrad + gridGrad.
  int64_t bytes_moved() const {
    return static_cast<int64_t>(grad_output.bytes() + input.bytes() + grid.bytes() +
                                input_grad.bytes() + grid_grad.bytes());
  }

  Case c;
  DeviceTensor grad_output, input, grid, input_grad, grid_grad;
  aclBoolArray* mask = nullptr;
};

struct ForwardProblem {
  explicit ForwardProblem(const Case& k)
      : c(k),
        input(make_input(k, k.shape.input(), kInputStream, -1.0, 1.0)),
        grid(make_input(k, k.shape.grid(), kGridStream, -1.1, 1.1)),
        out(k.shape.grad_output(), k.dtype.acl, k.dtype.bytes) {}

  aclOpExecutor* phase1(uint64_t* workspace_size) const {
    aclOpExecutor* executor = nullptr;
    const aclnnStatus ret =
        aclnnGridSampler2DGetWorkspaceSize(input.get(), grid.get(), c.interpolation, c.padding,
                                           kAlignCorners, out.get(), workspace_size, &executor);
    check_acl(ret, "aclnnGridSampler2DGetWorkspaceSize");
    return executor;
  }
  void phase2(const DeviceBuffer& workspace, aclOpExecutor* executor) const {
    check_acl(aclnnGridSampler2D(workspace.get(), workspace.bytes(), executor, g_stream),
              "aclnnGridSampler2D");
    check_acl(aclrtSynchronizeStream(g_stream), "aclrtSynchronizeStream");
  }
  /// input + grid + out.
  int64_t bytes_moved() const {
    return static_cast<int64_t>(input.bytes() + grid.bytes() + out.bytes());
  }

  Case c;
  DeviceTensor input, grid, out;
};

// ---------------------------------------------------------------------------------------------
// Benchmarks

/// Sets the kernels' thread count for the benchmark's lifetime (0: the library default).
class ThreadScope {
 public:
  explicit ThreadScope(int threads) { gradconf::set_num_threads(threads); }
  ~ThreadScope() { gradconf::set_num_threads(0); }
};

template <typename Problem>
void run_phase2(benchmark::State& state, const Case& k, int threads) {
  try {
    // Before phase 1: the backward plans one workspace slice per thread.
    ThreadScope scope(threads);
    const Problem problem(k);
    uint64_t workspace_size = 0;
    aclDestroyAclOpExecutor(problem.phase1(&workspace_size));
    const DeviceBuffer workspace(workspace_size);
    for (auto _ : state) {
      state.PauseTiming();
      uint64_t size = 0;
      aclOpExecutor* executor = problem.phase1(&size);
      state.ResumeTiming();
      problem.phase2(workspace, executor);
    }
    state.SetBytesProcessed(state.iterations() * problem.bytes_moved());
    state.SetItemsProcessed(state.iterations() * k.shape.points() * k.shape.c);
    state.counters["threads"] = gradconf::num_threads();
    state.counters["workspace_bytes"] = static_cast<double>(workspace_size);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

template <typename Problem>
void run_phase1(benchmark::State& state, const Case& k) {
  try {
    const Problem problem(k);
    for (auto _ : state) {
      uint64_t size = 0;
      aclOpExecutor* executor = problem.phase1(&size);
      benchmark::DoNotOptimize(size);
      aclDestroyAclOpExecutor(executor);  // an unrun executor must be released
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

double min_of(const std::vector<double>& v) {
  double m = v.empty() ? 0.0 : v[0];
  for (double x : v) m = x < m ? x : m;
  return m;
}

void tune(benchmark::internal::Benchmark* b) {
  b->UseRealTime()->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", min_of);
}

void register_all() {
  const int thread_args[] = {1, 2, 0};  // 0: the default (GRADCONF_NUM_THREADS or the core count)
  auto threads_name = [](int t) {
    return t == 0 ? std::string("threads:default") : "threads:" + std::to_string(t);
  };
  for (const bool backward : {true, false}) {
    const std::string op = backward ? "GridSampler2DBackward/" : "GridSampler2D/";
    // fp32 and bf16: every shape, mode, padding and thread count.
    for (const DType& dtype : {kFp32, kBf16}) {
      for (const Shape& shape : kShapes) {
        for (int64_t interp = 0; interp < 2; ++interp) {
          for (int64_t pad = 0; pad < 2; ++pad) {
            for (int threads : thread_args) {
              const Case k{shape, dtype, interp, pad};
              const std::string name = op + k.name() + "/" + threads_name(threads);
              tune(benchmark::RegisterBenchmark(name.c_str(),
                                                [k, threads, backward](benchmark::State& s) {
                                                  if (backward) {
                                                    run_phase2<BackwardProblem>(s, k, threads);
                                                  } else {
                                                    run_phase2<ForwardProblem>(s, k, threads);
                                                  }
                                                }));
            }
          }
        }
      }
    }
    // fp16 and double, cheaply: bilinear/zeros at the default thread count.
    for (const DType& dtype : {kFp16, kFp64}) {
      for (const Shape& shape : kShapes) {
        const Case k{shape, dtype, 0, 0};
        const std::string name = op + k.name() + "/" + threads_name(0);
        tune(benchmark::RegisterBenchmark(name.c_str(), [k, backward](benchmark::State& s) {
          if (backward) {
            run_phase2<BackwardProblem>(s, k, 0);
          } else {
            run_phase2<ForwardProblem>(s, k, 0);
          }
        }));
      }
    }
    // Phase 1 on its own (validation + plan + executor creation; destroy included).
    for (const DType& dtype : {kFp32, kBf16}) {
      const Case k{kShapes[0], dtype, 0, 0};
      const std::string name = op + "phase1/" + k.name();
      tune(benchmark::RegisterBenchmark(name.c_str(), [k, backward](benchmark::State& s) {
        if (backward) {
          run_phase1<BackwardProblem>(s, k);
        } else {
          run_phase1<ForwardProblem>(s, k);
        }
      }));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// --dump: one backward run written as .npy (for torch_compare.py without the gradconf CLI).

void write_npy(const std::string& path, const std::vector<int64_t>& shape,
               const std::vector<double>& values, aclDataType dtype) {
  // bf16 is stored as float32 values (case-file convention); fp16 as <f2; double as <f8.
  const char* descr = dtype == ACL_DOUBLE ? "<f8" : dtype == ACL_FLOAT16 ? "<f2" : "<f4";
  std::ostringstream header;
  header << "{'descr': '" << descr << "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < shape.size(); ++i)
    header << shape[i] << (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
  header << "), }";
  std::string h = header.str();
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(h.size());
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>(len >> 8));
  out.write(h.data(), static_cast<std::streamsize>(h.size()));
  const aclDataType file_dtype = dtype == ACL_BF16 ? ACL_FLOAT : dtype;
  const std::vector<unsigned char> bytes = encode(values, file_dtype);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

int dump(const std::string& case_name, const std::string& dir) {
  for (const DType& dtype : kDTypes) {
    for (const Shape& shape : kShapes) {
      for (int64_t interp = 0; interp < 2; ++interp) {
        for (int64_t pad = 0; pad < 2; ++pad) {
          const Case k{shape, dtype, interp, pad};
          if (k.name() != case_name) continue;
          const BackwardProblem p(k);
          uint64_t size = 0;
          aclOpExecutor* executor = p.phase1(&size);
          const DeviceBuffer workspace(size);
          p.phase2(workspace, executor);
          const aclDataType t = dtype.acl;
          write_npy(dir + "/gradOutput.npy", p.grad_output.shape(), p.grad_output.read(), t);
          write_npy(dir + "/input.npy", p.input.shape(), p.input.read(), t);
          write_npy(dir + "/grid.npy", p.grid.shape(), p.grid.read(), t);
          write_npy(dir + "/inputGrad.npy", p.input_grad.shape(), p.input_grad.read(), t);
          write_npy(dir + "/gridGrad.npy", p.grid_grad.shape(), p.grid_grad.read(), t);
          std::printf("{\"case\": \"%s\", \"threads\": %d, \"dir\": \"%s\"}\n", case_name.c_str(),
                      gradconf::num_threads(), dir.c_str());
          return 0;
        }
      }
    }
  }
  std::fprintf(stderr, "unknown --dump case '%s' (want <dtype>/<shape>/<interp>/<padding>)\n",
               case_name.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  check_acl(aclInit(nullptr), "aclInit");
  check_acl(aclrtSetDevice(0), "aclrtSetDevice");
  check_acl(aclrtCreateStream(&g_stream), "aclrtCreateStream");

  std::string dump_case, dump_dir = ".";
  bool min_time_given = false;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--dump=", 0) == 0) {
      dump_case = a.substr(7);
    } else if (a.rfind("--dump_dir=", 0) == 0) {
      dump_dir = a.substr(11);
    } else {
      if (a.rfind("--benchmark_min_time", 0) == 0) min_time_given = true;
      args.push_back(argv[i]);
    }
  }
  int status = 0;
  if (!dump_case.empty()) {
    try {
      status = dump(dump_case, dump_dir);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dump failed: %s\n", e.what());
      status = 1;
    }
  } else {
    static char default_min_time[] = "--benchmark_min_time=0.05";
    if (!min_time_given) args.insert(args.begin() + 1, default_min_time);
    int n = static_cast<int>(args.size());
    args.push_back(nullptr);
    benchmark::Initialize(&n, args.data());
    if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  }
  aclrtDestroyStream(g_stream);
  aclrtResetDevice(0);
  aclFinalize();
  return status;
}
