"""The saved-tensors-hooks tutorial's printing hooks, run over a small chain: which tensors
each op packs and in which order (a product packs its second factor first), the order the
backward pass unpacks them, the hooks of the _raw_saved_ handles, saving to disk and back
through torch.save/torch.load, and save_on_cpu."""
import uuid

import minigrad as torch


def pack_hook(x):
    print("Packing", x)
    return x


def unpack_hook(x):
    print("Unpacking", x)
    return x


a = torch.ones(3, requires_grad=True)
b = torch.ones(3, requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
    y = a * b
    z = (y.exp() * a).sin()
print("forward done")
z.sum().backward()
print(a.grad)

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = x.pow(2)
w.grad_fn._raw_saved_self.register_hooks(lambda t: t * 10, lambda t: t / 10)
w.sum().backward()
print(x.grad)


class SelfDeletingTempFile:
    def __init__(self):
        self.name = f"saved_{uuid.uuid4().hex}.pt"


def pack_to_disk(tensor):
    temp_file = SelfDeletingTempFile()
    torch.save(tensor, temp_file.name)
    return temp_file


def unpack_from_disk(temp_file):
    return torch.load(temp_file.name, weights_only=True)


x = torch.randn(5, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_to_disk, unpack_from_disk):
    y = x.pow(2).sin()
y.sum().backward()
print("from disk:", torch.allclose(x.grad, 2 * x * x.pow(2).cos()))

x.grad = None
with torch.autograd.graph.save_on_cpu(pin_memory=False):
    y = (x * x).tanh()
y.sum().backward()
print("save_on_cpu:", torch.allclose(x.grad, 2 * x * (1 - y.detach() ** 2), atol=1e-6))
with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            pass
    except RuntimeError as error:
        print(error)
