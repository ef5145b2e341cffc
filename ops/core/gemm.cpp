#include "core/gemm.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

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

template <typename Acc, int W = kLanes>
GRADCONF_ALWAYS_INLINE LaneVector<Acc, W> load(const Acc* p) {
  LaneVector<Acc, W> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename Acc, int W>
GRADCONF_ALWAYS_INLINE void store(Acc* p, const LaneVector<Acc, W>& v) {
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

// The AVX-512 tiles of A B and A^T B: 512-bit vectors and 32 registers, 6 rows by 4 vectors
// (24 accumulators, 4 of B, 1 broadcast). Only these products take the wide path: each of their
// elements is one chain of multiply-adds in order of p whatever the vector width, so its bits are
// the AVX2 path's. A B^T sums each element in kLanes lanes: its wide tiles (abt_pair_tile) put two
// columns' lanes in one vector, so its lanes keep their terms and order too.
template <typename Acc>
struct WideTile {
  static constexpr int kWidth = 64 / static_cast<int>(sizeof(Acc));
  static constexpr int kRows = 6;
  static constexpr int kVectors = 4;
  /// A B^T (floats): 6 rows by 4 pairs of columns, each pair one 512-bit vector of two columns'
  /// lanes (24 accumulators, 4 of B, 1 of A).
  static constexpr int kDotRows = 6;
  static constexpr int kDotPairs = 4;
};

// Operands: rows anywhere in memory. RowsAt: row r at base + r * ld; RowList: row r at rows[r]
// (rows of a chunk gathered from a cache or read in place). Either may start at a column offset.
template <typename Acc>
struct RowsAt {
  const Acc* base;
  int64_t ld;
  GRADCONF_ALWAYS_INLINE const Acc* row(int64_t r) const { return base + r * ld; }
  GRADCONF_ALWAYS_INLINE RowsAt from_row(int64_t r) const { return {base + r * ld, ld}; }
  GRADCONF_ALWAYS_INLINE RowsAt from_column(int64_t c) const { return {base + c, ld}; }
};

template <typename Acc>
struct RowList {
  const Acc* const* rows;
  int64_t column;
  GRADCONF_ALWAYS_INLINE const Acc* row(int64_t r) const { return rows[r] + column; }
  GRADCONF_ALWAYS_INLINE RowList from_row(int64_t r) const { return {rows + r, column}; }
  GRADCONF_ALWAYS_INLINE RowList from_column(int64_t c) const { return {rows, column + c}; }
};

/// C[i][j] for MR rows of A and NR rows of B: element p of k in lane p % kLanes (the tail as a
/// zero-padded vector), the lanes combined in combine_lanes' tree.
template <typename Acc, int MR, int NR, typename A, typename B>
GRADCONF_ALWAYS_INLINE void abt_tile(int64_t k, A a, B b, Acc* c, int64_t ldc, bool accumulate) {
  Vec<Acc> acc[MR][NR] = {};
  int64_t p = 0;
  for (; p + kLanes <= k; p += kLanes) {
    // B's NR vectors held, A's one at a time: MR * NR + NR + 1 registers.
    Vec<Acc> bv[NR];
#pragma GCC unroll 8
    for (int j = 0; j < NR; ++j) bv[j] = load(b.row(j) + p);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const Vec<Acc> av = load(a.row(i) + p);
#pragma GCC unroll 8
      for (int j = 0; j < NR; ++j) acc[i][j] += av * bv[j];
    }
  }
  if (p < k) {
    Vec<Acc> av[MR], bv[NR];
    for (int i = 0; i < MR; ++i) av[i] = load_head(a.row(i) + p, k - p);
    for (int j = 0; j < NR; ++j) bv[j] = load_head(b.row(j) + p, k - p);
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

using Pair = LaneVector<float, 2 * kLanes>;

/// Two lane vectors side by side in one 512-bit vector.
GRADCONF_ALWAYS_INLINE Pair pair_of(Vec<float> low, Vec<float> high) {
  return __builtin_shufflevector(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

/// The kLanes floats at p in both halves of a 512-bit vector, by one broadcast from memory: a
/// load-port operation, where pair_of(v, v) from a register costs a shuffle on the ports that run
/// the multiply-adds. GCC builds the pair from a register (and the intrinsic cannot inline into a
/// body compiled for two ISAs), so it gets the instruction itself; Clang folds the load into the
/// broadcast (and would refuse the asm's 512-bit operand outside an AVX-512 function). Only the
/// wide path, compiled for AVX-512, reaches it.
GRADCONF_ALWAYS_INLINE Pair broadcast_lanes(const float* p) {
#if defined(__clang__)
  const Vec<float> lanes = load<float>(p);
  return pair_of(lanes, lanes);
#else
  using Lanes [[gnu::may_alias]] = Vec<float>;
  Pair out;
  asm("vbroadcastf64x4 %1, %0" : "=v"(out) : "m"(*reinterpret_cast<const Lanes*>(p)));
  return out;
#endif
}

/// Even-indexed then odd-indexed elements of each 128-bit chunk of x and y: [x0 x2 y0 y2] and
/// [x1 x3 y1 y3] per chunk, so evens + odds adds each pair of neighbouring lanes.
GRADCONF_ALWAYS_INLINE Pair chunk_evens(Pair x, Pair y) {
  return __builtin_shufflevector(x, y, 0, 2, 16, 18, 4, 6, 20, 22, 8, 10, 24, 26, 12, 14, 28, 30);
}
GRADCONF_ALWAYS_INLINE Pair chunk_odds(Pair x, Pair y) {
  return __builtin_shufflevector(x, y, 1, 3, 17, 19, 5, 7, 21, 23, 9, 11, 25, 27, 13, 15, 29, 31);
}

/// The 8 sums of a row of abt_pair_tile (xq holds columns 2q and 2q + 1), in column order: the
/// tree of combine_lane_vector, ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)), run on all 8
/// columns at once; each sum adds the same operands in the same order, so the bits are the same.
GRADCONF_ALWAYS_INLINE Vec<float> combine_pair_lanes(Pair x0, Pair x1, Pair x2, Pair x3) {
  const Pair pairs01 = chunk_evens(x0, x1) + chunk_odds(x0, x1);
  const Pair pairs23 = chunk_evens(x2, x3) + chunk_odds(x2, x3);
  // Chunks: columns 0 2 4 6 lanes 0-3, the same lanes 4-7, then columns 1 3 5 7 likewise.
  const Pair quads = chunk_evens(pairs01, pairs23) + chunk_odds(pairs01, pairs23);
  const Vec<float> low = __builtin_shufflevector(quads, quads, 0, 8, 1, 9, 2, 10, 3, 11);
  const Vec<float> high = __builtin_shufflevector(quads, quads, 4, 12, 5, 13, 6, 14, 7, 15);
  return low + high;
}

/// abt_tile for floats in 512-bit vectors, 8 columns of C: each vector holds the kLanes lanes of
/// two columns (rows 2q and 2q + 1 of B) against A's lanes repeated in both halves, so every lane
/// sums the same terms in the same order as abt_tile's, and the lanes are combined in the same
/// tree.
template <int MR, typename A, typename B>
GRADCONF_ALWAYS_INLINE void abt_pair_tile(int64_t k, A a, B b, float* c, int64_t ldc,
                                          bool accumulate) {
  constexpr int NP = WideTile<float>::kDotPairs;
  Pair acc[MR][NP] = {};
  auto step = [&](auto load_b, auto load_a) GRADCONF_ALWAYS_INLINE_LAMBDA {
    Pair bv[NP];
#pragma GCC unroll 8
    for (int q = 0; q < NP; ++q) bv[q] = pair_of(load_b(b.row(2 * q)), load_b(b.row(2 * q + 1)));
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const Pair av = load_a(a.row(i));
#pragma GCC unroll 8
      for (int q = 0; q < NP; ++q) acc[i][q] += av * bv[q];
    }
  };
  int64_t p = 0;
  for (; p + kLanes <= k; p += kLanes) {
    step([p](const float* row) GRADCONF_ALWAYS_INLINE_LAMBDA { return load<float>(row + p); },
         [p](const float* row) GRADCONF_ALWAYS_INLINE_LAMBDA { return broadcast_lanes(row + p); });
  }
  if (p < k) {
    const auto head = [p, k](const float* row)
                          GRADCONF_ALWAYS_INLINE_LAMBDA { return load_head(row + p, k - p); };
    step(head, [&](const float* row) GRADCONF_ALWAYS_INLINE_LAMBDA {
      const Vec<float> lanes = head(row);
      return pair_of(lanes, lanes);
    });
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
    static_assert(NP == 4);
    const Vec<float> sums = combine_pair_lanes(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    float* out = c + i * ldc;
    store<float, kLanes>(out, accumulate ? load<float>(out) + sums : sums);
  }
}

template <typename Acc, int MR, bool kWide, typename A, typename B>
GRADCONF_ALWAYS_INLINE void abt_rows(int64_t n, int64_t k, A a, B b, Acc* c, int64_t ldc,
                                     bool accumulate) {
  int64_t j = 0;
  if constexpr (kWide && std::is_same_v<Acc, float>) {
    constexpr int kColumns = 2 * WideTile<Acc>::kDotPairs;
    for (; j + kColumns <= n; j += kColumns)
      abt_pair_tile<MR>(k, a, b.from_row(j), c + j, ldc, accumulate);
  }
  constexpr int NR = Tile<Acc>::kDotColumns;
  for (; j + NR <= n; j += NR) abt_tile<Acc, MR, NR>(k, a, b.from_row(j), c + j, ldc, accumulate);
  for (; j < n; ++j) abt_tile<Acc, MR, 1>(k, a, b.from_row(j), c + j, ldc, accumulate);
}

template <typename Acc, bool kWide, typename A, typename B>
GRADCONF_ALWAYS_INLINE void abt_body(int64_t m, int64_t n, int64_t k, A a, B b, Acc* c, int64_t ldc,
                                     bool accumulate) {
  int64_t i = 0;
  auto row_tiles = [&]<int MR>() GRADCONF_ALWAYS_INLINE_LAMBDA {
    for (; i + MR <= m; i += MR)
      abt_rows<Acc, MR, kWide>(n, k, a.from_row(i), b, c + i * ldc, ldc, accumulate);
  };
  if constexpr (kWide && std::is_same_v<Acc, float>) {
    row_tiles.template operator()<WideTile<Acc>::kDotRows>();
  }
  row_tiles.template operator()<Tile<Acc>::kRows>();
  row_tiles.template operator()<1>();
}

/// A(i, p) of A B (A's rows are C's rows) or of A^T B (A's rows are the terms p).
template <bool kTransposed, typename A>
GRADCONF_ALWAYS_INLINE auto a_at(const A& a, int64_t i, int64_t p) {
  return kTransposed ? a.row(p)[i] : a.row(i)[p];
}

/// A from C's row i on.
template <bool kTransposed, typename A>
GRADCONF_ALWAYS_INLINE A a_from(const A& a, int64_t i) {
  return kTransposed ? a.from_column(i) : a.from_row(i);
}

/// C[i][j] (+)= sum_p A(i, p) B[p][j] for MR rows and NV vectors of W columns: each element
/// adds its terms in order of p.
template <typename Acc, int MR, int NV, int W, bool kTransposed, typename A, typename B>
GRADCONF_ALWAYS_INLINE void ab_tile(int64_t k, A a, B b, Acc* c, int64_t ldc, bool accumulate) {
  using V = LaneVector<Acc, W>;
  V acc[MR][NV];
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v < NV; ++v) acc[i][v] = accumulate ? load<Acc, W>(c + i * ldc + v * W) : V{};
  }
  for (int64_t p = 0; p < k; ++p) {
    V bv[NV];
    const Acc* b_row = b.row(p);
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) bv[v] = load<Acc, W>(b_row + v * W);
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) {
      const Acc weight = a_at<kTransposed>(a, i, p);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[i][v] += weight * bv[v];
    }
  }
  for (int i = 0; i < MR; ++i) {
    for (int v = 0; v < NV; ++v) store<Acc, W>(c + i * ldc + v * W, acc[i][v]);
  }
}

/// The columns past the last whole lane vector, one by one, in the same order of p.
template <typename Acc, bool kTransposed, typename A, typename B>
GRADCONF_ALWAYS_INLINE void ab_column(int64_t m, int64_t k, A a, B b, Acc* c, int64_t ldc,
                                      bool accumulate) {
  for (int64_t i = 0; i < m; ++i) {
    Acc sum = accumulate ? c[i * ldc] : Acc(0);
    for (int64_t p = 0; p < k; ++p) sum += a_at<kTransposed>(a, i, p) * b.row(p)[0];
    c[i * ldc] = sum;
  }
}

template <typename Acc, int MR, bool kTransposed, bool kWide, typename A, typename B>
GRADCONF_ALWAYS_INLINE void ab_rows(int64_t n, int64_t k, A a, B b, Acc* c, int64_t ldc,
                                    bool accumulate) {
  int64_t j = 0;
  if constexpr (kWide) {
    constexpr int W = WideTile<Acc>::kWidth, NV = WideTile<Acc>::kVectors;
    for (; j + NV * W <= n; j += NV * W)
      ab_tile<Acc, MR, NV, W, kTransposed>(k, a, b.from_column(j), c + j, ldc, accumulate);
    for (; j + W <= n; j += W)
      ab_tile<Acc, MR, 1, W, kTransposed>(k, a, b.from_column(j), c + j, ldc, accumulate);
  } else {
    constexpr int NV = Tile<Acc>::kVectors;
    for (; j + NV * kLanes <= n; j += NV * kLanes)
      ab_tile<Acc, MR, NV, kLanes, kTransposed>(k, a, b.from_column(j), c + j, ldc, accumulate);
  }
  for (; j + kLanes <= n; j += kLanes)
    ab_tile<Acc, MR, 1, kLanes, kTransposed>(k, a, b.from_column(j), c + j, ldc, accumulate);
  for (; j < n; ++j)
    ab_column<Acc, kTransposed>(MR, k, a, b.from_column(j), c + j, ldc, accumulate);
}

/// Rows [i, i + MR) while MR of them remain.
template <typename Acc, int MR, bool kTransposed, bool kWide, typename A, typename B>
GRADCONF_ALWAYS_INLINE void ab_row_tiles(int64_t& i, int64_t m, int64_t n, int64_t k, A a, B b,
                                         Acc* c, int64_t ldc, bool accumulate) {
  for (; i + MR <= m; i += MR) {
    ab_rows<Acc, MR, kTransposed, kWide>(n, k, a_from<kTransposed>(a, i), b, c + i * ldc, ldc,
                                         accumulate);
  }
}

template <typename Acc, bool kTransposed, bool kWide, typename A, typename B>
GRADCONF_ALWAYS_INLINE void ab_panel(int64_t m, int64_t n, int64_t k, A a, B b, Acc* c, int64_t ldc,
                                     bool accumulate) {
  int64_t i = 0;
  if constexpr (kWide) {
    ab_row_tiles<Acc, WideTile<Acc>::kRows, kTransposed, kWide>(i, m, n, k, a, b, c, ldc,
                                                                accumulate);
    ab_row_tiles<Acc, 4, kTransposed, kWide>(i, m, n, k, a, b, c, ldc, accumulate);
    ab_row_tiles<Acc, 2, kTransposed, kWide>(i, m, n, k, a, b, c, ldc, accumulate);
  } else {
    ab_row_tiles<Acc, Tile<Acc>::kRows, kTransposed, kWide>(i, m, n, k, a, b, c, ldc, accumulate);
  }
  ab_row_tiles<Acc, 1, kTransposed, kWide>(i, m, n, k, a, b, c, ldc, accumulate);
}

/// Terms of A B and A^T B per pass over C. A dk/dv chunk's 256 terms of B (768 bytes each) in
/// one pass are streamed from L2 once per row tile of C; in passes of 128 the NSA backward took
/// 7% less time (passes of 32 or 64 gained less: C is stored and reloaded per pass). Storing and
/// reloading C between passes changes no bit: each element stays one chain of multiply-adds in
/// order of p.
inline constexpr int64_t kAbTermsPerPass = 128;

template <typename Acc, bool kTransposed, bool kWide, typename A, typename B>
GRADCONF_ALWAYS_INLINE void ab_body(int64_t m, int64_t n, int64_t k, A a, B b, Acc* c, int64_t ldc,
                                    bool accumulate) {
  int64_t p = 0;
  do {  // once at least: k = 0 still zeroes C unless accumulating
    const int64_t terms = std::min(kAbTermsPerPass, k - p);
    ab_panel<Acc, kTransposed, kWide>(m, n, terms, kTransposed ? a.from_row(p) : a.from_column(p),
                                      b.from_row(p), c, ldc, accumulate || p > 0);
    p += kAbTermsPerPass;
  } while (p < k);
}

template <typename Acc, typename A, typename B>
void abt_dispatch(int64_t m, int64_t n, int64_t k, A a, B b, Acc* c, int64_t ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  auto narrow = [&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
    abt_body<Acc, false>(m, n, k, a, b, c, ldc, accumulate);
  };
  auto wide = [&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
    abt_body<Acc, true>(m, n, k, a, b, c, ldc, accumulate);
  };
  on_isa_path(narrow, wide);  // 8-lane tiles, or 512-bit ones
}

template <typename Acc, bool kTransposed, typename A, typename B>
void ab_dispatch(int64_t m, int64_t n, int64_t k, A a, B b, Acc* c, int64_t ldc, bool accumulate) {
  if (m <= 0 || n <= 0) return;
  auto narrow = [&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
    ab_body<Acc, kTransposed, false>(m, n, k, a, b, c, ldc, accumulate);
  };
  auto wide = [&]() GRADCONF_ALWAYS_INLINE_LAMBDA {
    ab_body<Acc, kTransposed, true>(m, n, k, a, b, c, ldc, accumulate);
  };
  on_isa_path(narrow, wide);  // 8-lane tiles, or 512-bit ones
}

}  // namespace

template <typename Acc>
void gemm_abt(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b, int64_t ldb,
              Acc* c, int64_t ldc, bool accumulate) {
  abt_dispatch(m, n, k, RowsAt<Acc>{a, lda}, RowsAt<Acc>{b, ldb}, c, ldc, accumulate);
}

template <typename Acc>
void gemm_abt_rows(int64_t m, int64_t n, int64_t k, const Acc* const* a_rows, const Acc* b,
                   int64_t ldb, Acc* c, int64_t ldc, bool accumulate) {
  abt_dispatch(m, n, k, RowList<Acc>{a_rows, 0}, RowsAt<Acc>{b, ldb}, c, ldc, accumulate);
}

template <typename Acc>
void gemm_ab(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b, int64_t ldb,
             Acc* c, int64_t ldc, bool accumulate) {
  ab_dispatch<Acc, false>(m, n, k, RowsAt<Acc>{a, lda}, RowsAt<Acc>{b, ldb}, c, ldc, accumulate);
}

template <typename Acc>
void gemm_atb(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b, int64_t ldb,
              Acc* c, int64_t ldc, bool accumulate) {
  ab_dispatch<Acc, true>(m, n, k, RowsAt<Acc>{a, lda}, RowsAt<Acc>{b, ldb}, c, ldc, accumulate);
}

template <typename Acc>
void gemm_atb_rows(int64_t m, int64_t n, int64_t k, const Acc* const* a_rows,
                   const Acc* const* b_rows, Acc* c, int64_t ldc, bool accumulate) {
  ab_dispatch<Acc, true>(m, n, k, RowList<Acc>{a_rows, 0}, RowList<Acc>{b_rows, 0}, c, ldc,
                         accumulate);
}

#define GRADCONF_GEMM_INSTANCES(Acc)                                                               \
  template void gemm_abt<Acc>(int64_t, int64_t, int64_t, const Acc*, int64_t, const Acc*, int64_t, \
                              Acc*, int64_t, bool);                                                \
  template void gemm_abt_rows<Acc>(int64_t, int64_t, int64_t, const Acc* const*, const Acc*,       \
                                   int64_t, Acc*, int64_t, bool);                                  \
  template void gemm_ab<Acc>(int64_t, int64_t, int64_t, const Acc*, int64_t, const Acc*, int64_t,  \
                             Acc*, int64_t, bool);                                                 \
  template void gemm_atb<Acc>(int64_t, int64_t, int64_t, const Acc*, int64_t, const Acc*, int64_t, \
                              Acc*, int64_t, bool);                                                \
  template void gemm_atb_rows<Acc>(int64_t, int64_t, int64_t, const Acc* const*,                   \
                                   const Acc* const*, Acc*, int64_t, bool);
GRADCONF_GEMM_INSTANCES(float)
GRADCONF_GEMM_INSTANCES(double)
#undef GRADCONF_GEMM_INSTANCES

}  // namespace gradconf

#pragma GCC diagnostic pop
