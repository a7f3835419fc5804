# What torchviz's make_dot reads, by hand: the README's model, its graph walked through grad_fn
# and next_functions, and what each node saved (`_saved_*`, as `show_attrs=True` shows it).
import minigrad as torch
from minigrad import nn
from minigrad.autograd import Variable

model = nn.Sequential()
model.add_module("W0", nn.Linear(8, 16))
model.add_module("tanh", nn.Tanh())
model.add_module("W1", nn.Linear(16, 1))

x = torch.randn(1, 8)
y = model(x)
params = dict(model.named_parameters())
print("every parameter a Variable:", all(isinstance(p, Variable) for p in params.values()))
names = {id(p): name for name, p in params.items()}


def describe(value):
    if torch.is_tensor(value):
        return f"[saved tensor] {tuple(value.shape)}"
    if isinstance(value, tuple) and any(torch.is_tensor(v) for v in value):
        return "[saved tensors]"
    return str(value)


seen = set()
stack = [(y.mean().grad_fn, 0)]
while stack:
    fn, depth = stack.pop()
    if fn in seen:
        continue
    seen.add(fn)
    leaf = getattr(fn, "variable", None)
    label = type(fn).__name__
    if leaf is not None:
        label += f" -> {names[id(leaf)]} {tuple(leaf.shape)}"
    print("  " * depth + label)
    for attr in dir(fn):
        if attr.startswith("_saved_"):
            print("  " * depth + f"  {attr[len('_saved_'):]}: {describe(getattr(fn, attr))}")
    for nxt, _ in reversed(fn.next_functions):
        if nxt is not None:
            stack.append((nxt, depth + 1))
