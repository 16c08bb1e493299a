"""One game, one truth: table ``i`` of ``gym.make_vec(id, num_envs=N)`` (``BatchedPoolEnv``),
reset with seed ``s_i`` and given actions ``a_i``, gives exactly what ``gym.make(id)`` gives
from ``s_i`` and ``a_i``: observations (bitwise), rewards, terminations, truncations and
the info facts (every shot's ``Outcome``: fouls with their WPA sections, balls pocketed;
racks won, who is to act), across autoresets (``NEXT_STEP``, as ``SyncVectorEnv``)."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import poolgym  # noqa: F401
from poolgym.envs.batched import BatchedPoolEnv, BatchedPotBallEnv
from poolgym.envs.batched_check import BatchedMismatch, play_side_by_side, same_info, table_info


def _play_both(env_id: str, seeds: list[int], steps: int, policy: str, max_episode_steps: int | None = None,
               **kwargs) -> int:
    """``play_side_by_side``: every table equal to its single env; the episode ends met."""
    return play_side_by_side(env_id, seeds, steps, policy, max_episode_steps, **kwargs)["episode_ends"]


def test_an_opponent_object_is_copied_for_each_table():
    # One object shared by the tables would be reseeded by every table's reset and draw for
    # all of them in turn: no table would play its single env's game.
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.rules import get_ruleset

    rules = get_ruleset("nine_ball")
    for opponent in (make_agent("legal-random", rules, seed=3), make_agent("bot:weak", rules, seed=3)):
        ends = _play_both("poolgym/NineBall-v1", [4401, 4402, 4403], 25, "masked", action_mode="choice_discrete",
                          opponent=opponent)
        assert ends > 0
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=3, opponent=opponent)
    assert vec.tables[0].opponent is opponent
    assert len({id(table.opponent) for table in vec.tables}) == 3


def test_an_opponent_that_cannot_be_copied_is_refused_in_one_line():
    import threading

    class Locked:
        """A policy holding a lock, which cannot be copied."""

        def __init__(self) -> None:
            self.lock = threading.Lock()

        def __call__(self, observation, info):
            return None

    with pytest.raises(ValueError, match=r"cannot be copied for each of the 2 tables .*vectorization_mode='sync'"):
        gym.make_vec("poolgym/NineBall-v1", num_envs=2, opponent=Locked())


def test_make_vec_gives_the_batched_env_and_sync_still_wraps():
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=3, action_mode="choice_discrete")
    assert isinstance(vec, BatchedPoolEnv) and vec.num_envs == 3
    assert vec.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert vec.max_episode_steps == gym.spec("poolgym/NineBall-v1").max_episode_steps
    assert vec.action_space == gym.vector.utils.batch_space(vec.single_action_space, 3)
    for mode in ("sync", "async"):
        wrapped = gym.make_vec("poolgym/NineBall-v1", num_envs=2, vectorization_mode=mode)
        assert not isinstance(wrapped, BatchedPoolEnv)
        wrapped.close()
    assert isinstance(gym.make_vec("poolgym/PotBall-v1", num_envs=2), BatchedPotBallEnv)


@pytest.mark.parametrize("num_envs", [1, 4, 9, 16])
def test_nine_ball_choice_discrete_masked_random_is_the_single_env(num_envs):
    seeds = [7001 + 13 * k for k in range(num_envs)]
    _play_both("poolgym/NineBall-v1", seeds, 60, "masked", action_mode="choice_discrete")


def test_nine_ball_choice_discrete_random_and_flat_with_truncation():
    # Unmasked actions (invalid slots included) and a short step limit: truncations and
    # autoresets mid-match.
    ends = _play_both("poolgym/NineBall-v1", [8101, 8102, 8103], 40, "random", max_episode_steps=6,
                      action_mode="choice_discrete", obs_mode="flat")
    assert ends >= 10


def test_nine_ball_aim_random_is_the_single_env():
    ends = _play_both("poolgym/NineBall-v1", [9001, 9002, 9003, 9004, 9005], 40, "random", action_mode="aim")
    assert ends > 0  # whole matches end and tables reset


def test_solo_and_other_games_are_the_single_env():
    _play_both("poolgym/NineBallSolo-v1", [9501, 9502, 9503], 30, "random")
    for env_id in ("poolgym/EightBall-v1", "poolgym/TenBall-v1", "poolgym/StraightPool-v1", "poolgym/NineBall-v0"):
        _play_both(env_id, [9601, 9602], 8, "random")


@pytest.mark.parametrize("mode", ["aim", "choice_discrete"])
def test_the_pot_ball_drill_is_the_single_env(mode):
    # One shot an episode: every other vector step resets every table (NEXT_STEP).
    policy = "masked" if mode == "choice_discrete" else "random"
    ends = _play_both("poolgym/PotBall-v1", [4401 + k for k in range(12)], 40, policy, action_mode=mode,
                      obs_mode="flat", shaping=True)
    assert ends == 12 * 20
    _play_both("poolgym/PotBall-v0", [4501, 4502, 4503], 10, "random", n_balls=(3, 15))


def test_a_refused_pot_ball_action_leaves_every_generator_as_it_was():
    vec = gym.make_vec("poolgym/PotBall-v1", num_envs=3, action_mode="choice_discrete")
    single = gym.make("poolgym/PotBall-v1", action_mode="choice_discrete")
    vec.reset(seed=[1, 2, 3])
    masks = vec.action_masks()
    nvec = vec.single_action_space.nvec
    good = [[int(np.flatnonzero(p)[0]) for p in np.split(row, np.cumsum(nvec)[:-1])] for row in masks]
    bad = [row[:] for row in good]
    bad[2][0] = int(np.flatnonzero(~np.split(masks[2], np.cumsum(nvec)[:-1])[0])[0])  # a slot not offered
    with pytest.raises(ValueError):
        vec.step(np.array(bad))
    obs, *_ = vec.step(np.array(good))
    single.reset(seed=1)
    assert np.array_equal(single.step(np.array(good[0]))[0]["balls"], obs["balls"][0])


def test_the_side_by_side_check_names_the_first_table_that_differs(monkeypatch):
    ended = BatchedPoolEnv.end_step

    def one_table_off(self, pending):
        stepped = ended(self, pending)
        if not pending.resetting[1]:  # table 1's observation one bit off
            obs = stepped.observations[1].copy()
            obs[0] = np.nextafter(obs[0], np.float32(2))
            stepped.observations[1] = obs
        return stepped

    monkeypatch.setattr(BatchedPoolEnv, "end_step", one_table_off)
    with pytest.raises(BatchedMismatch, match=r"NineBall-v1: the table seeded 702 differs from gym.make at step 0 "
                                              r"\(observation\)"):
        _play_both("poolgym/NineBall-v1", [701, 702], 2, "masked", action_mode="choice_discrete", obs_mode="flat")


def test_a_bad_action_leaves_every_table_as_it_was():
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=3, action_mode="aim")
    vec.reset(seed=11)
    before = [(t.state, t.np_random.bit_generator.state) for t in vec.tables]
    actions = np.zeros((3, vec.single_action_space.shape[0]), np.float32)
    actions[2, 0] = np.nan
    with pytest.raises(ValueError):
        vec.step(actions)
    assert [(t.state, t.np_random.bit_generator.state) for t in vec.tables] == before


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="num_envs"):
        BatchedPoolEnv(num_envs=0)
    with pytest.raises(ValueError, match="render_mode is not batched"):
        BatchedPoolEnv(num_envs=2, render_mode="rgb_array")
    vec = BatchedPoolEnv(num_envs=2)
    with pytest.raises(ValueError, match="one seed per table"):
        vec.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="needs a masked action mode"):
        vec.action_masks()


@pytest.mark.slow
def test_a_hundred_thousand_steps_are_the_single_env():
    """10^5 table steps of masked-random and random play over many seeds (seeds 20000+)."""
    total = 0
    block = 0
    while total < 100_000:
        seeds = [20000 + 32 * block + k for k in range(32)]
        _play_both("poolgym/NineBall-v1", seeds, 200, "masked", action_mode="choice_discrete")
        _play_both("poolgym/NineBall-v1", [s + 100_000 for s in seeds[:16]], 100, "random", action_mode="aim")
        total += 32 * 200 + 16 * 100
        block += 1


def test_the_lookahead_entry_and_make_vec_sync_agree_with_the_batched_env():
    _play_both("poolgym/NineBall-v1", [9701, 9702], 6, "masked", action_mode="choice_discrete", lookahead=True)
    kwargs = {"action_mode": "choice_discrete"}
    batched = gym.make_vec("poolgym/NineBall-v1", num_envs=3, **kwargs)
    sync = gym.make_vec("poolgym/NineBall-v1", num_envs=3, vectorization_mode="sync", **kwargs)
    got, want = batched.reset(seed=9801), sync.reset(seed=9801)
    rng = np.random.default_rng(9801)
    for _ in range(12):
        for a, b in zip(got[:-1], want[:-1]):
            assert all(np.array_equal(a[k], b[k]) for k in b) if isinstance(b, dict) else np.array_equal(a, b)
        assert all(same_info(table_info(got[-1], i), table_info(want[-1], i)) for i in range(3))
        # Among what the masks offer: the masked modes refuse the rest (the mask is the contract).
        nvec = batched.single_action_space.nvec
        actions = np.array([[rng.choice(np.flatnonzero(p)) for p in np.split(masks, np.cumsum(nvec)[:-1])]
                            for masks in batched.action_masks()], dtype=batched.action_space.dtype)
        got, want = batched.step(actions), sync.step(actions)


def test_bench_envs_batched_reports_the_three_side_by_side(tmp_path, capsys):
    import json

    from poolgym.agents.tools.cli import main

    out = tmp_path / "bench.json"
    assert main(["bench-envs", "--batched", "1,2", "--modes", "choice_discrete", "--steps", "4", "--reps", "1",
                 "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["batched"]
    assert [r["num_envs"] for r in rows] == [1, 2]
    assert all(r[f"{k}_steps_per_s"] > 0 for r in rows for k in ("single", "sync", "batched"))
    assert main(["bench-envs", "--batched", "0"]) == 2
    # An id registered without a vector_entry_point (a variant's, say) has nothing to bench.
    gym.register("poolgym/UnbatchedDrill-v0", entry_point="poolgym.envs.practice:PotBallEnv")
    try:
        assert main(["bench-envs", "--batched", "2", "--env", "poolgym/UnbatchedDrill-v0"]) == 2
    finally:
        del gym.registry["poolgym/UnbatchedDrill-v0"]
    err = capsys.readouterr().err
    assert "--batched must be comma-separated table counts" in err and "has no batched form" in err


def test_a_refused_reset_or_step_changes_no_table_and_names_what_is_allowed():
    vec = gym.make_vec("poolgym/NineBall-v1", num_envs=3, action_mode="aim")
    vec.reset(seed=11)
    before = [(t.state, t.np_random.bit_generator.state) for t in vec.tables]
    # A bad seed late in the list used to be found after the tables before it were reset.
    for seeds, message in (([1, 2, -1], r"^seed\[2\] must be None or an integer >= 0, got int -1$"),
                           ([1, 2.5, 3], r"^seed\[1\] must be None or an integer >= 0, got float 2.5$"),
                           (-4, r"^seed must be None or an integer >= 0, got int -4$"),
                           (object(), r"^seed must be None, an int or one seed per table \(3\)")):
        with pytest.raises(ValueError, match=message):
            vec.reset(seed=seeds)
    # Two rows for three tables used to be an IndexError after the two had been staged.
    with pytest.raises(ValueError, match=r"^actions must hold one action per table \(3 rows of Box.*got 2 rows$"):
        vec.step(np.zeros((2, vec.single_action_space.shape[0]), np.float32))
    for i in (-1, 3, True, 1.0):
        with pytest.raises(ValueError, match=rf"^table must be a whole number in 0..2, got {i!r}$"):
            vec.reset_table(i)
    assert [(t.state, t.np_random.bit_generator.state) for t in vec.tables] == before
    masked = gym.make_vec("poolgym/NineBall-v1", num_envs=2, action_mode="choice_discrete")
    masked.reset(seed=1)
    with pytest.raises(ValueError, match=r"^table must be a whole number in 0..1, got -1$"):
        masked.unwrapped.table_action_masks(-1)  # was the last table's masks


def test_a_refused_num_envs_leaves_nothing_for_the_garbage_collector_to_report(monkeypatch):
    """Gymnasium's ``VectorEnv.__del__`` closes an env whose ``__init__`` raised; closing
    one that made no tables printed an ``AttributeError`` traceback after the refusal."""
    import gc
    import sys

    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    for n in (0, 2.5, "2"):
        with pytest.raises(ValueError, match="num_envs must be a whole number >= 1"):
            gym.make_vec("poolgym/NineBall-v1", num_envs=n)
    gc.collect()
    assert reported == []
