"""Variants of the lookahead agents for ``poolgym baselines`` (agents named
``lookahead_variants:NAME`` with this folder on ``PYTHONPATH``): how their strength moves
with the plays per stroke and the strokes foreseen, NineBall-v1 protocol.

    PYTHONPATH=benchmarks/archive poolgym baselines --agents lookahead_variants:clone_2,lookahead_variants:clone_4 \\
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


class _TwoShots:
    """``lookahead-greedy`` looking one shot further: its best ``top`` strokes are played
    again (the features' own plays: the same noise), and each play that keeps the table is
    valued by the best stroke the lookahead finds from where it left the cue ball (scaled
    to the next-chance term it replaces) instead of that shot's closed-form chance."""

    def __init__(self, top: int = 3) -> None:
        self.agent, self.top = _greedy(8), top

    def choose(self, state):
        import numpy as np

        from poolgym.envs import lookahead as la
        from poolgym.envs.candidates import best_pot_chance
        from poolgym.envs.lookahead_agent import FOUL_WEIGHT, MADE_WEIGHT, OPPONENT_WEIGHT, stroke_value
        from poolgym.envs.play import simulate_replays

        agent = self.agent
        if state.pending is not None or state.awaiting_break or state.is_over:
            return agent.choose(state)
        rules, sim, mapper = agent.rules, agent.simulator, agent.mapper
        slots = mapper.slots(state, rules)
        pots = [i for i, s in enumerate(slots[:la.LOOKAHEAD_SLOTS]) if s is not None and s.kind == "pot"]
        if not pots:
            return agent.choose(state)
        values = stroke_value(la.lookahead_features(state, rules, sim, mapper, agent.samples).reshape(
            la.LOOKAHEAD_SLOTS, len(la.STROKES), la.N_FEATURES))
        ranked = sorted(((values[i, j], i, j) for i in pots for j in range(len(la.STROKES))), reverse=True)
        best, chosen = -np.inf, None
        for _, i, j in ranked[:self.top]:
            move = mapper.play(slots[i], la.stroke_parameters(mapper, la.STROKES[j]), state)
            rng = np.random.default_rng(la.noise_seed(state, 0))
            total = 0.0
            for events, _ in simulate_replays(sim, rules, state, move, rng, agent.samples):
                after, outcome = rules.apply_shot(state, move.call, events, simulated=True)
                if outcome.rack_over:
                    total += (1.0 + MADE_WEIGHT) if outcome.winner == state.shooter else -1.0
                elif outcome.turn_kept:
                    total += MADE_WEIGHT + self._continuation(after)
                else:
                    total -= (OPPONENT_WEIGHT * best_pot_chance(after, rules, mapper.sigma_deg)
                              + FOUL_WEIGHT * bool(outcome.fouls))
            if total > best:
                best, chosen = total, move
        return chosen

    def _continuation(self, state) -> float:
        """The best stroke value the lookahead finds in ``state``, scaled to [0, 1]."""
        from poolgym.envs import lookahead as la
        from poolgym.envs.lookahead_agent import MADE_WEIGHT, stroke_value

        agent = self.agent
        slots = agent.mapper.slots(state, agent.rules)
        pots = [i for i, s in enumerate(slots[:la.LOOKAHEAD_SLOTS]) if s is not None and s.kind == "pot"]
        if not pots:
            return 0.0
        values = stroke_value(la.lookahead_features(state, agent.rules, agent.simulator, agent.mapper,
                                                    agent.samples).reshape(la.LOOKAHEAD_SLOTS, len(la.STROKES), -1))
        return min(1.0, max(0.0, float(values[pots].max()) / (1.0 + MADE_WEIGHT)))


greedy_two_shots = _TwoShots()


def _throw_corrected_mapper(agent: LookaheadGreedyAgent):
    """``agent``'s mapper with every pot stroke aimed as the bots aim theirs: played once
    without noise, and when the ball misses off its line (throw, spin), turned once by the
    error scaled back through the cut (``ShotSearch.aimed``)."""
    from dataclasses import replace

    from poolgym.agents.bot.shot_search import AIM_ERROR_TOLERANCE_DEG, object_ball_error
    from poolgym.aiming import aim_point, ghost_ball, stroke_per_object_ball_deg
    from poolgym.envs.choice import ChoiceMapper
    from poolgym.physics import Shot, Simulator

    base = agent.mapper
    simulator = Simulator(agent.rules.table, params=agent.simulator.params)
    table, radius = agent.rules.table, agent.rules.table.ball_radius

    class Corrected(ChoiceMapper):
        def play(self, slot, params, state):
            move = super().play(slot, params, state)
            if slot.kind != "pot" or move.shot.elevation_deg != 0.0:
                return move
            layout = state.positions if move.placement is None else {**state.positions, 0: move.placement}
            try:
                result = simulator.simulate(layout, move.shot)
            except ValueError:
                return move
            if slot.ball in result.pocketed:
                return move
            target = aim_point(table, slot.pocket)
            error = object_ball_error(result.events, slot.ball, target)
            if error is None or abs(error) < AIM_ERROR_TOLERANCE_DEG:
                return move
            cue, ball = layout[0], layout[slot.ball]
            turn = -error * stroke_per_object_ball_deg(cue, ghost_ball(ball, target, radius), ball, target, radius)
            shot = move.shot
            return replace(move, shot=Shot(shot.speed, (shot.angle_deg + turn) % 360.0, shot.side, shot.vertical))

    return Corrected(table, base.mode, max_speed=base.max_speed, sigma_deg=base.sigma_deg)


greedy_throw_corrected = _greedy(8)
greedy_throw_corrected.mapper = _throw_corrected_mapper(greedy_throw_corrected)
