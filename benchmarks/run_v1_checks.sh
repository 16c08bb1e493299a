#!/usr/bin/env bash
# Regenerates the benchmark-protocol figures the README quotes (benchmarks/results/*.json):
# the benchmark break's statistics, the sweeps of constant actions and the baseline table on
# poolgym/NineBall-v1. About an hour on two cores; WORKERS=N spreads the sweeps.
set -euo pipefail
cd "$(dirname "$0")/.."
out=benchmarks/results
workers=${WORKERS:-1}
mkdir -p "$out"
poolgym check-benchmark breaks -n 1000 --seed 0 --json "$out/breaks.json"
poolgym check-benchmark calibration -n 1000 --json "$out/break_calibration.json"
poolgym check-benchmark break-aim -n 500 --racks 200 --workers "$workers" --json "$out/sweep_break_aim.json"
poolgym check-benchmark break-raw -n 500 --racks 200 --workers "$workers" --json "$out/sweep_break_raw.json"
poolgym check-benchmark constant -n 500 --racks 100 --workers "$workers" --json "$out/sweep_constant.json"
poolgym baselines --racks 200 --workers "$workers" --json "$out/baselines.json" --markdown "$out/baselines.md"
