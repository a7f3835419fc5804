"""`torch.backends.cuda`: not built into minigrad (numpy on the CPU)."""


def is_built() -> bool:
    return False
