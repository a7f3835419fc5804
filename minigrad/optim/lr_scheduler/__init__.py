"""`minigrad.optim.lr_scheduler`: change each parameter group's `lr` as training goes on, with
PyTorch's schedulers, formulas (the same chainable updates, so the same floats) and warnings.

    scheduler = lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    for epoch in range(30):
        train(...)            # optimizer.step() inside
        scheduler.step()      # after optimizer.step(), as in PyTorch >= 1.1
"""

from minigrad.optim.lr_scheduler.combined import ChainedScheduler, SequentialLR
from minigrad.optim.lr_scheduler.cyclic import CyclicLR
from minigrad.optim.lr_scheduler.factors import (
    ConstantLR,
    CosineAnnealingWarmRestarts,
    MultiplicativeLR,
    PolynomialLR,
)
from minigrad.optim.lr_scheduler.one_cycle import OneCycleLR
from minigrad.optim.lr_scheduler.plateau import ReduceLROnPlateau
from minigrad.optim.lr_scheduler.schedules import (
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearLR,
    LRScheduler,
    MultiStepLR,
    StepLR,
)

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR",
           "ConstantLR", "LinearLR", "ExponentialLR", "SequentialLR", "CosineAnnealingLR",
           "ChainedScheduler", "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts",
           "OneCycleLR", "PolynomialLR"]

# PyTorch keeps every scheduler in one file, torch/optim/lr_scheduler.py, and programs test it:
# d2l's `train` steps a scheduler whose `__module__ == lr_scheduler.__name__` and calls any
# other one. minigrad's schedulers live in the files above, so they say this module is theirs.
for _name in __all__:
    globals()[_name].__module__ = __name__
del _name
