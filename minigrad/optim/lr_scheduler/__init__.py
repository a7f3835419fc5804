"""`minigrad.optim.lr_scheduler`: change each parameter group's `lr` as training goes on, with
PyTorch's schedulers, formulas (the same chainable updates, so the same floats) and warnings.

    scheduler = lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    for epoch in range(30):
        train(...)            # optimizer.step() inside
        scheduler.step()      # after optimizer.step(), as in PyTorch >= 1.1
"""

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

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR",
           "CosineAnnealingLR", "LinearLR", "OneCycleLR", "ReduceLROnPlateau"]
