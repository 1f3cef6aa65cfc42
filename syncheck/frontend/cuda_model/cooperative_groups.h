/* syncheck CUDA model header: cooperative groups, declarations only. */
#ifndef SYNCHECK_COOPERATIVE_GROUPS_H
#define SYNCHECK_COOPERATIVE_GROUPS_H
#define _COOPERATIVE_GROUPS_H_
#include "cuda_runtime.h"

namespace cooperative_groups {

/* What barrier_arrive() hands to barrier_wait() (split barriers of blocks, grids, clusters). */
struct arrival_token {};

class thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
};

class thread_block : public thread_group {
 public:
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_threads() const;
  __device__ arrival_token barrier_arrive() const;
  __device__ void barrier_wait(arrival_token &&token) const;
};

class grid_group {
 public:
  __device__ void sync() const;
  /* Not in the CUDA headers (nvcc rejects it); some tutorials write it, so it is
     accepted here and analyzed as the grid barrier it is meant to be. */
  __device__ void synchronize() const;
  __device__ bool is_valid() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long block_rank() const;
  __device__ unsigned long long num_blocks() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_blocks() const;
  __device__ dim3 block_index() const;
  __device__ unsigned long long cluster_rank() const;
  __device__ unsigned long long num_clusters() const;
  __device__ dim3 dim_clusters() const;
  __device__ dim3 cluster_index() const;
  __device__ arrival_token barrier_arrive() const;
  __device__ void barrier_wait(arrival_token &&token) const;
};

/* The collective members shared by tiles and coalesced groups. */
#define SYNCHECK_CG_COLLECTIVES                                                   \
  __device__ void sync() const;                                                   \
  __device__ unsigned long long size() const;                                     \
  __device__ unsigned long long num_threads() const;                              \
  __device__ unsigned long long thread_rank() const;                              \
  __device__ unsigned long long meta_group_rank() const;                          \
  __device__ unsigned long long meta_group_size() const;                          \
  template <class T> __device__ T shfl(T var, int srcRank) const;                 \
  template <class T> __device__ T shfl_down(T var, unsigned int delta) const;     \
  template <class T> __device__ T shfl_up(T var, unsigned int delta) const;       \
  template <class T> __device__ T shfl_xor(T var, unsigned int laneMask) const;   \
  __device__ int any(int predicate) const;                                        \
  __device__ int all(int predicate) const;                                        \
  __device__ unsigned int ballot(int predicate) const;                            \
  template <class T> __device__ unsigned int match_any(T value) const;            \
  template <class T> __device__ unsigned int match_all(T value, int &pred) const;

class coalesced_group : public thread_group {
 public:
  SYNCHECK_CG_COLLECTIVES
};

template <unsigned int Size, typename ParentT = void>
class thread_block_tile : public thread_group {
 public:
  __device__ thread_block_tile();
  template <typename P> __device__ thread_block_tile(const thread_block_tile<Size, P> &other);
  SYNCHECK_CG_COLLECTIVES
};
#undef SYNCHECK_CG_COLLECTIVES

__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ coalesced_group coalesced_threads();
template <unsigned int Size, typename ParentT>
__device__ thread_block_tile<Size, ParentT> tiled_partition(const ParentT &parent);
__device__ thread_group tiled_partition(const thread_group &parent, unsigned int tileSize);
/* Groups of the lanes that pass the same label (or predicate): thread-dependent membership. */
__device__ coalesced_group labeled_partition(const coalesced_group &parent, int label);
__device__ coalesced_group labeled_partition(const coalesced_group &parent, unsigned int label);
template <unsigned int Size, typename ParentT>
__device__ coalesced_group labeled_partition(const thread_block_tile<Size, ParentT> &parent, int label);
__device__ coalesced_group binary_partition(const coalesced_group &parent, bool pred);
template <unsigned int Size, typename ParentT>
__device__ coalesced_group binary_partition(const thread_block_tile<Size, ParentT> &parent, bool pred);
template <class Group> __device__ void sync(const Group &g);
template <class Group> __device__ unsigned long long thread_rank(const Group &g);
template <class Group> __device__ unsigned long long group_size(const Group &g);

template <class T> struct plus { __device__ T operator()(T a, T b) const; };
template <class T> struct less { __device__ T operator()(T a, T b) const; };
template <class T> struct greater { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const; };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const; };

template <class Group, class T, class Op> __device__ T reduce(const Group &g, T value, Op op);
template <class Group, class T, class Op> __device__ T inclusive_scan(const Group &g, T value, Op op);
template <class Group, class T> __device__ T inclusive_scan(const Group &g, T value);
template <class Group, class T, class Op> __device__ T exclusive_scan(const Group &g, T value, Op op);
template <class Group, class T> __device__ T exclusive_scan(const Group &g, T value);
template <class Group> __device__ void memcpy_async(const Group &g, void *dst, const void *src, size_t n);
template <class Group> __device__ void wait(const Group &g);
template <unsigned int N, class Group> __device__ void wait_prior(const Group &g);

// Thread block clusters (sm_90): distributed shared memory and the cluster barrier.
class cluster_group {
public:
    __device__ void sync() const;
    __device__ arrival_token barrier_arrive() const;
    __device__ void barrier_wait() const;
    __device__ void barrier_wait(arrival_token &&token) const;
    __device__ unsigned int block_rank() const;
    __device__ dim3 block_index() const;
    __device__ unsigned int num_blocks() const;
    __device__ dim3 dim_blocks() const;
    __device__ unsigned int thread_rank() const;
    __device__ dim3 thread_index() const;
    __device__ unsigned int num_threads() const;
    __device__ unsigned int size() const;
    __device__ dim3 dim_threads() const;
    __device__ bool is_valid() const;
    __device__ unsigned int query_shared_rank(const void *addr) const;
    template <class T> __device__ T *map_shared_rank(T *addr, int rank) const;
};
__device__ cluster_group this_cluster();

}  // namespace cooperative_groups
#endif
