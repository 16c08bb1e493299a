"""The top of the bot ladder (``bot:pro``, and with ``DEEP_SEARCH`` the top rung
``bot:pro-deep``): the search bot of ``poolgym.agents.bot.player`` with the choices the
computational-pool tournament winners made (PickPocket, Smith 2007; CueCard, Archibald et
al. 2009).

- **Position over noisy outcomes, two shots deep.** Pots are generated and scored as the
  strong search does (``ShotSearch.pot_candidates``: exact simulation, the next shot's
  closed-form chance). The best ``top_k`` are played ``noise_samples`` times with the
  table's execution noise; each outcome is valued by ``state_value`` (played, judged and
  valued in bulk, ``ShotSearch.outcomes``: only the outcomes searched deeper become game
  states). The best
  ``lookahead`` of them are then valued one shot deeper (an expectimax over the next
  shot's best candidates, pruned): their non-final outcomes are grouped by value into
  ``clusters`` groups, and from the middle outcome of each group the player at the table
  searches his own next shot (``reply_value``: a small pot search whose every candidate
  is simulated and valued by the chance of the shot after it, weighted by its own
  closed-form make chance). Every outcome takes its group's value, so a candidate's score
  is the mean, over the noise, of the next two shots' prospects.
- **Safeties scored by the opponent's best reply.** When no pot's value reaches
  ``SAFETY_WHEN_BELOW``, banks, safeties and (after the break) push outs
  (``ShotSearch.bank_candidates``, ``safety_candidates``, ``push_out_candidates``) are
  scored the same way, the opponent's reply searched from the outcomes that leave him at
  the table, and the move is whichever scores highest.
- **A break from a table measured offline over noise** (``poolgym.agents.bot.breaks``):
  the stroke with the best measured value on fresh racks; the strong break search where
  the table has no stroke for the position (another game, a blocked spot) and on racks
  other than the table's (the shipped table's are tight; the benchmark protocol's have
  gaps), its best ``break_top_k`` breaks re-played ``break_noise_samples`` times each
  under the noise (``bot:pro-deep`` re-plays 40, 64 times each: which break makes a ball
  on this rack's gaps is read from the noisy plays, and 16 of them pick mostly noise).

Ball in hand, decisions and calls go through ``HeuristicBot``'s machinery, and so does
every shot on a table without execution noise (there are no outcomes to sample).
"""

from __future__ import annotations

import numpy as np

from poolgym.envs.actions import ShotMove
from poolgym.physics import Noise
from poolgym.rules import CueBallZone, GameState, Ruleset
from poolgym.table import Table

from poolgym.aiming import pot_chance
from poolgym.agents.bot.breaks import NINE_BALL_TABLE, BreakTable, best_break, load_break_table
from poolgym.agents.bot.player import GOOD_ENOUGH, HeuristicBot
from poolgym.agents.bot.position import WIN
from poolgym.agents.bot.shot_search import Outcomes, Scored, SearchBudget, ShotSearch

# Below this noisy mean a pot is not likely enough: safeties are searched too.
SAFETY_WHEN_BELOW = GOOD_ENOUGH
# What a missed next shot is worth to its shooter (the opponent then has the table).
MISS_VALUE = -0.5
# The value of a position with no pot open to its shooter (he has a safety to play).
NO_POT_VALUE = -0.1

# ``bot:pro-deep``: the same search, deeper (docs/bots.md): the best 16 pots re-played 64
# times each, the best 8 of them valued two shots deep from 5 groups of outcomes; a searched
# break's best 40 re-played 64 times each.
DEEP_SEARCH = {"top_k": 16, "noise_samples": 64, "lookahead": 8, "clusters": 5, "break_top_k": 40,
               "break_noise_samples": 64}

# The next shot's search in ``reply_value``: the two best pots, few strokes, no aim retry.
REPLY_BUDGET = SearchBudget(speeds=(0.9, 1.5, 2.4, 3.6), spins=((0.0, 0.0), (0.0, 0.4), (0.0, -0.4)),
                            max_pairs=2, refine_aim=False, top_k=1, noise_samples=1)


class ProBot(HeuristicBot):
    """``bot:pro`` (module docstring). ``top_k`` pots are re-played ``noise_samples``
    times with noise, the best ``lookahead`` of them valued two shots deep from
    ``clusters`` groups of outcomes; ``break_table`` is a ``BreakTable``, a path to one, or
    None for the shipped 9-ball table (used only for 9-ball on its tight racks); a table
    measured on other racks than the rules' is a ``ValueError``. Where no table gives the
    break, it is searched: the best ``break_top_k`` breaks by their exact play are re-played
    ``break_noise_samples`` times each (the strong budget's 10 and 16 unless given). Other
    arguments as ``HeuristicBot``'s; the first-level search uses the ``"strong"`` budget."""

    def __init__(self, rules: Ruleset | str = "nine_ball", noise: Noise | str = "none",
                 seed: int | None = 0, max_speed: float = 10.0, table: Table | str | None = None,
                 jump: bool = False, top_k: int = 8, noise_samples: int = 20, lookahead: int = 4,
                 clusters: int = 3, break_table: BreakTable | str | None = None, break_top_k: int = 10,
                 break_noise_samples: int = 16) -> None:
        for name, value, low in (("top_k", top_k, 1), ("noise_samples", noise_samples, 1),
                                 ("lookahead", lookahead, 0), ("clusters", clusters, 1),
                                 ("break_top_k", break_top_k, 1), ("break_noise_samples", break_noise_samples, 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        super().__init__(rules, noise=noise, budget="strong", seed=seed, max_speed=max_speed,
                         table=table, jump=jump)
        self.top_k, self.noise_samples = top_k, noise_samples
        self.lookahead, self.clusters = lookahead, clusters
        self.break_top_k, self.break_noise_samples = break_top_k, break_noise_samples
        racks = repr(self.rules.rack_model)
        if break_table is None:
            shipped = load_break_table(NINE_BALL_TABLE) if self.rules.name == "nine_ball" else None
            # Measured on other racks (the benchmark protocol's gaps) its strokes say nothing.
            break_table = shipped if shipped is not None and shipped.rack == racks else None
        elif not isinstance(break_table, BreakTable):
            break_table = load_break_table(break_table)
        if break_table is not None and break_table.game != self.rules.name:
            raise ValueError(f"break_table is for {break_table.game}, not {self.rules.name}")
        if break_table is not None and break_table.rack != racks:
            raise ValueError(f"break_table was measured on racks {break_table.rack}, but these rules rack "
                             f"{racks}; build one for them (poolgym.agents.tools.build_break_table)")
        self.break_table = break_table
        self.reply_search = ShotSearch(self.rules, REPLY_BUDGET, None, self.search.rng,
                                       self.search.sigma_deg, max_speed)

    def __repr__(self) -> str:
        return f"ProBot({self.rules.name!r})"

    def reseed(self, seed) -> None:
        super().reseed(seed)
        self.reply_search.rng = self.search.rng

    # ------------------------------------------------------------------ the shot
    def shoot(self, state: GameState) -> ShotMove:
        """A break from the table, else the best pot, bank, safety or push out (module
        docstring); a searched break (with this bot's re-check sizes), ball in hand, and
        every shot on a table without execution noise (no outcomes to sample), as
        ``HeuristicBot.shoot`` at the strong budget."""
        if state.awaiting_break and self.break_table is not None:
            move = best_break(self.break_table, self.rules, state, self.max_speed)
            if move is not None:
                return move
        if state.awaiting_break or state.cue_ball_in_hand is not CueBallZone.NONE or self.search.noisy is None:
            return super().shoot(state)
        cue = state.position(0)
        pots = self.deep(state, self.search.pot_candidates(state, cue, None))
        best = pots[0] if pots else None
        if best is None or best.value < SAFETY_WHEN_BELOW:
            others = [self.search.bank_candidates(state, cue, None), self.search.safety_candidates(state, cue, None)]
            if state.push_out_available:
                others.append(self.search.push_out_candidates(state, cue))
            for other in (self.deep(state, scored)[0] for scored in others if scored):
                if best is None or other.value > best.value:
                    best = other
        if best is None:
            return super().shoot(state)
        return best.move

    def deep(self, state: GameState, scored: list[Scored]) -> list[Scored]:
        """``scored`` ranked by their noisy mean; the best ``lookahead`` of those re-valued
        two shots deep and ranked first (their values are on the deeper scale)."""
        if not scored:
            return []
        ranked = sorted(scored, key=lambda s: s.value, reverse=True)[:self.top_k]
        n = self.noise_samples
        # Every candidate's replays in one batch (``ShotSearch.outcomes``), the noise drawn
        # in the order of replaying the candidates one after another.
        outcomes = self.search.outcomes(state, [s.move for s in ranked for _ in range(n)])
        parts = {}
        for i, s in enumerate(ranked):
            parts[id(s)] = outcomes.part(i * n, (i + 1) * n)
            s.value = float(np.mean(parts[id(s)].values))
        ranked.sort(key=lambda s: s.value, reverse=True)
        head = ranked[:self.lookahead]
        for s in head:
            s.value = self.outcome_mean(parts[id(s)], state.shooter)
        head.sort(key=lambda s: s.value, reverse=True)
        return head + ranked[self.lookahead:]

    def outcome_mean(self, outcomes: Outcomes, player: int) -> float:
        """The mean over noisy ``outcomes``, two shots deep, for ``player``: a finished rack
        keeps its value; the rest are split by value into ``clusters`` groups and each
        takes the two-shot value of its middle outcome (``table_value``)."""
        values, ended = outcomes.values, outcomes.ended
        total = sum(v for v, e in zip(values, ended) if e)
        open_ = sorted((v, i) for i, (v, e) in enumerate(zip(values, ended)) if not e)
        for group in np.array_split(np.arange(len(open_)), min(self.clusters, len(open_)) or 1):
            if len(group) == 0:
                continue
            middle = open_[int(group[len(group) // 2])][1]
            total += len(group) * self.table_value(outcomes.state(middle), values[middle], player)
        return total / len(values)

    def table_value(self, state: GameState, closed_form: float, player: int) -> float:
        """``state`` for ``player``: the next shot's value for whoever shoots it
        (``reply_value``), from ``player``'s side; ``closed_form`` (``state_value``) where
        no shot is to be searched (a pending decision, ball in hand, a break)."""
        if state.pending is not None or state.awaiting_break or state.cue_ball_in_hand is not CueBallZone.NONE:
            return closed_form
        value = self.reply_value(state)
        return value if state.shooter == player else -value

    def reply_value(self, state: GameState) -> float:
        """The shooter's best next pot in ``state``, each candidate worth its closed-form
        make chance times the value of the position its exact play leaves (the shot after
        it: ``state_value``), plus ``MISS_VALUE`` times the miss chance; ``NO_POT_VALUE``
        when no candidate pots (module docstring)."""
        balls = state.positions
        cue = balls[0]
        best = NO_POT_VALUE
        chances = {}
        for c in self.reply_search.pot_candidates(state, cue, None):
            if not c.pots:
                continue
            key = (c.move.target, c.move.pocket)
            if key not in chances:
                others = {n: p for n, p in balls.items() if n not in (0, c.move.target)}
                chances[key] = pot_chance(self.table, cue, balls[c.move.target], c.move.pocket, others,
                                          self.search.sigma_deg)
            p = chances[key]
            best = max(best, p * min(c.value, WIN) + (1.0 - p) * MISS_VALUE)
        return best

