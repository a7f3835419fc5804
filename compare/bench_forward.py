"""The bench's forward-mode items: a JVP through the MLP, and Jacobians both ways.

- jvp: the directional derivative of the MLP's loss along a direction in its weights, by one
  forward-mode pass: numpy by hand (value and tangent of each layer, the 1.00x baseline),
  `minigrad.func.jvp` and `torch.func.jvp` on the same functional code and numbers.
- jacobians: `jacrev` and `jacfwd` of f(x) = tanh(W x) on a wide W (few outputs, many inputs)
  and a tall one (many outputs, few inputs), minigrad.func against torch.func. Reverse mode
  costs one backward pass per output row and forward mode one forward pass per input column:
  minigrad runs those passes one after another (its vmap has no batched backward or forward
  pass), so the passes show in its times; torch.func's vmap batches each set into one pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from compare import bench_peers as peers
from compare.bench_config import Config
from compare.bench_mlp import MLPData, mlp_data
from compare.bench_peers import Case, NotApplicable, Unavailable, same
from compare.bench_timing import Item, Row, interleaved, timed_item

ENGINES = ("numpy", "minigrad", "torch")  # (the others have no forward mode to compare)


def _tangents(d: MLPData, seed: int = 1) -> list[np.ndarray]:
    """A direction in the weights: one random tangent per weight and bias."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(a.shape, dtype=np.float32) for W, b in d.weights
            for a in (W, b)]


def jvp_numpy(d: MLPData) -> Case:
    """Value and tangent of each layer by hand: the loss and its derivative along the
    weights' direction in one pass."""
    params = [a for W, b in d.weights for a in (W, b)]
    tangents = _tangents(d)
    x, y = d.x, d.y
    rows = np.arange(len(y))
    last = len(params) // 2 - 1

    def run() -> tuple[float, float]:
        h, dh = x, None
        for i in range(last + 1):
            W, b, dW, db = params[2 * i], params[2 * i + 1], tangents[2 * i], tangents[2 * i + 1]
            z = h @ W + b
            dz = h @ dW + db if dh is None else dh @ W + h @ dW + db
            if i < last:
                mask = z > 0
                h, dh = z * mask, dz * mask
        m = z.max(axis=1, keepdims=True)
        e = np.exp(z - m)
        s = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(s[:, 0]) + m[:, 0] - z[rows, y]))
        dloss = float(np.mean(((e / s) * dz).sum(axis=1) - dz[rows, y]))
        return loss, dloss

    return Case(same(run))


def jvp_case(engine: str, d: MLPData) -> Case:
    if engine == "numpy":
        return jvp_numpy(d)
    if engine not in ("minigrad", "torch"):
        raise NotApplicable("n/a: no forward mode compared here")
    T = peers.load(engine)
    func = T.func if engine == "torch" else __import__("minigrad.func").func
    params = tuple(T.tensor(a) for W, b in d.weights for a in (W, b))
    tangents = tuple(T.tensor(t) for t in _tangents(d))
    x, y = T.tensor(d.x), T.tensor(d.y)

    def loss(*p: Any) -> Any:
        h = x
        for i in range(0, len(p), 2):
            h = h @ p[i] + p[i + 1]
            if i < len(p) - 2:
                h = h.relu()
        return T.nn.functional.cross_entropy(h, y)

    return Case(same(lambda: func.jvp(loss, params, tangents)), f"{engine}.func.jvp")


def item_jvp(cfg: Config) -> Item:
    sizes = "-".join(map(str, cfg.mlp_sizes))
    item = Item("jvp", f"JVP through the MLP {sizes}, batch {cfg.batch}: the loss and its "
                "derivative along a direction in the weights (one forward-mode pass)",
                "ms/step")
    data = mlp_data(cfg.mlp_sizes, cfg.batch)
    engines = [e for e in cfg.engines if e in ENGINES]
    return timed_item(item, Config(**{**cfg.__dict__, "engines": tuple(engines)}),
                      lambda e: jvp_case(e, data), cfg.jvp_repeats)


# -- Jacobians both ways ----------------------------------------------------------------------
def jacobian_case(engine: str, how: str, W: np.ndarray, x: np.ndarray) -> Case:
    T = peers.load(engine)
    func = T.func if engine == "torch" else __import__("minigrad.func").func
    Wt, xt = T.tensor(W), T.tensor(x)
    transform = getattr(func, how)
    f = transform(lambda x: (Wt @ x).tanh())
    return Case(same(lambda: f(xt)))


def item_jacobians(cfg: Config) -> Item:
    n, m = cfg.jacobian_sizes
    shapes = {f"wide {m}x{n}": (m, n), f"tall {n}x{m}": (n, m)}
    item = Item("jacobians", f"Jacobians both ways: jacrev and jacfwd of tanh(W x), wide ({m} "
                f"outputs of {n} inputs) and tall ({n} of {m})", "ms", ratios=False)
    item.notes.append(f"passes: jacrev one backward pass per output (wide {m}, tall {n}), "
                      f"jacfwd one forward-mode pass per input (wide {n}, tall {m}); minigrad "
                      "runs them one by one, torch.func's vmap as one batched pass")
    rng = np.random.default_rng(2)
    data = {name: ((rng.standard_normal(shape) / np.sqrt(shape[1])).astype(np.float32),
                   rng.standard_normal(shape[1], dtype=np.float32))
            for name, shape in shapes.items()}
    cases = {}
    for engine in (e for e in ("minigrad", "torch") if e in cfg.engines):
        for how in ("jacrev", "jacfwd"):
            try:
                for name, (W, x) in data.items():
                    cases[f"{engine} {how}|{name}"] = jacobian_case(engine, how, W, x)
            except Unavailable as exc:
                item.rows.append(Row(f"{engine} {how}", None, "unavailable", str(exc)))
    timed = interleaved(cases, cfg.jacobian_repeats)
    for key in list(timed)[::2]:
        label = key.split("|")[0]
        parts = [timed[f"{label}|{name}"] for name in shapes]
        bad = next((p for p in parts if p.status != "ok"), None)
        if bad is not None:
            item.rows.append(Row(label, None, bad.status, bad.note))
            continue
        item.rows.append(Row(label, parts[0].value, extra={
            f"{name} ms": p.value * 1e3 for name, p in zip(shapes, parts)}))
    return item


def faster_way(item: Item) -> dict[str, str]:
    """For each shape, which of minigrad's jacrev and jacfwd was faster in this run."""
    rows = {r.engine: r.extra for r in item.rows if r.status == "ok"}
    out = {}
    for name in (k for k in rows.get("minigrad jacrev", {})):
        rev, fwd = rows["minigrad jacrev"][name], rows.get("minigrad jacfwd", {}).get(name)
        if fwd is not None:
            out[name.removesuffix(" ms")] = "jacrev" if rev < fwd else "jacfwd"
    return out
