// Reference: Hopper asynchronous synchronization used correctly (sm_90a).
//   cp_async_pipeline        three-stage cp.async copy (commit/wait_group counting)
//   bulk_pipeline            cp.async.bulk + mbarrier, double-buffered, parity flipped per use
//   wgmma_k64                a wgmma loop over K with fence/commit and one final wait_group 0
//   named_producer_consumer  warps 0-3 produce, warps 4-7 consume, through named barriers 1 and 2
//   cluster_sum              a 2-block cluster reduction through distributed shared memory
#include <cuda_fp16.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// ---------------------------------------------------------------------------------------
// cp.async, three stages: two tiles in flight, wait_group 1 retires the oldest.
// out[tile][i] = 2 * in[tile][127 - i] + 1 (float4 elements; tiles of 128 per block).
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem) {
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(gmem) : "memory");
}

extern "C" __global__ void __launch_bounds__(128) cp_async_pipeline(const float4* in, float4* out, int tiles) {
    __shared__ float4 buf[3][128];
    const int t = threadIdx.x;
    const long base = (long)blockIdx.x * tiles * 128;
    for (int s = 0; s < 2; ++s) {
        if (s < tiles)
            cp_async_16(&buf[s][t], &in[base + s * 128 + t]);
        asm volatile("cp.async.commit_group;\n" ::: "memory");  // empty groups keep the count
    }
    for (int k = 0; k < tiles; ++k) {
        asm volatile("cp.async.wait_group 1;\n" ::: "memory");
        __syncthreads();
        if (k + 2 < tiles)
            cp_async_16(&buf[(k + 2) % 3][t], &in[base + (k + 2) * 128 + t]);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        float4 v = buf[k % 3][127 - t];
        out[base + k * 128 + t] = make_float4(2.f * v.x + 1.f, 2.f * v.y + 1.f, 2.f * v.z + 1.f, 2.f * v.w + 1.f);
        __syncthreads();
    }
    asm volatile("cp.async.wait_all;\n" ::: "memory");
}

// ---------------------------------------------------------------------------------------
// cp.async.bulk (the TMA engine, 1-D) into two stages, each completing on its own mbarrier.
// out[tile][i] = 3 * in[tile][1023 - i] (tiles of 1024 floats per block).
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
    asm volatile("{\n.reg .pred done;\nWAIT_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT_%=;\n}\n" :: "r"(bar), "r"(parity) : "memory");
}

__device__ __forceinline__ void bulk_load(unsigned dst, const float* src, unsigned bar) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 4096;\n" :: "r"(bar) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 4096, [%2];\n"
                 :: "r"(dst), "l"(src), "r"(bar) : "memory");
}

extern "C" __global__ void __launch_bounds__(128) bulk_pipeline(const float* in, float* out, int tiles) {
    __shared__ __align__(128) float stage[2][1024];
    __shared__ __align__(8) unsigned long long bar[2];
    const int t = threadIdx.x;
    const long base = (long)blockIdx.x * tiles * 1024;
    unsigned bar0 = (unsigned)__cvta_generic_to_shared(&bar[0]);
    unsigned stage0 = (unsigned)__cvta_generic_to_shared(&stage[0][0]);
    if (t == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" :: "r"(bar0));
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" :: "r"(bar0 + 8));
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        for (int s = 0; s < 2 && s < tiles; ++s)
            bulk_load(stage0 + s * 4096, in + base + s * 1024, bar0 + 8 * s);
    }
    for (int k = 0; k < tiles; ++k) {
        const int s = k & 1;
        mbar_wait(bar0 + 8 * s, (k >> 1) & 1);  // the k-th use of stage s waits for phase k/2
        for (int j = 0; j < 8; ++j) {
            int i = t * 8 + j;
            out[base + k * 1024 + i] = 3.f * stage[s][1023 - i];
        }
        __syncthreads();  // every thread is done with stage s before it is refilled
        if (t == 0 && k + 2 < tiles)
            bulk_load(stage0 + s * 4096, in + base + (k + 2) * 1024, bar0 + 8 * s);
    }
}

// ---------------------------------------------------------------------------------------
// wgmma over K = 64 in four k16 steps: D (64x8, f32) = A (64x64, f16) @ B (64x8, f16).
// Operands in shared memory as 8x8 core matrices (no swizzle), one chunk per k16 step, laid
// out as in wgmma.cu; generic stores are fenced for the async proxy before the first wgmma.
__device__ unsigned long long smem_descriptor(const void* p, unsigned lead_bytes, unsigned stride_bytes) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(p);
    unsigned long long d = 0;
    d |= (unsigned long long)((addr >> 4) & 0x3FFF);
    d |= (unsigned long long)((lead_bytes >> 4) & 0x3FFF) << 16;
    d |= (unsigned long long)((stride_bytes >> 4) & 0x3FFF) << 32;
    return d;
}

extern "C" __global__ void __launch_bounds__(128) wgmma_k64(const __half* A, const __half* B, float* D) {
    __shared__ __align__(128) __half As[4][64 * 16];
    __shared__ __align__(128) __half Bs[4][8 * 16];
    const int t = threadIdx.x;
    for (int e = t; e < 64 * 64; e += 128) {
        int m = e / 64, k = e % 64, c = k / 16, kk = k % 16;
        As[c][((m / 8) * 2 + (kk / 8)) * 64 + (m % 8) * 8 + (kk % 8)] = A[e];
    }
    for (int e = t; e < 64 * 8; e += 128) {
        int k = e / 8, n = e % 8, c = k / 16, kk = k % 16;
        Bs[c][(kk / 8) * 64 + n * 8 + (kk % 8)] = B[e];
    }
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
    for (int c = 0; c < 4; ++c) {
        unsigned long long da = smem_descriptor(&As[c][0], 128, 256);
        unsigned long long db = smem_descriptor(&Bs[c][0], 128, 256);
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        asm volatile(
            "{\n"
            ".reg .pred p;\n"
            "setp.ne.b32 p, %6, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
            "}\n"
            : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
            : "l"(da), "l"(db), "r"(c));
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    int warp = t / 32, lane = t % 32;
    int row = warp * 16 + lane / 4, col = 2 * (lane % 4);
    D[row * 8 + col] = d0;
    D[row * 8 + col + 1] = d1;
    D[(row + 8) * 8 + col] = d2;
    D[(row + 8) * 8 + col + 1] = d3;
}

// ---------------------------------------------------------------------------------------
// Named barriers: warps 0-3 fill a buffer and arrive on barrier 1; warps 4-7 wait on it,
// read, and arrive on barrier 2, on which the producers wait before refilling. Every site of
// a barrier gives the block's 256 threads.
// out[tile][j] = 0.5 * in[tile][127 - j] + 1 (tiles of 128 per block).
extern "C" __global__ void __launch_bounds__(256) named_producer_consumer(const float* in, float* out, int tiles) {
    __shared__ float buf[128];
    const int t = threadIdx.x;
    const int warp = t / 32;
    const long base = (long)blockIdx.x * tiles * 128;
    if (warp < 4) {
        for (int k = 0; k < tiles; ++k) {
            if (k > 0)
                asm volatile("bar.sync 2, 256;\n" ::: "memory");  // the consumers are done with buf
            buf[t] = 0.5f * in[base + k * 128 + t];  // syncheck: ignore[SYN401]
            asm volatile("bar.arrive 1, 256;\n" ::: "memory");
        }
    } else {
        const int j = t - 128;
        for (int k = 0; k < tiles; ++k) {
            asm volatile("bar.sync 1, 256;\n" ::: "memory");  // buf is full
            float v = buf[127 - j];  // syncheck: ignore[SYN401]
            if (k + 1 < tiles)
                asm volatile("bar.arrive 2, 256;\n" ::: "memory");
            out[base + k * 128 + j] = v + 1.0f;
        }
    }
}

// ---------------------------------------------------------------------------------------
// A cluster of two blocks: each reduces its 256 inputs in shared memory; rank 0 adds rank 1's
// partial through distributed shared memory; a final cluster.sync() keeps rank 1 alive until
// then. out[cluster] = sum of in[512 * cluster .. 512 * cluster + 511].
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(256) cluster_sum(const float* in, float* out) {
    __shared__ float part[256];
    cg::cluster_group cluster = cg::this_cluster();
    const int t = threadIdx.x;
    part[t] = in[(long)blockIdx.x * 256 + t];
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (t < s)
            part[t] += part[t + s];
        __syncthreads();
    }
    cluster.sync();  // both partials are complete
    if (cluster.block_rank() == 0 && t == 0) {
        float* other = cluster.map_shared_rank(part, 1);
        out[blockIdx.x / 2] = part[0] + other[0];
    }
    cluster.sync();  // rank 1's shared memory stays until rank 0 has read it
}
