#!/usr/bin/env bash
# Set up everything `make demo` / `make test` need. Idempotent; fast when all is in place.
#
#   bash scripts/setup.sh              # venv + .[dev,plot,compare] (dev: pytest, pytest-xdist,
#                                      #   hypothesis, ruff, selenium, a Jupyter kernel, nbclient)
#                                      #   + dot + chromium + chromedriver
#                                      #   + a Chinese font (fonts-noto-cjk)
#   bash scripts/setup.sh --demo-only  # venv + the package (numpy, graphviz) + dot
#
# The venv is .venv in the project root, made with the python3 on PATH. pip runs only when
# .venv/.stamp does not match pyproject.toml (and which top-level packages exist), or when
# the extras asked for were not installed yet. System tools come from Debian's packages.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

DEMO_ONLY=0
for arg in "$@"; do
    case "$arg" in
        --demo-only) DEMO_ONLY=1 ;;
        -h | --help)
            sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            echo "setup.sh: unknown argument: $arg (try --help)" >&2
            exit 2
            ;;
    esac
done

log() { echo "setup: $*"; }
warn() { echo "setup: WARNING: $*" >&2; }

VENV="$ROOT/.venv"
STAMP="$VENV/.stamp"
TORCH_VERSION="2.13.0"
WHEELS=/opt/wheels # where the project machines keep the torch CPU wheel

# ---------------------------------------------------------------- system tools (apt)
apt_pkgs=()
command -v dot >/dev/null 2>&1 || apt_pkgs+=(graphviz)
if [[ $DEMO_ONLY == 0 ]]; then
    command -v chromium >/dev/null 2>&1 || apt_pkgs+=(chromium)
    command -v chromedriver >/dev/null 2>&1 || apt_pkgs+=(chromium-driver)
    # The browser tests open Chinese pages (the player in zh): without a CJK font Chromium
    # draws boxes, and what the tests measure is not what a reader sees.
    if ! { command -v fc-list >/dev/null 2>&1 && fc-list :lang=zh family | grep -q .; }; then
        apt_pkgs+=(fonts-noto-cjk)
    fi
fi
if ((${#apt_pkgs[@]})); then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        log "apt-get install ${apt_pkgs[*]}"
        apt_log="$(mktemp)"
        if ! { apt-get update -qq &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_pkgs[@]}"; } \
            >"$apt_log" 2>&1; then
            cat "$apt_log" >&2
            echo "setup: apt-get install ${apt_pkgs[*]} failed" >&2
            exit 1
        fi
        rm -f "$apt_log"
    else
        warn "missing system tools; install them with:"
        warn "  sudo apt-get update && sudo apt-get install -y ${apt_pkgs[*]}"
        warn "continuing: tests that need them are skipped locally (and fail under CI=true)"
    fi
fi

# ---------------------------------------------------------------- virtualenv
if ! "$VENV/bin/python" -c '' >/dev/null 2>&1; then
    if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
        echo "setup: need python3 >= 3.10 on PATH (found: $(python3 --version 2>&1 || echo none))" >&2
        exit 1
    fi
    log "creating .venv with $(python3 --version 2>&1)"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
fi
PY="$VENV/bin/python"

# ---------------------------------------------------------------- python packages
want=()                  # extras wanted
modules=(numpy graphviz) # must be importable afterwards
if [[ $DEMO_ONLY == 0 ]]; then
    want+=(dev plot)   # (plot: matplotlib, for grad_report(...).plot() and its tests)
    modules+=(pytest xdist hypothesis selenium ruff matplotlib ipykernel nbclient nbformat)
    pytag="$("$PY" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
    if compgen -G "$WHEELS/torch-$TORCH_VERSION[+-]*$pytag*.whl" >/dev/null ||
        "$PY" -c "import importlib.metadata as m, sys; sys.exit(not m.version('torch').startswith('$TORCH_VERSION'))" 2>/dev/null; then
        want+=(compare)
        modules+=(torch torchviz)
    else
        warn "no local torch $TORCH_VERSION wheel for $pytag in $WHEELS: skipping the [compare] extra"
        warn "(any other torch is a multi-GB download); torch tests skip locally and fail under CI=true"
    fi
fi

# The stamp changes when pyproject.toml changes or a top-level package appears (the editable
# install maps top-level packages when it is made).
key="$(
    {
        cat pyproject.toml
        for d in minigrad compare; do [[ -f $d/__init__.py ]] && echo "pkg:$d"; done
        "$PY" -c 'import sys; print(sys.version)'
    } | sha256sum | cut -d' ' -f1
)"

stamp_ok() {
    [[ -f $STAMP ]] || return 1
    local stamp_key stamp_extras e
    stamp_key="$(sed -n 1p "$STAMP")"
    stamp_extras=" $(sed -n 2p "$STAMP") "
    [[ $stamp_key == "$key" ]] || return 1
    for e in "${want[@]}"; do
        [[ $stamp_extras == *" $e "* ]] || return 1
    done
    # cheap sanity check (find_spec does not import anything)
    "$PY" - "${modules[@]}" <<'PYEOF' || return 1
import importlib.util, sys
missing = [m for m in sys.argv[1:] if importlib.util.find_spec(m) is None]
sys.exit(1 if missing else 0)
PYEOF
}

if stamp_ok; then
    log "python packages up to date (.venv)"
else
    # keep every extra installed before, so that --demo-only does not shrink a full setup
    if [[ -f $STAMP && $(sed -n 1p "$STAMP") == "$key" ]]; then
        for e in $(sed -n 2p "$STAMP"); do
            [[ " ${want[*]} " == *" $e "* ]] || want+=("$e")
        done
    fi
    spec="."
    if ((${#want[@]})); then spec=".[$(IFS=,; echo "${want[*]}")]"; fi
    pip_args=(-q --disable-pip-version-check)
    [[ -d $WHEELS ]] && pip_args+=(--find-links "$WHEELS")
    log "pip install -e '$spec'"
    # (drop the machine pip config's notes about absent local index folders: pure noise)
    "$PY" -m pip install "${pip_args[@]}" -e "$spec" 2>&1 |
        { grep -v 'is ignored: it is neither a file nor a directory' || true; }
    printf '%s\n%s\n' "$key" "${want[*]}" >"$STAMP"
fi

log "ready"
