// Reference: a Hopper warpgroup (4 consecutive warps, 128 threads) multiplying a 64x16 by a
// 16x8 f16 matrix with one wgmma.mma_async (sm_90a), accumulating in f32.
//
// Operands sit in shared memory as 8x8 "core matrices" (8 rows of 16 bytes), no swizzle:
// core matrix (row block r, k block c) of A starts at (r * 2 + c) * 128 bytes, of B^T at c * 128.
#include <cuda_fp16.h>

__device__ unsigned long long smem_descriptor(const void* p, unsigned lead_bytes, unsigned stride_bytes) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(p);
    unsigned long long d = 0;
    d |= (unsigned long long)((addr >> 4) & 0x3FFF);
    d |= (unsigned long long)((lead_bytes >> 4) & 0x3FFF) << 16;
    d |= (unsigned long long)((stride_bytes >> 4) & 0x3FFF) << 32;
    return d;  // swizzle mode 0 (none) in bits 62-63
}

extern "C" __global__ void __launch_bounds__(128) wgmma_m64n8k16(const __half* A, const __half* B, float* D) {
    __shared__ __align__(128) __half As[64 * 16];
    __shared__ __align__(128) __half Bs[8 * 16];
    int t = threadIdx.x;
    // A is row-major 64x16: element (m, k) goes to core matrix (m/8, k/8), row m%8, column k%8.
    for (int e = t; e < 64 * 16; e += 128) {
        int m = e / 16, k = e % 16;
        As[((m / 8) * 2 + (k / 8)) * 64 + (m % 8) * 8 + (k % 8)] = A[e];
    }
    // B is row-major 16x8 (K x N); store B^T (N x K) the same way, K-major.
    for (int e = t; e < 16 * 8; e += 128) {
        int k = e / 8, n = e % 8;
        Bs[(k / 8) * 64 + n * 8 + (k % 8)] = B[e];
    }
    // Generic-proxy stores must be made visible to the async proxy that wgmma reads with: each
    // thread fences its own stores, so the fence comes before the barrier that publishes them.
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    unsigned long long da = smem_descriptor(As, 128, 256);
    unsigned long long db = smem_descriptor(Bs, 128, 256);
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %6, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "l"(da), "l"(db), "r"(0));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    // Accumulator layout: warp w owns rows 16w..16w+15; lane l holds (row l/4, cols 2(l%4), +1)
    // and the same 8 rows further down.
    int warp = t / 32, lane = t % 32;
    int row = warp * 16 + lane / 4, col = 2 * (lane % 4);
    D[row * 8 + col] = d0;
    D[row * 8 + col + 1] = d1;
    D[(row + 8) * 8 + col] = d2;
    D[(row + 8) * 8 + col + 1] = d3;
}
