"""The Save and Load the Model tutorial and the general-checkpoint recipe as written today:
weights saved and loaded with weights_only=True, the whole model saved and loaded back with
weights_only=False (and refused by the default), a checkpoint dict holding the epoch, the
model's and the optimizer's state (Adam's step a tensor), resumed into fresh objects."""
import pickle

import minigrad as torch
from minigrad import nn


def Net():  # (built-in modules only: a whole model is pickled by its classes' import paths)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


torch.manual_seed(0)
model = Net()
x = torch.arange(15.0).reshape(5, 3) / 10
model(x)  # (a training step's forward: BatchNorm's running statistics move)
model.eval()
before = model(x)
torch.save(model.state_dict(), "model_weights.pth")
fresh = Net()
result = fresh.load_state_dict(torch.load("model_weights.pth", weights_only=True))
fresh.eval()
print(result, torch.equal(fresh(x), before), fresh[1].num_batches_tracked)

torch.save(model, "model.pth")
try:
    torch.load("model.pth")
except pickle.UnpicklingError as error:
    print(type(error).__name__, str(error).splitlines()[0])
whole = torch.load("model.pth", weights_only=False)
print(type(whole).__name__, whole.training, torch.equal(whole(x), model(x)),
      whole[1].num_batches_tracked)
print(whole)
model.train()

optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(3):
    optimizer.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
torch.save({"epoch": epoch, "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(), "loss": loss}, "checkpoint.tar")
checkpoint = torch.load("checkpoint.tar", weights_only=True)
print(sorted(checkpoint), checkpoint["epoch"], checkpoint["loss"].requires_grad)
state = checkpoint["optimizer_state_dict"]["state"][0]
print(state["step"], sorted(state), checkpoint["optimizer_state_dict"]["param_groups"][0]["lr"])
resumed, resumed_opt = Net(), None
resumed.load_state_dict(checkpoint["model_state_dict"])
resumed_opt = torch.optim.Adam(resumed.parameters(), lr=0.01)
resumed_opt.load_state_dict(checkpoint["optimizer_state_dict"])
resumed.train()
for opt, net in ((optimizer, model), (resumed_opt, resumed)):
    opt.zero_grad()
    net(x).pow(2).mean().backward()
    opt.step()
print("resumed in step:", torch.allclose(model[0].weight, resumed[0].weight),
      resumed_opt.state_dict()["state"][0]["step"])
torch.save([torch.arange(6.0)[::2], {"scale": 2.5}], "mixed.pt")
print(torch.load("mixed.pt", weights_only=True))
