"""Shared test setup: external-tool requirements, the headless browser, hypothesis profiles.

Tests that need an outside tool say so, in any of these ways:

    def test_grads_match(torch_mod): ...          # fixture: the imported torch module
    def test_render(dot_bin): ...                 # fixture: path of graphviz's `dot`
    def test_page(browser): ...                   # fixture: a headless Chromium webdriver
    def test_nb(jupyter): ...                     # fixture: ipykernel, nbclient, nbformat
    @pytest.mark.torch / .dot / .browser / .jupyter  # marker alone: same requirement check
    torch = require("torch")                      # helper, anywhere in a test

When the tool is missing, the test is skipped locally but FAILS under CI=true, so CI can never
go green by skipping. `bash scripts/setup.sh` installs every tool.

Nothing here seeds numpy or any other global RNG: tests that need randomness make their own
`np.random.default_rng(seed)`.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import subprocess
import tempfile
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, settings

IN_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}

# ------------------------------------------------------------------ hypothesis profiles
# Both derive from hypothesis' "default" profile explicitly: hypothesis itself switches its
# defaults to its own CI profile whenever a CI variable is set at all (even CI=false), and a
# profile registered without a parent would inherit that. "ci" also drops the example database
# (fresh clone every run) and the too_slow health check (2 shared cores), as hypothesis' own does.
_default = settings.get_profile("default")
settings.register_profile(
    "ci",
    parent=_default,
    derandomize=True,
    deadline=None,
    print_blob=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", parent=_default, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if IN_CI else "dev"))


# ------------------------------------------------------------------ external tools
class Chromium(NamedTuple):
    chromium: str  # browser binary
    chromedriver: str  # matching driver binary


_SETUP_HINT = "run `bash scripts/setup.sh` (or `make setup`)"


def _find_torch() -> tuple[Any, str | None]:
    try:
        return importlib.import_module("torch"), None
    except ImportError as exc:
        return None, f"PyTorch is not importable ({exc}); {_SETUP_HINT}"


def _find_dot() -> tuple[Any, str | None]:
    path = shutil.which("dot")
    if path is None:
        return None, f"graphviz's `dot` binary is not on PATH (Debian: graphviz); {_SETUP_HINT}"
    return path, None


def _find_jupyter() -> tuple[Any, str | None]:
    missing = [m for m in ("ipykernel", "nbclient", "nbformat", "IPython")
               if importlib.util.find_spec(m) is None]
    if missing:
        return None, (f"notebook tests need {', '.join(missing)} (extra [dev]: a Jupyter "
                      f"kernel, and what runs notebooks in it); {_SETUP_HINT}")
    return importlib.import_module("nbclient"), None


def _find_chromium() -> tuple[Any, str | None]:
    missing = []
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None:
        missing.append("`chromium` (Debian: chromium)")
    if driver is None:
        missing.append("`chromedriver` (Debian: chromium-driver)")
    try:
        importlib.import_module("selenium")
    except ImportError:
        missing.append("the `selenium` Python package (extra [dev])")
    if not _has_chinese_font():  # the pages are tested in Chinese too: no tofu boxes
        missing.append("a Chinese font (Debian: fonts-noto-cjk)")
    if missing:
        return None, f"headless browser tests need {', '.join(missing)}; {_SETUP_HINT}"
    return Chromium(browser, driver), None


def _has_chinese_font() -> bool:
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    found = subprocess.run([fc_list, ":lang=zh", "family"], capture_output=True, text=True,
                           timeout=60)
    return bool(found.stdout.strip())


_FINDERS = {"torch": _find_torch, "dot": _find_dot, "chromium": _find_chromium,
            "jupyter": _find_jupyter}
_ALIASES = {"chromedriver": "chromium", "browser": "chromium", "graphviz": "dot"}


def require(tool: str) -> Any:
    """Return `tool` if present, else skip the test (locally) or fail it (under CI=true).

    tool: "torch" -> the torch module; "dot" -> path of the dot binary;
    "chromium" (or "chromedriver", "browser") -> Chromium(chromium=path, chromedriver=path);
    "jupyter" -> the nbclient module (ipykernel, nbformat and IPython importable too).
    """
    name = _ALIASES.get(tool, tool)
    if name not in _FINDERS:
        raise ValueError(f"require(): unknown tool {tool!r}; known: {sorted(_FINDERS)}")
    value, reason = _FINDERS[name]()
    if reason is not None:
        if IN_CI:
            pytest.fail(f"CI=true and a required tool is missing: {reason}", pytrace=False)
        pytest.skip(reason)
    return value


@pytest.fixture(scope="session")
def torch_mod():
    """The imported torch module (skip locally / fail in CI when missing)."""
    return require("torch")


@pytest.fixture(scope="session")
def dot_bin() -> str:
    """Path of graphviz's `dot` binary."""
    return require("dot")


@pytest.fixture(scope="session")
def jupyter() -> Any:
    """nbclient, with a Jupyter kernel (ipykernel) and nbformat installed."""
    return require("jupyter")


@pytest.fixture(scope="session")
def chromium_driver() -> Chromium:
    """Paths of the Chromium browser and its chromedriver (plus selenium importable)."""
    return require("chromium")


# Flags as used on the project machines: root needs --no-sandbox; the closed network makes
# Chromium's background services fail noisily without the networking flags.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
)


@pytest.fixture
def browser(chromium_driver: Chromium, tmp_path_factory):
    """A selenium webdriver on headless Chromium with a fresh profile; quit after the test."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-profile-", dir=tmp_path_factory.getbasetemp())
    options = webdriver.ChromeOptions()
    options.binary_location = chromium_driver.chromium
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(service=Service(chromium_driver.chromedriver), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


# ------------------------------------------------------------------ markers <-> fixtures
_MARKER_FOR_FIXTURE = {
    "torch_mod": "torch",
    "dot_bin": "dot",
    "chromium_driver": "browser",
    "browser": "browser",
    "jupyter": "jupyter",
}
_TOOL_FOR_MARKER = {"torch": "torch", "dot": "dot", "browser": "chromium", "jupyter": "jupyter"}


def pytest_collection_modifyitems(config, items):
    # A test using a tool fixture gets the tool's marker, so `-m "not torch"` deselects it.
    for item in items:
        for fixture in getattr(item, "fixturenames", ()):
            marker = _MARKER_FOR_FIXTURE.get(fixture)
            if marker is not None and item.get_closest_marker(marker) is None:
                item.add_marker(marker)


def pytest_runtest_setup(item):
    # A test carrying a tool marker needs the tool even if it uses no fixture.
    for marker, tool in _TOOL_FOR_MARKER.items():
        if item.get_closest_marker(marker) is not None:
            require(tool)
