"""Shared by the course tests: what the sandbox can do on this machine, required where a test
depends on it (skipped locally, failed under CI=true, like tests/conftest.py's `require`)."""

from __future__ import annotations

from typing import Any

import pytest

from minigrad.course import landlock
from minigrad.course.sandbox import Session
from tests.conftest import IN_CI


@pytest.fixture(scope="session")
def isolation() -> dict[str, Any]:
    """What a zygote of this machine reports: Landlock ABI, network namespace, root."""
    with Session() as session:
        return dict(session.info)


def require_isolation(info: dict[str, Any], landlock_abi: int = 6, netns: bool = False
                      ) -> None:
    """Skip (locally) or fail (CI) unless the sandbox has Landlock `landlock_abi` and, when
    asked, a network namespace of its own."""
    missing = []
    if info.get("landlock", 0) < landlock_abi:
        missing.append(f"Landlock ABI {landlock_abi} (this kernel: {landlock.abi()})")
    if netns and not info.get("netns"):
        missing.append("a network namespace (unshare)")
    if missing:
        reason = "the sandbox lacks " + " and ".join(missing)
        if IN_CI:
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
