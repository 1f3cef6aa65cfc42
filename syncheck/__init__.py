"""syncheck: a static analyzer for CUDA synchronization bugs."""

__version__ = "0.2.0"
