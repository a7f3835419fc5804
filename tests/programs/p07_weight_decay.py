"""In the style of d2l's weight decay section: an L2 penalty by hand, then weight_decay in an
SGD parameter group, and the norm of the weights."""
import minigrad as torch
from minigrad import nn

torch.manual_seed(0)
n_train, num_inputs = 20, 50
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05
X = torch.normal(0, 1, (n_train, num_inputs))
y = torch.matmul(X, true_w) + true_b


def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2


w = torch.normal(0, 1, size=(num_inputs, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
start = w.norm().item()
for epoch in range(50):
    l = ((X @ w + b - y) ** 2 / 2).mean() + 3 * l2_penalty(w)
    l.backward()
    with torch.no_grad():
        for param in (w, b):
            param -= 0.01 * param.grad
            param.grad.zero_()
print('norm shrank:', torch.norm(w).item() < start)

net = nn.Sequential(nn.Linear(num_inputs, 1))
for param in net.parameters():
    param.data.normal_()
loss = nn.MSELoss(reduction='none')
trainer = torch.optim.SGD([
    {"params": net[0].weight, 'weight_decay': 3},
    {"params": net[0].bias}], lr=0.01)
print(len(trainer.param_groups), trainer.param_groups[0]['weight_decay'],
      trainer.param_groups[1]['weight_decay'])
before = net[0].weight.norm().item()
for epoch in range(50):
    trainer.zero_grad()
    l = loss(net(X), y)
    l.mean().backward()
    trainer.step()
print('weight norm shrank:', net[0].weight.norm().item() < before)
