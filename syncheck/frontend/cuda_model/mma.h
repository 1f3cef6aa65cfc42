/* syncheck CUDA model header: warp matrix (WMMA) API. Every *_sync call is a warp-wide
   collective: all 32 lanes must execute it. */
#ifndef SYNCHECK_MMA_H
#define SYNCHECK_MMA_H
#define __CUDA_MMA_H__
#include "cuda_runtime.h"
#include "cuda_fp16.h"
namespace nvcuda {
namespace wmma {
struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
namespace precision { struct tf32 {}; struct s4 {}; struct u4 {}; struct b1 {}; }
enum layout_t { mem_row_major, mem_col_major };
template <typename Use, int M, int N, int K, typename T, typename Layout = void>
struct fragment {
  enum { num_elements = 8 };
  T x[8];
  __device__ T &operator[](int i);
};
template <typename Use, int M, int N, int K, typename T, typename L, typename P>
__device__ void load_matrix_sync(fragment<Use, M, N, K, T, L> &f, const P *p, unsigned ldm);
template <typename Use, int M, int N, int K, typename T, typename P>
__device__ void load_matrix_sync(fragment<Use, M, N, K, T, void> &f, const P *p, unsigned ldm, layout_t l);
template <int M, int N, int K, typename T, typename P>
__device__ void store_matrix_sync(P *p, const fragment<accumulator, M, N, K, T, void> &f, unsigned ldm, layout_t l);
template <typename Use, int M, int N, int K, typename T, typename L, typename V>
__device__ void fill_fragment(fragment<Use, M, N, K, T, L> &f, const V &v);
template <int M, int N, int K, typename TA, typename LA, typename TB, typename LB, typename TC>
__device__ void mma_sync(fragment<accumulator, M, N, K, TC, void> &d,
                         const fragment<matrix_a, M, N, K, TA, LA> &a,
                         const fragment<matrix_b, M, N, K, TB, LB> &b,
                         const fragment<accumulator, M, N, K, TC, void> &c, bool satf = false);
__device__ float __float_to_tf32(float);
}  // namespace wmma
}  // namespace nvcuda
#endif
