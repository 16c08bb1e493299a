"""Variants of the lookahead agents for ``poolgym baselines`` (agents named
``lookahead_variants:NAME`` with this folder on ``PYTHONPATH``): how their strength moves
with the plays per stroke and the strokes foreseen, NineBall-v1 protocol.

    PYTHONPATH=benchmarks poolgym baselines --agents lookahead_variants:clone_2,lookahead_variants:clone_4 \\
        --opponents bot:normal --racks 200 --seed 7777 --workers 2

- ``clone_N``: ``pretrained:nine_ball`` (trained on features of 8 plays) fed features of N plays;
- ``greedy_N``: ``lookahead-greedy`` over N plays per stroke;
- ``greedy_30_strokes``: ``lookahead-greedy`` (8 plays) over 30 strokes (speed bins 0-5 by
  vertical bins 0-4) instead of the observation's 9: the lookahead module's stroke set is
  swapped while it chooses, so play it against opponents that do not read the lookahead.
"""

from poolgym.agents.evaluation.loading import load_pretrained
from poolgym.agents.evaluation.protocol import protocol
from poolgym.envs.lookahead_agent import LookaheadGreedyAgent

_P = protocol("poolgym/NineBall-v1")


def _clone(plays: int):
    agent = load_pretrained("nine_ball", _P.rules, noise=_P.noise)
    agent.lookahead_samples = plays
    return agent


def _greedy(plays: int) -> LookaheadGreedyAgent:
    return LookaheadGreedyAgent(_P.rules, seed=0, max_speed=_P.max_speed, noise=_P.noise, samples=plays)


class _WiderStrokes:
    """``lookahead-greedy`` over ``strokes`` (the lookahead module's set while it chooses)."""

    def __init__(self, strokes) -> None:
        self.agent, self.strokes = _greedy(8), tuple(strokes)

    def choose(self, state):
        from poolgym.envs import lookahead

        shown, lookahead.STROKES = lookahead.STROKES, self.strokes
        try:
            return self.agent.choose(state)
        finally:
            lookahead.STROKES = shown


clone_2, clone_4, clone_16 = _clone(2), _clone(4), _clone(16)
greedy_16, greedy_32 = _greedy(16), _greedy(32)
greedy_30_strokes = _WiderStrokes((speed, vertical) for speed in range(6) for vertical in range(5))
