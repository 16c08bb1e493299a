"""``pretrained:nine_ball`` with a search of its own: agents for ``poolgym baselines``
(named ``learned_search:NAME`` with this folder on ``PYTHONPATH``). They measure where the
shipped network stands against bot:normal when its choice is checked as the bots check
theirs, the learned agent "with search" of the issue's target (a learned agent, with or
without search, clear of bot:normal at no more seconds a move):

    PYTHONPATH=benchmarks/archive poolgym baselines --agents random,fixed,untrained:pretrained:nine_ball,\\
        learned_search:top_4x8,learned_search:top_8x8,learned_search:top_4x16,pretrained:nine_ball,bot:normal \\
        --opponents bot:normal --racks 200 --seed 7777 --workers 2

``top_KxN``: the network's K most likely shots (its action distribution within the masks,
``choice_canonical``) are each played N times under the noise on bot:normal's simulator, and
the one whose plays leave the best mean position for the shooter (the bots' ``state_value``,
as their re-check values a candidate) is played. Breaks, decisions and a distribution with
no shot among its K best are the network's own choice.
"""

import numpy as np

from poolgym.agents.bot import HeuristicBot
from poolgym.agents.evaluation.loading import load_pretrained
from poolgym.agents.evaluation.protocol import protocol
from poolgym.envs.actions import ShotMove
from poolgym.envs.opponents import _one_torch_thread

_P = protocol("poolgym/NineBall-v1")


class NetworkRechecked:
    """The network's ``top`` shots, each re-played ``samples`` times (module docstring)."""

    def __init__(self, top: int, samples: int) -> None:
        self.network = load_pretrained("nine_ball", _P.rules, noise=_P.noise)
        self.bot = HeuristicBot(_P.rules, noise=_P.noise, budget="normal", seed=0, max_speed=_P.max_speed)
        self.top, self.samples = top, samples

    def reseed(self, seed) -> None:
        self.bot.reseed(seed)

    def shots(self, state) -> list[ShotMove]:
        """The network's ``top`` most likely moves in ``state`` that are shots, likeliest first."""
        import torch

        net = self.network
        obs, info = net.observe(state)
        policy = net.policy.model.policy
        with _one_torch_thread(), torch.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            masks = np.asarray(info["action_masks"], dtype=bool)
            probs = policy.get_distribution(tensor, action_masks=masks).distribution.probs[0].numpy()
        allowed = np.flatnonzero(masks)
        ranked = allowed[np.argsort(-probs[allowed], kind="stable")][:self.top]
        moves = [net.mapper.decode(net.mapper.validate(np.int64(a)), state, _P.rules) for a in ranked]
        return [m for m in moves if isinstance(m, ShotMove)]

    def choose(self, state):
        if state.pending is not None or state.awaiting_break or state.is_over:
            return self.network.choose(state)
        shots = self.shots(state)
        if not shots:
            return self.network.choose(state)
        n = self.samples
        values = self.bot.search.outcomes(state, [m for m in shots for _ in range(n)]).values
        means = [sum(values[i * n:(i + 1) * n]) / n for i in range(len(shots))]
        return shots[int(np.argmax(means))]


top_4x8 = NetworkRechecked(4, 8)
top_8x8 = NetworkRechecked(8, 8)
top_4x16 = NetworkRechecked(4, 16)
