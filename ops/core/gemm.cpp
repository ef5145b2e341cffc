#include "core/gemm.h"

#include <cstring>

#include "core/isa.h"
#include "core/lanes.h"

// This file is compiled with -ffp-contract=fast (ops/CMakeLists.txt): the AVX2 path's products
// are fused multiply-adds, the baseline path has none to fuse. The operands here are scores and
// weights, not coordinates, so a single rounding is only more accurate.

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

namespace gradconf {
namespace {

template <typename Acc>
using Vec = LaneVector<Acc>;

template <typename Acc>
GRADCONF_ALWAYS_INLINE Vec<Acc> load(const Acc* p) {
  Vec<Acc> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename Acc>
GRADCONF_ALWAYS_INLINE void store(Acc* p, const Vec<Acc>& v) {
  std::memcpy(p, &v, sizeof v);
}

/// The first `count` elements of p, zeros after them (a zero lane adds nothing to a sum).
template <typename Acc>
GRADCONF_ALWAYS_INLINE Vec<Acc> load_head(const Acc* p, int64_t count) {
  Vec<Acc> v = {};
  for (int64_t i = 0; i < count; ++i) v[i] = p[i];
  return v;
}

// Register tiles: MR rows of C by NR columns (A B^T) or NV lane vectors of columns (A B, A^T B),
// sized so accumulators and operands fit the 16 vector registers (a lane vector of doubles takes
// two).
template <typename Acc>
struct Tile {
  static constexpr int kRows = sizeof(Acc) == 4 ? 4 : 2;
  static constexpr int kDotColumns = sizeof(Acc) == 4 ? 3 : 2;
  static constexpr int kVectors = sizeof(Acc) == 4 ? 3 : 2;
};

/// C[i][j] for MR rows of A and NR rows of B: element p of k in lane p % kLanes (the tail as a
/// zero-padded vector), the lanes combined in combine_lanes' tree.
template <typename Acc, int MR, int NR>
GRADCONF_ALWAYS_INLINE void abt_tile(int64_t k, const Acc* a, int64_t lda, const Acc* b,
                                     int64_t ldb, Acc* c, int64_t ldc, bool accumulate) {
  Vec<Acc> acc[MR][NR] = {};
  int64_t p = 0;
  for (; p + kLanes <= k; p += kLanes) {
    // B's NR vectors held, A's one at a time: MR * NR + NR + 1 registers.
    Vec<Acc> bv[NR];
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) bv[j] = load(b + j * ldb + p);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const Vec<Acc> av = load(a + i * lda + p);
#pragma GCC unroll 8
      for (int j = 0; j < NR; ++j) acc[i][j] += av * bv[j];
    }
  }
  if (p < k) {
    Vec<Acc> av[MR], bv[NR];
    for (int i = 0; i < MR; ++i) av[i] = load_head(a + i * lda + p, k - p);
    for (int j = 0; j < NR; ++j) bv[j] = load_head(b + j * ldb + p, k - p);
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < NR; ++j) acc[i][j] += av[i] * bv[j];
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int j = 0; j < NR; ++j) {
      const Acc sum = combine_lane_vector<Acc>(acc[i][j]);
      Acc& out = c[i * ldc + j];
      out = accumulate ? out + sum : sum;
    }
  }
}

template <typename Acc, int MR>
GRADCONF_ALWAYS_INLINE void abt_rows(int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b,
                                     int64_t ldb, Acc* c, int64_t ldc, bool accumulate) {
  constexpr int NR = Tile<Acc>::kDotColumns;
  int64_t j = 0;
  for (; j + NR <= n; j += NR)
    abt_tile<Acc, MR, NR>(k, a, lda, b + j * ldb, ldb, c + j, ldc, accumulate);
  for (; j < n; ++j) abt_tile<Acc, MR, 1>(k, a, lda, b + j * ldb, ldb, c + j, ldc, accumulate);
}

template <typename Acc>
GRADCONF_ALWAYS_INLINE void abt_body(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda,
                                     const Acc* b, int64_t ldb, Acc* c, int64_t ldc,
                                     bool accumulate) {
  constexpr int MR = Tile<Acc>::kRows;
  int64_t i = 0;
  for (; i + MR <= m; i += MR)
    abt_rows<Acc, MR>(n, k, a + i * lda, lda, b, ldb, c + i * ldc, ldc, accumulate);
  for (; i < m; ++i) abt_rows<Acc, 1>(n, k, a + i * lda, lda, b, ldb, c + i * ldc, ldc, accumulate);
}

/// C[i][j] (+)= sum_p A(i, p) B[p][j] for MR rows and NV lane vectors of columns, A(i, p) at
/// a[i * a_row + p * a_step]: each element adds its terms in order of p.
template <typename Acc, int MR, int NV>
GRADCONF_ALWAYS_INLINE void ab_tile(int64_t k, const Acc* a, int64_t a_row, int64_t a_step,
                                    const Acc* b, int64_t ldb, Acc* c, int64_t ldc,
                                    bool accumulate) {
  Vec<Acc> acc[MR][NV];
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v < NV; ++v)
      acc[i][v] = accumulate ? load(c + i * ldc + v * kLanes) : Vec<Acc>{};
  }
  for (int64_t p = 0; p < k; ++p) {
    Vec<Acc> bv[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) bv[v] = load(b + p * ldb + v * kLanes);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const Acc weight = a[i * a_row + p * a_step];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] += weight * bv[v];
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v < NV; ++v) store(c + i * ldc + v * kLanes, acc[i][v]);
  }
}

/// The columns past the last whole lane vector, one by one, in the same order of p.
template <typename Acc>
GRADCONF_ALWAYS_INLINE void ab_column(int64_t m, int64_t k, const Acc* a, int64_t a_row,
                                      int64_t a_step, const Acc* b, int64_t ldb, Acc* c,
                                      int64_t ldc, bool accumulate) {
  for (int64_t i = 0; i < m; ++i) {
    Acc sum = accumulate ? c[i * ldc] : Acc(0);
    for (int64_t p = 0; p < k; ++p) sum += a[i * a_row + p * a_step] * b[p * ldb];
    c[i * ldc] = sum;
  }
}

template <typename Acc, int MR>
GRADCONF_ALWAYS_INLINE void ab_rows(int64_t n, int64_t k, const Acc* a, int64_t a_row,
                                    int64_t a_step, const Acc* b, int64_t ldb, Acc* c, int64_t ldc,
                                    bool accumulate) {
  constexpr int NV = Tile<Acc>::kVectors;
  int64_t j = 0;
  for (; j + NV * kLanes <= n; j += NV * kLanes)
    ab_tile<Acc, MR, NV>(k, a, a_row, a_step, b + j, ldb, c + j, ldc, accumulate);
  for (; j + kLanes <= n; j += kLanes)
    ab_tile<Acc, MR, 1>(k, a, a_row, a_step, b + j, ldb, c + j, ldc, accumulate);
  for (; j < n; ++j) ab_column(MR, k, a, a_row, a_step, b + j, ldb, c + j, ldc, accumulate);
}

template <typename Acc>
GRADCONF_ALWAYS_INLINE void ab_body(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t a_row,
                                    int64_t a_step, const Acc* b, int64_t ldb, Acc* c, int64_t ldc,
                                    bool accumulate) {
  constexpr int MR = Tile<Acc>::kRows;
  int64_t i = 0;
  for (; i + MR <= m; i += MR)
    ab_rows<Acc, MR>(n, k, a + i * a_row, a_row, a_step, b, ldb, c + i * ldc, ldc, accumulate);
  for (; i < m; ++i)
    ab_rows<Acc, 1>(n, k, a + i * a_row, a_row, a_step, b, ldb, c + i * ldc, ldc, accumulate);
}

template <typename Acc>
void abt_baseline(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b,
                  int64_t ldb, Acc* c, int64_t ldc, bool accumulate) {
  abt_body(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

template <typename Acc>
GRADCONF_TARGET_AVX2 void abt_avx2(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda,
                                   const Acc* b, int64_t ldb, Acc* c, int64_t ldc,
                                   bool accumulate) {
  abt_body(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
}

template <typename Acc>
void ab_baseline(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t a_row, int64_t a_step,
                 const Acc* b, int64_t ldb, Acc* c, int64_t ldc, bool accumulate) {
  ab_body(m, n, k, a, a_row, a_step, b, ldb, c, ldc, accumulate);
}

template <typename Acc>
GRADCONF_TARGET_AVX2 void ab_avx2(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t a_row,
                                  int64_t a_step, const Acc* b, int64_t ldb, Acc* c, int64_t ldc,
                                  bool accumulate) {
  ab_body(m, n, k, a, a_row, a_step, b, ldb, c, ldc, accumulate);
}

template <typename Acc>
void ab_dispatch(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t a_row, int64_t a_step,
                 const Acc* b, int64_t ldb, Acc* c, int64_t ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (kernel_isa() == Isa::kAvx2) {
    ab_avx2(m, n, k, a, a_row, a_step, b, ldb, c, ldc, accumulate);
  } else {
    ab_baseline(m, n, k, a, a_row, a_step, b, ldb, c, ldc, accumulate);
  }
}

}  // namespace

template <typename Acc>
void gemm_abt(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b, int64_t ldb,
              Acc* c, int64_t ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (kernel_isa() == Isa::kAvx2) {
    abt_avx2(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  } else {
    abt_baseline(m, n, k, a, lda, b, ldb, c, ldc, accumulate);
  }
}

template <typename Acc>
void gemm_ab(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b, int64_t ldb,
             Acc* c, int64_t ldc, bool accumulate) {
  ab_dispatch(m, n, k, a, lda, 1, b, ldb, c, ldc, accumulate);
}

template <typename Acc>
void gemm_atb(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b, int64_t ldb,
              Acc* c, int64_t ldc, bool accumulate) {
  ab_dispatch(m, n, k, a, 1, lda, b, ldb, c, ldc, accumulate);
}

template void gemm_abt<float>(int64_t, int64_t, int64_t, const float*, int64_t, const float*,
                              int64_t, float*, int64_t, bool);
template void gemm_abt<double>(int64_t, int64_t, int64_t, const double*, int64_t, const double*,
                               int64_t, double*, int64_t, bool);
template void gemm_ab<float>(int64_t, int64_t, int64_t, const float*, int64_t, const float*,
                             int64_t, float*, int64_t, bool);
template void gemm_ab<double>(int64_t, int64_t, int64_t, const double*, int64_t, const double*,
                              int64_t, double*, int64_t, bool);
template void gemm_atb<float>(int64_t, int64_t, int64_t, const float*, int64_t, const float*,
                              int64_t, float*, int64_t, bool);
template void gemm_atb<double>(int64_t, int64_t, int64_t, const double*, int64_t, const double*,
                               int64_t, double*, int64_t, bool);

}  // namespace gradconf

#pragma GCC diagnostic pop
