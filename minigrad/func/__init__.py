"""`minigrad.func`: PyTorch's function transforms (`torch.func`), on minigrad's autograd.

- `grad(f)`, `grad_and_value(f)`: the gradient of a scalar function (one backward pass);
- `vjp(f, *primals)`: the output and a function v ↦ vᵀJ (one backward pass per call);
- `jvp(f, primals, tangents)`: the output and J v (one forward-mode pass, dual numbers);
- `jacrev(f)`, `jacfwd(f)`: the whole Jacobian, row by row (reverse) or column by column
  (forward), through `vmap`, as PyTorch builds them; `hessian(f)` = jacfwd(jacrev(f));
- `vmap(f)`: f over a batch (batching rules where minigrad has them, else per sample);
- `functional_call(module, params, args)`: a module run with other parameters.

Each one composes with the others and with ordinary autograd (`grad(grad(f))`,
`vmap(grad(f))`, `jacfwd(jacrev(f))`), with PyTorch's signatures, results and errors.
"""

from minigrad.func.forward import jvp
from minigrad.func.functional_call import functional_call, stack_module_state
from minigrad.func.grads import grad, grad_and_value, vjp
from minigrad.func.jacobians import hessian, jacfwd, jacrev
from minigrad.func.vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "stack_module_state", "vjp", "vmap"]
