"""bot:pro with its two-shot values replaced by rollouts: does valuing a candidate by how the
rest of the inning goes (played out by bot:fast under the tournament noise) run out more
racks than its expectimax over the next shot?

``RolloutProBot`` keeps bot:pro's search (the strong candidates, the best ``top_k`` re-played
``noise_samples`` times with noise, the best ``lookahead`` of them valued deeper) and values
each of the first ``rollouts`` noisy outcomes of those by playing the inning on from it:
bot:fast chooses every shot, the table's noise executes it, until the rack is won
(``WIN``), the turn passes (then ``state_value`` of the position from the shooter's side)
or ``depth`` shots were played. Played as ``bot_pro_innings.py`` plays the breaker's
inning (the same racks, break and arguments; ``--bot`` takes ``rollouts`` and ``depth``
besides ProBot's search sizes):

    python benchmarks/archive/bot_pro_rollouts.py --rows '[[0.5493, 0.8775, 0.0, 8.0, 0.0]]' --racks 300 --seed 6 \\
        --bot '{"rollouts": 8}' --json benchmarks/archive/results/bot_pro_innings/rollouts_8_seed6.json
"""

from __future__ import annotations

import sys
from pathlib import Path

from poolgym.agents.bot.player import HeuristicBot
from poolgym.agents.bot.position import WIN, state_value
from poolgym.agents.bot.pro import ProBot
from poolgym.agents.bot.shot_search import Outcomes
from poolgym.envs.observations import actor
from poolgym.envs.play import simulate_move
from poolgym.physics import Simulator
from poolgym.rules import Decision, GameState

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling script that plays the innings
import bot_pro_innings  # noqa: E402


class RolloutProBot(ProBot):
    """bot:pro whose deeper values are rollouts by bot:fast (module docstring)."""

    def __init__(self, *args, rollouts: int = 8, depth: int = 10, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.rollouts, self.depth = rollouts, depth
        self.roller = HeuristicBot(self.rules, noise=self.noise, budget="fast", seed=0, max_speed=self.max_speed)
        self.simulator = Simulator(self.table, noise=self.noise)

    def reseed(self, seed) -> None:
        super().reseed(seed)
        self.roller.search.rng = self.search.rng

    def outcome_mean(self, outcomes: Outcomes, player: int) -> float:
        kept = range(min(self.rollouts, len(outcomes)))
        return sum(outcomes.values[i] if outcomes.ended[i] else self.rollout(outcomes.state(i), player)
                   for i in kept) / len(kept)

    def rollout(self, state: GameState, player: int) -> float:
        """The inning played on from ``state`` by bot:fast, valued for ``player``."""
        for _ in range(self.depth):
            if state.is_over or actor(state) != player:
                break
            move = self.roller.choose(state)
            if isinstance(move, Decision):
                state = self.rules.apply_decision(state, move)
                continue
            events, _ = simulate_move(self.simulator, self.rules, state, move, self.search.rng, False,
                                      state_checked=True)
            state, _ = self.rules.apply_shot(state, move.call, events)
        if state.is_over:
            return WIN if state.winner == player else -WIN
        return state_value(state, self.rules, player, self.search.sigma_deg)


def main(argv=None) -> int:
    return bot_pro_innings.main(argv, bot_class=RolloutProBot)


if __name__ == "__main__":
    raise SystemExit(main())
