"""``run_match(..., racks_at_once=N)``: racks played side by side, a network's moves of all
of them chosen in one call, are the racks played one at a time."""

import gymnasium as gym
import pytest
from sb3_contrib import MaskablePPO

from poolgym.agents.evaluation import evaluate as match_module
from poolgym.agents.evaluation.evaluate import run_match
from poolgym.agents.evaluation.loading import load_pretrained, make_agent
from poolgym.agents.evaluation.protocol import protocol
from poolgym.agents.training.train_curves import model_agent
from poolgym.envs.sb3_models import env_record

P = protocol("poolgym/NineBall-v1")
NINE = {"obs_mode": "flat", "action_mode": "choice_discrete"}


def _network(seed: int, deterministic: bool = True):
    """An untrained MaskablePPO network in choice_discrete, as an agent on states."""
    env = gym.make("poolgym/NineBall-v1", **NINE)
    try:
        model = MaskablePPO("MlpPolicy", env, seed=seed, policy_kwargs={"net_arch": [32, 32]})
        record = env_record(env, "poolgym/NineBall-v1", NINE)
    finally:
        env.close()
    return model_agent(model, record, P.rules, deterministic, P.noise)


def _played(match) -> list:
    """Everything of a match's racks but the agents' thinking times."""
    return [(r.breaker, r.winner, r.end_reason, r.final,
             [(m.player, m.move, m.state, m.outcome, m.first_contact, m.illegal, m.executed) for m in r.moves])
            for r in match.racks]


def _both(agents, racks, at_once: int, seed: int = 3):
    shown = {1: [], at_once: []}
    matches = {n: run_match(P.rules, agents, ("a", "b"), racks, seed=seed, noise=P.noise,
                            progress=lambda done, total, n=n: shown[n].append((done, total)), racks_at_once=n)
               for n in (1, at_once)}
    return matches[1], matches[at_once], shown


@pytest.mark.parametrize("opponent, racks, at_once", [("legal-random", 14, 5), ("bot:weak", 6, 4), ("fixed", 9, 16)])
def test_racks_side_by_side_are_the_racks_played_one_at_a_time(opponent, racks, at_once):
    agents = [_network(11), make_agent(opponent, P.rules, seed=4, noise=P.noise, max_speed=P.max_speed)]
    one, side_by_side, shown = _both(agents, racks, at_once)
    assert _played(side_by_side) == _played(one)
    assert len({len(r.moves) for r in one.racks}) > 1  # racks of several lengths: they ended out of order
    assert shown[1] == shown[at_once] == [(k, racks) for k in range(1, racks + 1)]
    assert all(m.think_s > 0 for r in side_by_side.racks for m in r.moves)


def test_a_network_on_both_sides_and_the_shipped_network_with_its_lookahead():
    network = _network(12)
    one, side_by_side, _ = _both([network, network], 5, 3)
    assert _played(side_by_side) == _played(one)
    shipped = load_pretrained("nine_ball", P.rules, noise=P.noise)
    legal_random = make_agent("legal-random", P.rules, seed=2, noise=P.noise, max_speed=P.max_speed)
    one, side_by_side, _ = _both([legal_random, shipped], range(20, 26), 4)
    assert _played(side_by_side) == _played(one)


def test_agents_that_do_not_choose_many_play_one_rack_at_a_time(monkeypatch):
    monkeypatch.setattr(match_module, "_racks_side_by_side", lambda *a: pytest.fail("played side by side"))
    sampling = _network(13, deterministic=False)
    assert not sampling.batchable
    for a in (sampling, make_agent("bot:weak", P.rules, seed=1, noise=P.noise)):
        legal_random = make_agent("legal-random", P.rules, seed=2, noise=P.noise)
        assert len(run_match(P.rules, [a, legal_random], ("a", "b"), 2, noise=P.noise, racks_at_once=8).racks) == 2


@pytest.mark.parametrize("racks_at_once", [0, -1, 1.5, True])
def test_a_bad_racks_at_once_is_refused_in_one_line(racks_at_once):
    agents = [make_agent("fixed", P.rules), make_agent("fixed", P.rules)]
    with pytest.raises(ValueError, match="racks_at_once must be"):
        run_match(P.rules, agents, ("a", "b"), 2, racks_at_once=racks_at_once)
