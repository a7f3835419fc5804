"""In the style of PyTorch's "Model ensembling" tutorial: several copies of a small MLP, their
weights stacked with stack_module_state, every model run at once with vmap over
functional_call, on a minibatch each and on one shared minibatch, checked against a loop."""
import minigrad as torch
import minigrad.nn as nn
import minigrad.nn.functional as F
from minigrad.func import functional_call, stack_module_state, vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(12, 16)
        self.fc2 = nn.Linear(16, 8)
        self.fc3 = nn.Linear(8, 3)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


num_models = 4
data = torch.randn(5, 16, 12)
minibatches = data[:num_models]
models = [SimpleMLP() for _ in range(num_models)]
minibatch = minibatches[0]
predictions1 = [model(minibatch) for model in models]
predictions_diff_minibatch_loop = [model(mb) for model, mb in zip(models, minibatches)]

params, buffers = stack_module_state(models)
print({name: p.shape for name, p in params.items()}, buffers)
print(params["fc1.weight"].requires_grad, params["fc1.weight"].is_leaf)
base_model = models[0]


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
print(predictions1_vmap.shape)
print(torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop),
                     atol=1e-3, rtol=1e-5))
predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
print(predictions2_vmap.shape)
print(torch.allclose(predictions2_vmap, torch.stack(predictions1), atol=1e-3, rtol=1e-5))
