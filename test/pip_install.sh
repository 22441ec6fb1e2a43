#!/usr/bin/env bash
# pip install --no-build-isolation . into a fresh venv created with
# --system-site-packages (no PyPI here), then import the installed package from
# outside the source tree and check a computation against PyTorch.
# The pip build uses its own folder next to the test build (same depth), so
# ccache serves its objects from the first build.
set -euo pipefail
src=$1
build=$2
python=${3:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"
export LT_PIP_BUILD_DIR="${build}-pip"
cd "$src"
if ! "$work/venv/bin/pip" install --no-build-isolation --no-deps --quiet . > "$work/pip.log" 2>&1; then
  cat "$work/pip.log"
  exit 1
fi
cd "$work"
LT_CACHE_DIR="$work/cache" "$work/venv/bin/python" - "$work" <<'PY'
import sys
import lazytensor
import torch

assert lazytensor.__file__.startswith(sys.argv[1]), "imported %s, not the installed package" % lazytensor.__file__
data = [[0.5, -1.0, 2.0], [3.0, 0.25, -0.75]]
got = (lazytensor.tensor(data) * 2 + 1).softmax(-1).sum(0).tolist()
want = (torch.tensor(data) * 2 + 1).softmax(-1).sum(0).tolist()
assert all(abs(a - b) < 1e-6 for a, b in zip(got, want)), (got, want)
print("pip-installed lazytensor at", lazytensor.__file__, "matches torch:", got)
PY
