/* syncheck: an empty stand-in for the cuRAND header that clang's CUDA wrapper
   (__clang_cuda_runtime_wrapper.h) includes. It is searched last (-idirafter), so a
   toolkit's own copy wins; the CUDA wheels syncheck uses do not ship cuRAND. */
