"""d2l's Learning Rate Scheduling chapter with PyTorch's schedulers: its train() tells a
built-in scheduler from a hand-written one by `scheduler.__module__`, then the factor,
multi-step, cosine and warm-up schedules, restarts, cycles, polynomial decay, chained and
sequential schedules, and ReduceLROnPlateau, each printed epoch by epoch."""
import minigrad as torch
from minigrad import nn
from minigrad.optim import lr_scheduler


def lrs(make, epochs=8, lr=0.5, **options):
    net = nn.Linear(2, 1)
    trainer = torch.optim.SGD(net.parameters(), lr=lr, **options)
    scheduler = make(trainer)
    seen = []
    for _ in range(epochs):
        trainer.step()
        seen.append(round(scheduler.get_last_lr()[0], 5))
        scheduler.step()
    return scheduler, seen


class SquareRootScheduler:  # d2l's own: not from lr_scheduler
    def __init__(self, lr=0.1):
        self.lr = lr

    def __call__(self, num_update):
        return self.lr * pow(num_update + 1.0, -0.5)


for make in (lambda t: lr_scheduler.MultiStepLR(t, milestones=[3, 6], gamma=0.5),
             lambda t: SquareRootScheduler()):
    scheduler = make(torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1))
    print(type(scheduler).__name__, scheduler.__module__ == lr_scheduler.__name__)
print(lr_scheduler.__name__.replace("minigrad", "torch"), lr_scheduler.StepLR.__module__)

print(lrs(lambda t: lr_scheduler.StepLR(t, step_size=2, gamma=0.5))[1])
print(lrs(lambda t: lr_scheduler.MultiStepLR(t, milestones=[3, 6], gamma=0.5))[1])
print(lrs(lambda t: lr_scheduler.ExponentialLR(t, gamma=0.9))[1])
print(lrs(lambda t: lr_scheduler.MultiplicativeLR(t, lambda epoch: 0.95))[1])
print(lrs(lambda t: lr_scheduler.CosineAnnealingLR(t, T_max=8, eta_min=0.01))[1])
print(lrs(lambda t: lr_scheduler.CosineAnnealingWarmRestarts(t, T_0=3, T_mult=2))[1])
print(lrs(lambda t: lr_scheduler.PolynomialLR(t, total_iters=6, power=2.0))[1])
print(lrs(lambda t: lr_scheduler.ConstantLR(t, factor=0.5, total_iters=3))[1])
warmup = lrs(lambda t: lr_scheduler.SequentialLR(t, schedulers=[
    lr_scheduler.LinearLR(t, start_factor=0.1, total_iters=3),
    lr_scheduler.CosineAnnealingLR(t, T_max=5)], milestones=[3]))
print(type(warmup[0]).__name__, warmup[1])
chained = lrs(lambda t: lr_scheduler.ChainedScheduler([
    lr_scheduler.ConstantLR(t, factor=0.5, total_iters=2),
    lr_scheduler.ExponentialLR(t, gamma=0.9)]))
print(chained[1])
print(lrs(lambda t: lr_scheduler.LambdaLR(t, lambda epoch: 1 / (epoch + 1)))[1])
cyclic = lrs(lambda t: lr_scheduler.CyclicLR(t, base_lr=0.1, max_lr=0.5, step_size_up=2),
             momentum=0.9)
print(cyclic[1], round(cyclic[0].optimizer.param_groups[0]["momentum"], 4))
one_cycle = lrs(lambda t: lr_scheduler.OneCycleLR(t, max_lr=1.0, total_steps=8))
print(one_cycle[1])

net = nn.Linear(2, 1)
trainer = torch.optim.SGD(net.parameters(), lr=1.0)
plateau = lr_scheduler.ReduceLROnPlateau(trainer, mode="min", factor=0.5, patience=1)
for val_loss in [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7]:
    plateau.step(val_loss)
    print(trainer.param_groups[0]["lr"], end=" ")
print()
print(plateau.state_dict()["best"], plateau.num_bad_epochs)
