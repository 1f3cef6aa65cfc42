"""Reference kernels, packaged from reference_kernels/."""
