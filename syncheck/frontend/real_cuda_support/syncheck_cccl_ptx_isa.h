/* Included first in syncheck's parses with the real CUDA headers (never compiled). The
   CUDA 12.3 headers that clang 18 can load make CCCL target PTX ISA 8.3, which hides the
   cuda::ptx overloads nvcc 12.8 and later offer (cp_async_bulk to shared::cta, ...): code
   written for them failed to parse. CCCL's own PTX ISA is fixed here to that of nvcc 12.8+. */
#if defined(__CUDA__) && defined(__cplusplus) && __has_include(<cuda/std/__cccl/ptx_isa.h>)
#  include <cuda/std/__cccl/ptx_isa.h>
#  if defined(__cccl_ptx_isa) && __cccl_ptx_isa < 870ULL
#    undef __cccl_ptx_isa
#    define __cccl_ptx_isa 870ULL
#  endif
#endif
