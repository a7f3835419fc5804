"""In the style of PyTorch's "Per-sample-gradients" tutorial: a small MLP, the gradient of each
sample's loss with a loop over the batch, then all at once with vmap(grad(...)) over
functional_call, and the two compared."""
import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.func import functional_call, grad, vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return self.fc2(x)


batch_size = 6
data = torch.randn(batch_size, 8, dtype=torch.float64)
targets = torch.randint(4, (batch_size,))
model = SimpleMLP().double()


def loss_fn(predictions, targets):
    return F.cross_entropy(predictions, targets)


def compute_grad(sample, target):
    sample = sample.unsqueeze(0)
    target = target.unsqueeze(0)
    prediction = model(sample)
    loss = loss_fn(prediction, target)
    return torch.autograd.grad(loss, list(model.parameters()))


def compute_sample_grads(data, targets):
    sample_grads = [compute_grad(data[i], targets[i]) for i in range(batch_size)]
    sample_grads = zip(*sample_grads)
    return [torch.stack(shards) for shards in sample_grads]


per_sample_grads = compute_sample_grads(data, targets)
print([g.shape for g in per_sample_grads])

params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    predictions = functional_call(model, (params, buffers), (batch,))
    return loss_fn(predictions, targets)


ft_compute_grad = grad(compute_loss)
ft_compute_sample_grad = vmap(ft_compute_grad, in_dims=(None, None, 0, 0))
ft_per_sample_grads = ft_compute_sample_grad(params, buffers, data, targets)
for name, per_sample_grad in zip(ft_per_sample_grads, per_sample_grads):
    ft_per_sample_grad = ft_per_sample_grads[name]
    print(name, ft_per_sample_grad.shape, ft_per_sample_grad.requires_grad,
          torch.allclose(per_sample_grad, ft_per_sample_grad, atol=1e-6, rtol=1e-6))
mean_grad = torch.autograd.grad(loss_fn(model(data), targets), list(model.parameters()))
print(all(torch.allclose(g.mean(0), m) for g, m in zip(ft_per_sample_grads.values(), mean_grad)))
