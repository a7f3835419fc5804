"""`torch.backends.cudnn`'s switches (`deterministic = True`, `benchmark = False`): accepted,
as a CPU-only PyTorch accepts them; minigrad's numpy computes the same way whatever they say."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
