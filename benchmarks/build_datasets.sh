#!/usr/bin/env bash
# Builds the poolgym Minari datasets (docs/datasets.md) under $MINARI_DATASETS_PATH (Minari's
# data path; default ~/.minari/datasets), one `poolgym collect` per set, and writes each
# run's figures (episodes, steps, seconds, size) to benchmarks/results/datasets/<set>.json.
# Needs the datasets extra (pip install 'poolgym[datasets]').
#   benchmarks/build_datasets.sh                 every set below
#   benchmarks/build_datasets.sh bot-fast pot-ball   only these sets
# EPISODES=N overrides every set's episode count (a quick trial). A set whose dataset
# exists is appended to (the env spec and agent are checked), with seeds after its own.
# An interrupted set (Ctrl-C) keeps its finished episodes; run the script again to go on.
set -euo pipefail
cd "$(dirname "$0")/.."
out=benchmarks/results/datasets
mkdir -p "$out"
nine="--env poolgym/NineBall-v1 --action-mode choice_discrete --observation-mode flat"
# The continuous choice mode: the bot's strokes as played (no bins), for Box policies; a pot's
# residual turns the object ball's line, so the throw correction is a number a network can fit.
nine_choice="--env poolgym/NineBall-v1 --action-mode choice --observation-mode flat --pot-residual object_ball"
# The canonical moves with the lookahead entry (eight noisy plays per stroke): what the
# lookahead-greedy agent reads, and what configs/train/nine_ball_bc_lookahead.yaml clones.
nine_lookahead="--env poolgym/NineBall-v1 --action-mode choice_canonical --observation-mode flat --lookahead-samples 8"

run_set() {  # name dataset-id default-episodes seed collect-arguments...
  local name=$1 id=$2 episodes=${EPISODES:-$3} seed=$4
  shift 4
  echo "== $name: $id, $episodes episodes" >&2
  poolgym collect --dataset-id "$id" --episodes "$episodes" --seed "$seed" "$@" --json "$out/$name.json"
}

sets=("$@")
all_sets="bot-fast pot-ball bot-fast-vs-bot-fast bot-strong bot-pro bot-pro-vs-bot-fast bot-pro-choice
          bot-pro-vs-bot-fast-choice lookahead-greedy lookahead-greedy-vs-bot-fast"
# shellcheck disable=SC2206 -- the names split on white space
[ ${#sets[@]} -gt 0 ] || sets=($all_sets)
for set in "${sets[@]}"; do
  case $set in
    # The bot's fast budget against the v1 opponent, in the recipes' mapping (MaskablePPO).
    bot-fast) run_set "$set" poolgym/nine-ball/bot-fast-v0 300 0 --agent bot:fast --opponent legal-random $nine ;;
    # The same bot against itself: racks a foul loses.
    bot-fast-vs-bot-fast) run_set "$set" poolgym/nine-ball/bot-fast-vs-bot-fast-v0 200 0 \
        --agent bot:fast --opponent bot:fast $nine ;;
    # The top rung of the ladder (about ten moves a second).
    bot-strong) run_set "$set" poolgym/nine-ball/bot-strong-v0 200 0 --agent bot:strong --opponent legal-random $nine ;;
    # The top rung, bot:pro (about three moves a second on an idle core), against legal-random
    # and against bot:fast: the data configs/train/nine_ball_bc_bot_pro.yaml clones.
    bot-pro) run_set "$set" poolgym/nine-ball/bot-pro-v0 300 0 --agent bot:pro --opponent legal-random $nine ;;
    bot-pro-vs-bot-fast) run_set "$set" poolgym/nine-ball/bot-pro-vs-bot-fast-v0 200 0 \
        --agent bot:pro --opponent bot:fast $nine ;;
    # The top rung in the continuous choice mode, against the same two opponents.
    bot-pro-choice) run_set "$set" poolgym/nine-ball/bot-pro-choice-v0 300 0 --agent bot:pro --opponent legal-random \
        $nine_choice ;;
    bot-pro-vs-bot-fast-choice) run_set "$set" poolgym/nine-ball/bot-pro-vs-bot-fast-choice-v0 500 0 \
        --agent bot:pro --opponent bot:fast $nine_choice ;;
    # The greedy reader of the lookahead features, against the same two opponents.
    lookahead-greedy) run_set "$set" poolgym/nine-ball/lookahead-greedy-v0 2000 0 --agent lookahead-greedy \
        --opponent legal-random $nine_lookahead ;;
    lookahead-greedy-vs-bot-fast) run_set "$set" poolgym/nine-ball/lookahead-greedy-vs-bot-fast-v0 2000 0 \
        --agent lookahead-greedy --opponent bot:fast $nine_lookahead ;;
    # The pot-ball drill: the ladder's fixed agent (the easiest pot, straight, medium speed).
    pot-ball) run_set "$set" poolgym/pot-ball/fixed-v0 2000 0 --agent fixed --env poolgym/PotBall-v1 \
        --action-mode choice_discrete --observation-mode flat ;;
    *) echo "unknown set $set; the sets are:" $all_sets >&2
       exit 2 ;;
  esac
done
