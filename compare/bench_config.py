"""What `python -m compare bench` runs: the sizes and repeats of every work item, and which
items and engines (`Config.quick()` and `Config.tiny()` make smaller runs)."""

from __future__ import annotations

from dataclasses import dataclass

from compare.bench_peers import ENGINES


@dataclass
class Config:
    """Sizes and repeats of every work item (`quick()` and `tiny()` make smaller ones)."""

    mlp_sizes: tuple = (784, 256, 256, 10)
    batch: int = 128
    mlp_repeats: int = 150  # (a step is short and noisy: many samples for a steady median)
    chain_n: int = 1000
    chain_width: int = 16
    chain_repeats: int = 80
    deep_n: int = 100_000
    deep_repeats: int = 5
    huge_n: int | None = 1_000_000  # minigrad alone, once; None skips it
    explain_n: int = 10_000
    explain_repeats: int = 3
    memory_steps: tuple = (10, 100)
    fan_in_n: int = 10_000
    fan_in_repeats: int = 7
    items: tuple = ()  # empty: every item
    engines: tuple = ENGINES
    json_path: str | None = None
    cnn_batch: int = 64  # the LeNet step (bench_cnn.py)
    cnn_repeats: int = 30
    jvp_repeats: int = 30  # the JVP through the MLP (bench_forward.py)
    jacobian_sizes: tuple = (256, 4)  # (many, few): wide is few x many, tall many x few
    jacobian_repeats: int = 7

    @classmethod
    def quick(cls) -> Config:
        return cls(mlp_repeats=10, chain_repeats=7, deep_n=20_000, deep_repeats=1, huge_n=None,
                   explain_repeats=1, fan_in_n=2_000, fan_in_repeats=5, cnn_repeats=7,
                   jvp_repeats=7, jacobian_sizes=(128, 4), jacobian_repeats=3)

    @classmethod
    def tiny(cls) -> Config:
        """For the smoke test: every code path, a fraction of a second of work."""
        return cls(mlp_sizes=(12, 8, 8, 3), batch=4, mlp_repeats=2, chain_n=30, chain_repeats=2,
                   deep_n=3000, deep_repeats=1, huge_n=5000, explain_n=40, explain_repeats=1,
                   memory_steps=(2, 4), fan_in_n=50, fan_in_repeats=1, cnn_batch=2,
                   cnn_repeats=1, jvp_repeats=2, jacobian_sizes=(8, 2), jacobian_repeats=1)
