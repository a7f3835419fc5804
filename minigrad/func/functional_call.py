"""`functional_call(module, params, args)`: a module run as a pure function of its weights.

The module's parameters and buffers named in `params` are swapped for the given tensors for
the length of one call, then put back (also when the call fails), so that `grad`, `vmap`
and `jacrev` can differentiate or batch a model with respect to its weights:
`grad(lambda p: loss(functional_call(model, p, (x,)), y))(dict(model.named_parameters()))`.
`stack_module_state(models)` stacks several models' weights for ensembling with vmap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from minigrad import ops

MISSING = object()


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """`module(*args, **kwargs)` with the named parameters and buffers replaced."""
    if isinstance(parameter_and_buffer_dicts, dict):
        given = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be "
                             "dictionaries")
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        repeated = [k for k in dict.fromkeys(keys) if keys.count(k) > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of "
                             "functional call is ambiguous")
        given = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(parameter_and_buffer_dicts)}")
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    kwargs = {} if kwargs is None else kwargs
    values = _untied(module, given) if tie_weights else dict(given)
    if strict:
        _check_keys(module, values)
    originals: dict[str, Any] = {}
    try:
        for name, value in values.items():
            originals[name] = _swap(module, name, value)
        return module(*args, **kwargs)
    finally:
        for name, value in reversed(originals.items()):
            _swap(module, name, value)


def _named_tensors(module: Any) -> dict[str, Any]:
    """Every parameter and buffer by its full name, tied ones under each of their names."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers())
    return named


def _untied(module: Any, given: dict) -> dict:
    """`given`, with a value for one name of a tied tensor given to all its names."""
    names_of: dict[int, set] = {}
    for name, t in _named_tensors(module).items():
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    out = dict(given)
    for name in [n for n in given if n in tied]:
        if len(tied[name] & given.keys()) > 1 and len(
                {id(given[n]) for n in tied[name] if n in given}) != 1:
            raise ValueError(f"functional_call got multiple values for keys "
                             f"{sorted(tied[name])}, which are tied. Consider using "
                             "tie_weights=False")
        for other in tied[name]:
            out[other] = given[name]
    return out


def _check_keys(module: Any, values: dict) -> None:
    valid = set(_named_tensors(module))
    missing, unexpected = sorted(valid - values.keys()), sorted(values.keys() - valid)
    errors = []
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t"
                           + "\n\t".join(errors))


def _swap(module: Any, name: str, value: Any) -> Any:
    """Put `value` under the dotted `name`; return what was there (MISSING: nothing)."""
    *path, leaf = name.split(".")
    owner = module
    for part in path:
        owner = getattr(owner, part)
    for table in (owner._parameters, owner._buffers):
        if leaf in table:
            old = table[leaf]
            if value is MISSING:
                del table[leaf]
            else:
                table[leaf] = value
            return old
    old = owner.__dict__.get(leaf, MISSING)  # a name the module does not know: an attribute
    if value is MISSING:
        owner.__dict__.pop(leaf, None)
    else:
        owner.__dict__[leaf] = value
    return old


def stack_module_state(models: Any) -> tuple[dict, dict]:
    """(parameters, buffers) of same-class models, each stacked along a new dim 0: new
    leaves (requiring grad where the models' do), for `vmap(functional_call ...)`."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = [dict(m.named_parameters()) for m in models]
    buffers = [dict(m.named_buffers()) for m in models]
    return ({k: _stacked([p[k] for p in params], k) for k in params[0]},
            {k: _stacked([b[k] for b in buffers], k) for k in buffers[0]})


def _stacked(tensors: list, name: str) -> Any:
    flags = {t.requires_grad for t in tensors}
    if len(flags) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = ops.stack([t.detach() for t in tensors])
    return result.requires_grad_() if flags == {True} else result
