"""In the style of PyTorch's "Forward-mode Automatic Differentiation" tutorial: dual tensors
with make_dual and unpack_dual, a jvp through a function and through a module (by hand,
with functional_call, and with torch.func.jvp), and a custom Function with a jvp."""
import minigrad as torch
import minigrad.autograd.forward_ad as fwAD
import minigrad.nn as nn
from minigrad.func import functional_call, jvp

torch.manual_seed(0)
primal = torch.randn(10, 10)
tangent = torch.randn(10, 10)


def fn(x, y):
    return x ** 2 + y ** 2


with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    print(fwAD.unpack_dual(dual_input).tangent is tangent)
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    print(fwAD.unpack_dual(dual_input_alt).tangent is tangent)
    plain_tensor = torch.randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)
    jvp_out = fwAD.unpack_dual(dual_output).tangent
    print(jvp_out.shape, torch.allclose(jvp_out, 2 * primal * tangent))
print(fwAD.unpack_dual(dual_output).tangent)

model = nn.Linear(5, 5)
input = torch.randn(16, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(input)
    jvp_by_hand = fwAD.unpack_dual(out).tangent
expected = input @ tangents["weight"].T + tangents["bias"]
print(jvp_by_hand.shape, torch.allclose(jvp_by_hand, expected, atol=1e-6))

model = nn.Linear(5, 5)
dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp_functional = fwAD.unpack_dual(out).tangent
print(torch.allclose(jvp_functional, expected, atol=1e-6))


def func(params, input):
    return functional_call(model, params, input)


_, jvp_func = jvp(func, (params, input), (tangents, torch.zeros_like(input)))
print(torch.allclose(jvp_func, expected, atol=1e-6))


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


fn = Fn.apply
primal = torch.randn(10, 10, dtype=torch.double, requires_grad=True)
tangent = torch.randn(10, 10)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp_out = fwAD.unpack_dual(dual_output).tangent
print(torch.allclose(jvp_out, tangent * primal.exp()))
