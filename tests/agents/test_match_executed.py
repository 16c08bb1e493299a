"""A rack played under execution noise records each stroke as executed, and those strokes
replayed on a noiseless simulator give the same games."""

from dataclasses import replace

import numpy as np

from poolgym.envs.baseline_agents import make_baseline_agent
from poolgym.envs.play import simulate_move
from poolgym.physics import Simulator

from poolgym.agents.evaluation.match import play_rack
from poolgym.agents.evaluation.protocol import protocol


def test_executed_strokes_replay_the_noisy_rack_exactly():
    p = protocol("poolgym/NineBall-v1")
    assert p.noise == "tournament"
    agents = [make_baseline_agent("legal-random", p.rules, seed=s, max_speed=p.max_speed) for s in (1, 2)]
    rack = play_rack(p.rules, Simulator(p.rules.table, noise=p.noise), agents,
                     np.random.default_rng(5), breaker=0, max_moves=30)
    shots = [m for m in rack.moves if m.outcome is not None]
    assert shots
    clean = Simulator(p.rules.table)
    noisy_differs = False
    for m in shots:
        if m.executed is None:  # a placement no stroke could be played from
            continue
        noisy_differs |= m.executed != m.move.shot
        events, _ = simulate_move(clean, p.rules, m.state, replace(m.move, shot=m.executed), None, False)
        _, outcome = p.rules.apply_shot(m.state, m.move.call, events)
        assert outcome == m.outcome
        assert events.first_contact == m.first_contact
    # The noise moved the strokes, so the replay is not the agent's stroke played again.
    assert noisy_differs
