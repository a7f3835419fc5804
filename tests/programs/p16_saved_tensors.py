"""In the style of the saved-tensors-hooks tutorial: what a node saved (_saved_self,
_saved_result, _saved_other), and pack/unpack hooks that see every saved tensor."""
import minigrad as torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
y = a * b
print(y.grad_fn._saved_self is a, y.grad_fn._saved_other is b)
print(torch.equal(y.grad_fn._saved_self, a))
e = a.exp()
print(torch.equal(e.grad_fn._saved_result, e), e.grad_fn._saved_result is e)
p = a.pow(3)
print(p.grad_fn._saved_exponent, torch.equal(p.grad_fn._saved_self, a))
y.sum().backward()
try:
    y.grad_fn._saved_self
except RuntimeError as err:
    print("RuntimeError:", str(err).split("(")[0].strip())

packed = []


def pack_hook(x):
    packed.append(tuple(x.shape))
    return x


def unpack_hook(x):
    return x


x = torch.ones(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = x.pow(2)
print(packed)
y.sum().backward()
print(x.grad)

store = {}


def pack_to_dict(t):
    key = len(store)
    store[key] = t.clone()
    return key


def unpack_from_dict(key):
    return store[key]


x = torch.randn(4, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_to_dict, unpack_from_dict):
    y = (x * x).sum()
y.backward()
print(len(store), torch.allclose(x.grad, 2 * x))
