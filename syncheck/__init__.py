"""syncheck: a static analyzer for CUDA synchronization bugs."""

__version__ = "0.1.0"
