#!/usr/bin/env bash
# Measures again every figure README.md quotes, into benchmarks/results/:
#   versions.txt       the commit, Python and package versions, CPU count the run used
#   *.json, *.md       the benchmark protocol's figures (run_v1_checks.sh: about an hour on two
#                      cores; WORKERS=N spreads its sweeps)
#   quickstart.txt     `poolgym quickstart` at its default budget, with its wall time
#   quickstart_65k.txt the same config trained for 65536 steps
#   notebooks.txt      the notebooks' test run, with its wall time
#   agent_baselines.*  each agent against legal-random and bot:fast, 200 racks (~30 min)
#   rack_losses.*, stroke_fouls.*  how the shipped agent loses racks and fouls by stroke speed
#   bot_jump.*         the bot's jumps and kicks from 2000 blocked positions (~10 min)
#   soak_elevation_*   the soak with a raised cue (a few minutes); speed_elevation.txt the
#                      simulator beside 5dddd4b, the commit before the elevated cue
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
poolgym quickstart --out "$runs/quickstart" --replace --no-progress > "$out/quickstart.txt"
echo "wall time: ${SECONDS} s" >> "$out/quickstart.txt"
poolgym quickstart --steps 65536 --out "$runs/quickstart_65k" --replace --no-progress > "$out/quickstart_65k.txt"

SECONDS=0
python -m pytest tests/notebooks -q -p no:cacheprovider > "$out/notebooks.txt"
echo "wall time: ${SECONDS} s" >> "$out/notebooks.txt"

poolgym baselines --agents random,legal-random,fixed,untrained:pretrained:nine_ball,pretrained:nine_ball,bot:weak,bot:fast,bot:normal --opponents legal-random,bot:fast --racks 200 --workers "${WORKERS:-2}" --json "$out/agent_baselines.json" --markdown "$out/agent_baselines.md"
python benchmarks/rack_losses.py --agents pretrained:nine_ball,fixed,bot:weak,bot:fast --racks 200 --max-speed 5.5 --json "$out/rack_losses.json" --markdown "$out/rack_losses.md"
python benchmarks/stroke_fouls.py --agents pretrained:nine_ball,fixed,bot:fast --racks 100 --json "$out/stroke_fouls.json" --markdown "$out/stroke_fouls.md"
poolgym bench-jump --positions 2000 --budget normal --noise tournament --seed 0 --max-speed 12 --json "$out/bot_jump.json" --markdown "$out/bot_jump.md"
poolgym soak --shots 25000 --seed 0 --elevation 80 --json "$out/soak_elevation_seed0.json" --no-progress
poolgym soak --shots 25000 --seed 1 --elevation 80 --json "$out/soak_elevation_seed1.json" --no-progress
poolgym soak --shots 25000 --seed 2 --elevation 80 --json "$out/soak_elevation_seed2.json" --no-progress
poolgym soak --shots 25000 --seed 3 --elevation 80 --json "$out/soak_elevation_seed3.json" --no-progress
poolgym soak --shots 0 --games 500 --elevated-games --max-steps 300 --seed 1 --json "$out/soak_elevation_games.json" --no-progress
poolgym bench --compare 5dddd4b --reps 3 > "$out/speed_elevation.txt"
