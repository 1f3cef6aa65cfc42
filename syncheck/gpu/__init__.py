"""`syncheck gpu`: validate, compile, run and check the reference kernels on a GPU."""
