// Reference: the lecture's block reductions (shared-memory tree, warp shuffles, cooperative
// groups), each writing one partial sum per block.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reduceShared(const float* in, float* out, int n) {
    extern __shared__ float sdata[];
    int tid = threadIdx.x;
    int i   = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

__inline__ __device__ float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset >>= 1)
        val += __shfl_down_sync(0xffffffff, val, offset);
    return val;
}

extern "C" __global__ void reduceShfl(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float val = (i < n) ? in[i] : 0.0f;
    val = warpReduceSum(val);
    __shared__ float warpSums[32];
    int lane = threadIdx.x % warpSize;
    int wid  = threadIdx.x / warpSize;
    if (lane == 0) warpSums[wid] = val;
    __syncthreads();
    int numWarps = blockDim.x / warpSize;
    val = (threadIdx.x < numWarps) ? warpSums[lane] : 0.0f;
    if (wid == 0) val = warpReduceSum(val);
    if (threadIdx.x == 0) out[blockIdx.x] = val;
}

extern "C" __global__ void reduceCG(const float* in, float* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float val = (i < n) ? in[i] : 0.0f;
    val = cg::reduce(warp, val, cg::plus<float>());
    __shared__ float warpSums[32];
    if (warp.thread_rank() == 0) warpSums[warp.meta_group_rank()] = val;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        val = (warp.thread_rank() < warp.meta_group_size()) ? warpSums[warp.thread_rank()] : 0.0f;
        val = cg::reduce(warp, val, cg::plus<float>());
        if (warp.thread_rank() == 0) out[blockIdx.x] = val;
    }
}

// Partial sums of 16-thread tiles, one per tile.
extern "C" __global__ void reduceTile16(const float* in, float* out, int n) {
    auto tile = cg::tiled_partition<16>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) out[i / 16] = v;
}

// A whole-array sum: warp shuffles per block, then one atomicAdd per block.
extern "C" __global__ void sumAtomic(const float* in, float* total, int n) {
    __shared__ float warpSums[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
    v = warpReduceSum(v);
    int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    if (lane == 0) warpSums[wid] = v;
    __syncthreads();
    v = (threadIdx.x < blockDim.x / 32) ? warpSums[lane] : 0.0f;
    if (wid == 0) v = warpReduceSum(v);
    if (threadIdx.x == 0) atomicAdd(total, v);
}
