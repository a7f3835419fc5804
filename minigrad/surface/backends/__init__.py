"""`minigrad.backends`, as on a CPU-only PyTorch: `backends.cudnn`'s switches are accepted (and
change nothing), `backends.mps.is_available()` is False."""

from minigrad.surface.backends import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
