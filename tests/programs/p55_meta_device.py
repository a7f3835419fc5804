"""The meta device as PyTorch's docs use it: build a model without memory for its weights,
count its parameters and see the shapes a batch takes through it, then materialise it on the
CPU with to_empty, initialise it and train one step; and what a meta tensor refuses."""
import minigrad as torch
from minigrad import nn

torch.manual_seed(0)

with torch.device("meta"):
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 10))
print(model[0].weight)
print("parameters:", sum(p.numel() for p in model.parameters()))
print("all on meta:", all(p.is_meta for p in model.parameters()))

x = torch.empty(32, 64, device="meta")
for layer in model:
    x = layer(x)
    print(f"{type(layer).__name__:8s} -> {tuple(x.shape)} {x.device}")

loss = nn.functional.cross_entropy(x, torch.zeros(32, dtype=torch.long, device="meta"))
print(loss)
for attempt in (lambda: loss.item(), lambda: loss.tolist(), lambda: model.to("cpu")):
    try:
        attempt()
    except (RuntimeError, NotImplementedError) as error:
        print(type(error).__name__, "-", error)

model = model.to_empty(device="cpu")
for m in model:
    if isinstance(m, nn.Linear):
        m.reset_parameters()
print("on the cpu:", {str(p.device) for p in model.parameters()})
opt = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, labels = torch.randn(32, 64), torch.randint(0, 10, (32,))
before = nn.functional.cross_entropy(model(inputs), labels)
before.backward()
opt.step()
after = nn.functional.cross_entropy(model(inputs), labels)
print("loss went down:", bool(after < before))
