"""Front end: libclang parsing with syncheck's shipped CUDA model headers."""
