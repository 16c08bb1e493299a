#!/usr/bin/env bash
# Measures again every figure README.md quotes, into benchmarks/results/:
#   versions.txt       the commit, Python and package versions, CPU count the run used
#   *.json, *.md       the benchmark protocol's figures (run_v1_checks.sh: about an hour on two
#                      cores; WORKERS=N spreads its sweeps)
#   quickstart.txt     `poolgym quickstart` at its default budget, with its wall time
#   quickstart_65k.txt the same config trained for 65536 steps
#   notebooks.txt      the notebooks' test run, with its wall time
# Not measured here: the install sizes of the README's "Quickstart" (CUDA and CPU torch),
# which need PyTorch's own index. The quickstarts' run folders go to runs/readme/.
set -euo pipefail
cd "$(dirname "$0")/.."
out=benchmarks/results
runs=runs/readme
mkdir -p "$out" "$runs"

{
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "cpus $(nproc) $(uname -m)"
  python - <<'PY'
import platform
from importlib.metadata import PackageNotFoundError, version

print("python", platform.python_version())
for name in ("poolgym", "numpy", "gymnasium", "torch", "stable-baselines3", "sb3-contrib"):
    try:
        print(name, version(name))
    except PackageNotFoundError:
        print(name, "not installed")
PY
} > "$out/versions.txt"

bash benchmarks/run_v1_checks.sh

SECONDS=0
poolgym quickstart --out "$runs/quickstart" --no-progress > "$out/quickstart.txt"
echo "wall time: ${SECONDS} s" >> "$out/quickstart.txt"
poolgym quickstart --steps 65536 --out "$runs/quickstart_65k" --no-progress > "$out/quickstart_65k.txt"

SECONDS=0
python -m pytest tests/notebooks -q -p no:cacheprovider > "$out/notebooks.txt"
echo "wall time: ${SECONDS} s" >> "$out/notebooks.txt"
