// core/gemm.h against naive double sums, on shapes around every register tile and lane edge,
// with padded leading dimensions; and the fixed-order promise: a row's bits do not depend on
// which rows it is computed with or on the operands' leading dimensions.
#include "core/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/isa.h"

namespace gradconf {
namespace {

enum class Form { kABt, kAB, kAtB };

template <typename Acc>
struct Case {
  Form form;
  int64_t m, n, k, lda, ldb, ldc;
  bool accumulate;
  std::vector<Acc> a, b, c;

  // A(i, p) and B(p, j) as each form lays them out.
  Acc a_at(int64_t i, int64_t p) const {
    return form == Form::kAtB ? a[static_cast<size_t>(p * lda + i)]
                              : a[static_cast<size_t>(i * lda + p)];
  }
  Acc b_at(int64_t p, int64_t j) const {
    return form == Form::kABt ? b[static_cast<size_t>(j * ldb + p)]
                              : b[static_cast<size_t>(p * ldb + j)];
  }
  std::vector<Acc> run(std::vector<Acc> out, int64_t rows_from, int64_t rows) const {
    const Acc* a_rows = a.data() + (form == Form::kAtB ? rows_from : rows_from * lda);
    Acc* c_rows = out.data() + rows_from * ldc;
    switch (form) {
      case Form::kABt:
        gemm_abt<Acc>(rows, n, k, a_rows, lda, b.data(), ldb, c_rows, ldc, accumulate);
        break;
      case Form::kAB:
        gemm_ab<Acc>(rows, n, k, a_rows, lda, b.data(), ldb, c_rows, ldc, accumulate);
        break;
      case Form::kAtB:
        gemm_atb<Acc>(rows, n, k, a_rows, lda, b.data(), ldb, c_rows, ldc, accumulate);
        break;
    }
    return out;
  }
};

template <typename Acc>
Case<Acc> make_case(std::mt19937_64& rng, Form form) {
  std::uniform_int_distribution<int64_t> rows(1, 11), cols(1, 21), depth(0, 37), pad(0, 3);
  // One case in four runs A B and A^T B over C in several passes (kAbTermsPerPass is 128).
  std::uniform_int_distribution<int64_t> long_depth(120, 300);
  std::uniform_real_distribution<double> value(-1, 1);
  const int64_t k = rng() % 4 == 0 ? long_depth(rng) : depth(rng);
  Case<Acc> c{form, rows(rng), cols(rng), k, 0, 0, 0, rng() % 2 == 0, {}, {}, {}};
  const int64_t a_rows = form == Form::kAtB ? c.k : c.m, a_cols = form == Form::kAtB ? c.m : c.k;
  const int64_t b_rows = form == Form::kABt ? c.n : c.k, b_cols = form == Form::kABt ? c.k : c.n;
  c.lda = a_cols + pad(rng);
  c.ldb = b_cols + pad(rng);
  c.ldc = c.n + pad(rng);
  auto fill = [&](std::vector<Acc>& v, int64_t size) {
    v.resize(static_cast<size_t>(size));
    for (Acc& x : v) x = static_cast<Acc>(value(rng));
  };
  fill(c.a, a_rows * c.lda);
  fill(c.b, b_rows * c.ldb);
  fill(c.c, c.m * c.ldc);
  return c;
}

template <typename Acc>
void check_against_double(const Case<Acc>& c, const std::vector<Acc>& got) {
  const double eps = std::numeric_limits<Acc>::epsilon();
  for (int64_t i = 0; i < c.m; ++i) {
    for (int64_t j = 0; j < c.n; ++j) {
      const double start = c.accumulate ? c.c[static_cast<size_t>(i * c.ldc + j)] : 0.0;
      double exact = start, magnitude = std::fabs(start);
      for (int64_t p = 0; p < c.k; ++p) {
        const double term = static_cast<double>(c.a_at(i, p)) * c.b_at(p, j);
        exact += term;
        magnitude += std::fabs(term);
      }
      // k + 2 roundings of partial sums no larger than the magnitude, first order, on each side
      // (the double reference rounds as often as a double kernel).
      const double bound = 2 * (static_cast<double>(c.k) + 2) * eps * magnitude;
      EXPECT_LE(std::fabs(got[static_cast<size_t>(i * c.ldc + j)] - exact), bound)
          << "form " << static_cast<int>(c.form) << " m " << c.m << " n " << c.n << " k " << c.k
          << " at (" << i << ", " << j << ")";
    }
  }
  for (int64_t i = 0; i < c.m; ++i) {  // the padding of C is never written
    for (int64_t j = c.n; j < c.ldc; ++j) {
      EXPECT_EQ(got[static_cast<size_t>(i * c.ldc + j)], c.c[static_cast<size_t>(i * c.ldc + j)]);
    }
  }
}

template <typename Acc>
void check_forms() {
  std::mt19937_64 rng(20261125);
  for (Form form : {Form::kABt, Form::kAB, Form::kAtB}) {
    for (int trial = 0; trial < 200; ++trial) {
      const Case<Acc> c = make_case<Acc>(rng, form);
      const std::vector<Acc> whole = c.run(c.c, 0, c.m);
      check_against_double(c, whole);
      // Row by row gives the same bits as all rows at once (the register tiles change nothing).
      std::vector<Acc> by_rows = c.c;
      for (int64_t i = 0; i < c.m; ++i) by_rows = c.run(by_rows, i, 1);
      ASSERT_EQ(by_rows, whole) << "form " << static_cast<int>(form) << " trial " << trial;
    }
  }
}

// The row-list forms read the same rows through pointers, here scattered in reverse order over a
// second buffer: the same bits as the strided forms.
template <typename Acc>
void check_row_lists() {
  std::mt19937_64 rng(20261129);
  for (Form form : {Form::kABt, Form::kAtB}) {
    for (int trial = 0; trial < 200; ++trial) {
      const Case<Acc> c = make_case<Acc>(rng, form);
      const int64_t a_rows = form == Form::kAtB ? c.k : c.m, a_cols = c.lda;
      const int64_t b_rows = form == Form::kAtB ? c.k : 0;
      std::vector<Acc> moved(c.a.size() + c.b.size() + static_cast<size_t>(a_rows + b_rows));
      std::vector<const Acc*> a_list, b_list;
      size_t at = moved.size();
      auto move_row = [&](const Acc* row, int64_t cols) {
        at -= static_cast<size_t>(cols) + 1;  // reverse order, a gap between rows
        std::copy(row, row + cols, moved.begin() + static_cast<std::ptrdiff_t>(at));
        return moved.data() + at;
      };
      for (int64_t r = 0; r < a_rows; ++r) a_list.push_back(move_row(&c.a[r * c.lda], a_cols));
      for (int64_t r = 0; r < b_rows; ++r) b_list.push_back(move_row(&c.b[r * c.ldb], c.ldb));
      std::vector<Acc> listed = c.c;
      if (form == Form::kABt) {
        gemm_abt_rows<Acc>(c.m, c.n, c.k, a_list.data(), c.b.data(), c.ldb, listed.data(), c.ldc,
                           c.accumulate);
      } else {
        gemm_atb_rows<Acc>(c.m, c.n, c.k, a_list.data(), b_list.data(), listed.data(), c.ldc,
                           c.accumulate);
      }
      ASSERT_EQ(listed, c.run(c.c, 0, c.m))
          << "form " << static_cast<int>(form) << " trial " << trial;
    }
  }
}

TEST(Gemm, float_matches_double_sums_and_rows_keep_their_bits) { check_forms<float>(); }
TEST(Gemm, double_matches_double_sums_and_rows_keep_their_bits) { check_forms<double>(); }
TEST(Gemm, row_lists_give_the_strided_forms_bits) {
  check_row_lists<float>();
  check_row_lists<double>();
}

// FNV-1a over the bytes of every product of the cases above (row lists included), in order.
template <typename Acc>
void digest_products(uint64_t& hash) {
  std::mt19937_64 rng(20261130);
  auto add = [&](const std::vector<Acc>& values) {
    for (const Acc& v : values) {
      unsigned char bytes[sizeof(Acc)];
      std::memcpy(bytes, &v, sizeof(Acc));
      for (unsigned char b : bytes) hash = (hash ^ b) * 1099511628211u;
    }
  };
  for (Form form : {Form::kABt, Form::kAB, Form::kAtB}) {
    for (int trial = 0; trial < 300; ++trial) {
      const Case<Acc> c = make_case<Acc>(rng, form);
      add(c.run(c.c, 0, c.m));
    }
  }
}

std::string products_digest() {
  uint64_t hash = 14695981039346656037u;
  digest_products<float>(hash);
  digest_products<double>(hash);
  return std::to_string(hash);
}

// The AVX-512 path promises the AVX2 path's bits (core/gemm.cpp): the test reruns itself with
// GRADCONF_ISA=avx2 (read once per process) and compares the digests of the same products.
TEST(Gemm, avx512_path_gives_the_avx2_paths_bits) {
  if (std::getenv("GRADCONF_GEMM_DIGEST_CHILD")) {
    std::printf("digest=%s\n", products_digest().c_str());
    return;
  }
  if (kernel_isa() != Isa::kAvx512) GTEST_SKIP() << "this CPU has no AVX-512 path";
  char self[4096] = {};  // this test binary (in the shell /proc/self/exe would be the shell)
  ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
  // The child runs the one test whatever shard this process is (a sharded run exports
  // GTEST_TOTAL_SHARDS and GTEST_SHARD_INDEX, which would hand it to shard 0 only).
  const std::string command =
      "env -u GTEST_TOTAL_SHARDS -u GTEST_SHARD_INDEX GRADCONF_ISA=avx2 "
      "GRADCONF_GEMM_DIGEST_CHILD=1 '" +
      std::string(self) + "' --gtest_filter=Gemm.avx512_path_gives_the_avx2_paths_bits";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string child_digest;
  char line[256];
  while (std::fgets(line, sizeof line, pipe)) {
    if (std::strncmp(line, "digest=", 7) == 0)
      child_digest = std::string(line + 7, std::strcspn(line + 7, "\n"));
  }
  ASSERT_EQ(pclose(pipe), 0);
  ASSERT_FALSE(child_digest.empty());
  EXPECT_EQ(products_digest(), child_digest);
}

}  // namespace
}  // namespace gradconf
