"""A heuristic pool bot for every game (``RandomAgent`` is imported here from
``poolgym.envs.baseline_agents``, where the ladder's baseline agents live).

The bot searches the way the strongest computational-pool programs did: it lists candidate
shots (each legal ball into each pocket aimed at the ghost ball, at a few speeds and spins;
one-cushion banks when nothing direct drops; safeties and kicks when nothing is makeable),
plays each with the real simulator, judges it with the real rules, and scores the position
it leaves by the next shot's chance (``poolgym.agents.bot.position``). With execution noise the best
few are replayed with noise and ranked by their mean. With ``jump=True`` it also tries jump
shots over the balls in the way when every line to a legal ball is blocked
(``poolgym.agents.bot.jumps``). Breaks, ball-in-hand placement,
push outs, every pending decision and every call go through the same scoring.

Use it on states (``bot.choose(state)`` returns a ``Decision`` or a ``ShotMove``) or as an
environment opponent (``bot.policy(action_mode)`` returns ``policy(obs, info) -> action``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from poolgym.envs.actions import ActionMapper, ShotMove
from poolgym.envs.choice import ChoiceMapper, make_action_mapper
from poolgym.physics import Noise, Shot, Simulator
from poolgym.rules import CueBallZone, Decision, GameState, Ruleset, ShotCall, get_ruleset
from poolgym.table import Table

from poolgym.envs.baseline_agents import decision_options

from poolgym.agents.bot.jumps import rules_allow_jump_shots
from poolgym.agents.bot.position import state_value
from poolgym.agents.bot.shot_search import Scored, SearchBudget, ShotSearch

# The aim error (degrees) the position estimate assumes when the table has no noise: it
# grades the next shot's difficulty even though an exact stroke always goes where aimed.
PLANNING_SIGMA_DEG = 0.15
# A best pot worth less than this sends the search on to banks, safeties and push outs.
GOOD_ENOUGH = 0.5

Move = Decision | ShotMove


class HeuristicBot:
    """The search bot for any ruleset.

    ``rules`` is a ``Ruleset`` or a registered game name; ``noise`` the execution noise of
    the table it plays on (a ``Noise`` or preset name; the bot plans with it); ``budget`` a
    ``SearchBudget`` or preset name; ``seed`` seeds its noise samples; ``max_speed`` caps its
    strokes (m/s; an environment's action space caps them at its ``max_speed``); ``jump``
    lets it play jump shots (a raised cue, ``Shot.elevation_deg``) when every line to a
    legal ball is blocked: off by default, as an environment without ``elevation=True``
    cannot play them; an environment made with it turns them on for its bot opponents
    where the rules allow jump shots (``rules_allow_jump_shots``: every WPA game, 8.16).
    """

    # The searched break's re-check: its best ``break_top_k`` strokes re-played
    # ``break_noise_samples`` times each; None for the budget's ``top_k`` and ``noise_samples``.
    break_top_k: int | None = None
    break_noise_samples: int | None = None

    def __init__(self, rules: Ruleset | str = "nine_ball", noise: Noise | str = "none",
                 budget: SearchBudget | str = "normal", seed: int | None = 0,
                 max_speed: float = 10.0, table: Table | str | None = None, jump: bool = False) -> None:
        if isinstance(rules, str):
            table = Table.preset(table) if isinstance(table, str) else table
            rules = get_ruleset(rules, table=table)
        self.rules = rules
        self.table = rules.table
        self.noise = Noise.preset(noise) if isinstance(noise, str) else noise
        self.budget = SearchBudget.preset(budget) if isinstance(budget, str) else budget
        self.max_speed = max_speed
        if not isinstance(jump, bool):
            raise ValueError(f"jump must be True or False, got {jump!r}")
        if jump and not rules_allow_jump_shots(rules):
            raise ValueError(f"jump=True, but {rules.name} does not allow jump shots")
        self.jump = jump
        sigma = max(self.noise.angle_deg, PLANNING_SIGMA_DEG)
        noisy = None if self.noise.is_zero else Simulator(self.table, noise=self.noise)
        self.search = ShotSearch(rules, self.budget, noisy, np.random.default_rng(seed), sigma,
                                 max_speed, jump=jump)

    def __repr__(self) -> str:
        return f"HeuristicBot({self.rules.name!r})"

    def reseed(self, seed) -> None:
        """Restart the noise samples from ``seed`` (a match does this every rack, so a rack
        plays the same wherever and in whatever order it is played)."""
        self.search.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ the move
    def choose(self, state: GameState) -> Move:
        """The bot's move in ``state``: the answer to a pending decision or a shot."""
        if state.is_over:
            raise ValueError("the rack is over: there is no move to make")
        if state.pending is not None:
            return self.decide(state)
        return self.shoot(state)

    def decide(self, state: GameState) -> Decision:
        """The answer whose resulting position is worth most to the decider."""
        me = state.pending.player
        sigma = self.search.sigma_deg
        options = decision_options(state)
        values = [state_value(self.rules.apply_decision(state, d), self.rules, me, sigma)
                  for d in options]
        return options[int(np.argmax(values))]

    def shoot(self, state: GameState) -> ShotMove:
        """The best shot: a break, or pots from the best cue-ball spots, falling back on
        banks, push outs and safeties when no pot is good enough."""
        search = self.search
        if state.awaiting_break:
            return search.recheck(state, search.break_candidates(state), self.break_top_k,
                                  self.break_noise_samples)[0].move
        if state.cue_ball_in_hand is CueBallZone.NONE:
            spots = [None]
        else:
            spots = search.placement_spots(state)[:self.budget.placements] or [None]
        best = self.best_from(state, spots, search.pot_candidates)
        if best is None or best.value < GOOD_ENOUGH:
            fallback = self.best_from(state, spots[:2], search.bank_candidates)
            best = _better(best, fallback)
        if (best is None or best.value < GOOD_ENOUGH) and state.push_out_available:
            cue = state.position(0) if 0 in state.on_table else spots[0]
            if cue is not None and state.cue_ball_in_hand is CueBallZone.NONE:
                best = _better(best, self.rechecked(state, search.push_out_candidates(state, cue)))
        if best is None or best.value < GOOD_ENOUGH:
            safe_spots = spots if spots == [None] else search.safety_spots(state)[:3]
            best = _better(best, self.best_from(state, safe_spots, search.safety_candidates))
        if best is None:
            return self.desperate(state, spots[0])
        return best.move

    def best_from(self, state: GameState, spots: list, generate) -> Scored | None:
        """The best candidate ``generate`` finds from any of the cue-ball ``spots``."""
        scored = []
        for spot in spots:
            cue = spot if spot is not None else state.position(0)
            scored += generate(state, cue, spot)
        return self.rechecked(state, scored)

    def rechecked(self, state: GameState, scored: list[Scored]) -> Scored | None:
        ranked = self.search.recheck(state, scored)
        return ranked[0] if ranked else None

    def desperate(self, state: GameState, spot) -> ShotMove:
        """A firm stroke at the first legal ball, when no candidate could be generated."""
        calls = self.rules.call_options(state)
        call = ShotCall() if ShotCall() in calls else calls[0]
        balls = state.positions
        if spot is None and 0 not in balls:
            spot = self.search.fallback_spots(state)[0]
        cue = spot if spot is not None else balls[0]
        targets = sorted(self.rules.legal_targets(state)) or sorted(b for b in balls if b != 0)
        tx, ty = balls[targets[0]] if targets else self.table.foot_spot
        angle = float(np.degrees(np.arctan2(ty - cue[1], tx - cue[0])))
        return ShotMove(call, spot, Shot(min(3.0, self.max_speed), angle), targets[0] if targets else None)

    # ------------------------------------------------------------------ as an env opponent
    def policy(self, action_mode: str = "raw", max_speed: float = 10.0):
        """An environment opponent ``policy(obs, info) -> action`` playing this bot's moves
        in ``action_mode`` (the env's ``max_speed`` too; with the elevation component when
        the bot plays jumps): it reads ``info["state"]``."""
        mapper = make_action_mapper(self.table, action_mode, max_speed=max_speed, elevation=self.jump)
        return MovePolicy(self, mapper, self.rules)


class MovePolicy:
    """Wraps an agent with ``choose(state)`` as ``policy(obs, info) -> action`` through
    the mapper's ``encode`` (``ActionMapper`` or, in the choice modes, ``ChoiceMapper``; the
    env passes the state as ``info["state"]``)."""

    def __init__(self, agent: Any, mapper: ActionMapper | ChoiceMapper, rules: Ruleset) -> None:
        self.agent, self.mapper, self.rules = agent, mapper, rules

    def __call__(self, observation, info: dict) -> np.ndarray:
        state = info["state"]
        return self.mapper.encode(self.agent.choose(state), state, self.rules)


def _better(a: Scored | None, b: Scored | None) -> Scored | None:
    if a is None:
        return b
    if b is None:
        return a
    return b if b.value > a.value else a
