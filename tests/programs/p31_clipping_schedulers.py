"""Training-loop tools a learner copies: gradient clipping by norm and by value, a learning-rate
schedule, optimizer state_dict, zero_grad(set_to_none=True)."""
import minigrad as torch
from minigrad import nn, optim

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
x, y = torch.randn(8, 3), torch.randn(8, 1)
lrs = []
for epoch in range(6):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean() * 100
    loss.backward()
    total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    norm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
    print(epoch, 'clipped to 1:', abs(norm.item() - 1.0) < 1e-5 or norm.item() < 1.0,
          total.shape, total.dtype)
    opt.step()
    lrs.append(sched.get_last_lr()[0])
    sched.step()
print(lrs)
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.01)
print(bool(model.weight.grad.abs().max() <= 0.01))
state = opt.state_dict()
print(list(state.keys()), list(state['param_groups'][0].keys())[:3], state['param_groups'][0]['params'])
print(sorted(state['state'].keys()), list(state['state'][0].keys()))
opt.zero_grad()
print(model.weight.grad)
cos = optim.lr_scheduler.CosineAnnealingLR(optim.SGD(model.parameters(), lr=1.0), T_max=4)
values = []
for _ in range(5):
    values.append(round(cos.get_last_lr()[0], 6))
    cos.optimizer.step()
    cos.step()
print(values)
