"""`torch.backends.mps`: Apple's GPU, not available to minigrad (numpy on the CPU)."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
