// Small dense products for the attention kernels (a group's G query heads against the B rows of
// a selected block; a block's B rows against a chunk of queries): row-major operands anywhere in
// memory (leading dimensions in elements), float or double. Every element of C is summed in an
// order fixed by the shapes alone, so results are bitwise identical for any thread count; they
// may differ in the last bits between the AVX2 and baseline paths (core/isa.h).
//
// Hand-written rather than Eigen's: the backend is built for baseline x86-64, where Eigen's
// products are compiled for SSE2 once and for all, and an Eigen compiled for AVX2 in one
// translation unit would share inline template instances with the baseline ones (the linker
// keeps one of them). These kernels compile their bodies twice behind kernel_isa() instead.
#ifndef GRADCONF_OPS_CORE_GEMM_H_
#define GRADCONF_OPS_CORE_GEMM_H_

#include <cstdint>

namespace gradconf {

/// C (m x n) = A (m x k) B^T (B: n x k), or C += A B^T when `accumulate`: rows of A against rows
/// of B (scores of queries against keys). Each element sums k in kLanes interleaved lanes
/// combined in one fixed tree (core/lanes.h), then adds to C.
template <typename Acc>
void gemm_abt(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b, int64_t ldb,
              Acc* c, int64_t ldc, bool accumulate);

/// gemm_abt with A's m rows at a_rows[0..m) (rows gathered from anywhere): the same bits as
/// gemm_abt on a copy of those rows.
template <typename Acc>
void gemm_abt_rows(int64_t m, int64_t n, int64_t k, const Acc* const* a_rows, const Acc* b,
                   int64_t ldb, Acc* c, int64_t ldc, bool accumulate);

/// C (m x n) = A (m x k) B (k x n), or C += A B: rows of B weighted by A's entries (attention
/// outputs, dq). Each element adds its k terms to C in order of k.
template <typename Acc>
void gemm_ab(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b, int64_t ldb,
             Acc* c, int64_t ldc, bool accumulate);

/// C (m x n) = A^T B (A: k x m, B: k x n), or C += A^T B (dk and dv of a block from a chunk of
/// query rows). Each element adds its k terms to C in order of k.
template <typename Acc>
void gemm_atb(int64_t m, int64_t n, int64_t k, const Acc* a, int64_t lda, const Acc* b, int64_t ldb,
              Acc* c, int64_t ldc, bool accumulate);

/// gemm_atb with the k rows of A and of B at a_rows[0..k) and b_rows[0..k): the same bits as
/// gemm_atb on copies of those rows, without the copies.
template <typename Acc>
void gemm_atb_rows(int64_t m, int64_t n, int64_t k, const Acc* const* a_rows,
                   const Acc* const* b_rows, Acc* c, int64_t ldc, bool accumulate);

}  // namespace gradconf

#endif  // GRADCONF_OPS_CORE_GEMM_H_
