"""Pure WPA rules: ``GameState`` x ``ShotCall`` x ``ShotEvents`` -> ``GameState``, ``Outcome``.

Imports only the standard library, numpy, ``poolgym.table`` and ``poolgym.events``.

Using a game::

    rules = get_ruleset("nine_ball")                 # RuleOptions() defaults, 9-ft table
    state = rules.new_game(rng=7, breaker=0)         # racked; cue ball in hand in the kitchen
    state, outcome = rules.apply_shot(state, ShotCall(), ShotEvents(...))
    if state.pending:                                # e.g. shoot or pass back after a push out
        state = rules.apply_decision(state, Decision(Choice.PASS_BACK))

``rules.next_state(state, call, events)`` is ``apply_shot``'s state alone, without the
``Outcome``: for a search that only values where simulated shots leave the table.
``ShotEvents`` is entered by hand (referee mode) or built from the simulator's log with
``ShotEvents.from_log(log, table, final_positions=...)``. Bad input raises ``ValueError``.
A state is a frozen value: build any position directly with ``GameState(...)`` and save it
with ``to_json`` / ``GameState.from_json``.

Writing a game (subclass ``Ruleset``, see ``nine_ball.py`` for a complete one):

- Class attributes: ``name`` (its registry name), ``object_balls``, ``fouls_in_force`` (the
  WPA 6 sections the game's foul list names) and ``three_foul_rule``.
- ``rack(rng)``: the object balls' positions (use ``table.rack_positions(rows)``).
- ``legal_targets(state)``: the balls the cue ball may hit first (WPA 6.2).
- ``judge_shot(state, call, events) -> Verdict``: the game's decision about a shot that is
  already checked against the state. The building blocks are on ``Ruleset``:
  ``detect_fouls`` (WPA 6.1-6.3, 6.5, 6.10, 6.11 from the events plus declared fouls),
  ``balls_after_shot`` (positions at rest), ``spot`` (WPA 1.4), ``fouls.is_third_foul``
  (WPA 6.14). Fill a ``Verdict`` (fouls, balls, out_of_play, next shooter, cue ball zone,
  spotted and legally pocketed balls, points, winner, pending decision, and ``changes`` for
  other state fields such as ``groups``); ``conclude`` does the rest for every game: innings,
  foul counts and the two-foul warning, the 1.12 no-progress countdown, the 1.5 spot request.
- Games with calls override ``call_options`` (the calls allowed now; the checker draws from
  them) and ``check_call`` (raise ``ValueError``; call ``super().check_call`` first).
- Games with decisions of their own (``DecisionKind`` already names the 8-ball break options
  of WPA 3.3 and the 14.1 accept/re-break of 4.3) override ``judge_decision`` and hand other
  kinds to ``super().judge_decision``. ``rerack(state, breaker)`` re-racks purely;
  ``next_breaker`` says who breaks after a rack; ``hand_table_to`` gives a player the table.
- Options the text leaves open are fields of ``RuleOptions`` (digest section 8), read as
  ``self.options.<name>``.
- Register it: ``@register_ruleset("my_game")`` on the class, then ``get_ruleset("my_game")``.
- Check it: ``check_ruleset(MyGame(), n_games=1000, seed=0)`` plays random well-formed shots
  and decisions and raises ``RulesetCheckError`` when an invariant breaks; ``state_violations(ruleset, state)``
  lists what is wrong with one position (``check_state`` raises on it).
"""

from poolgym.rules.base import (Ruleset, Verdict, available_rulesets, get_ruleset,
                                register_ruleset)
from poolgym.rules.checker import CheckReport, RulesetCheckError, check_ruleset, random_events
from poolgym.rules.decisions import Choice, Decision, DecisionKind, PendingDecision
from poolgym.rules.invariants import check_state, state_violations
from poolgym.rules.nine_ball import NineBall
from poolgym.rules.options import RuleOptions
from poolgym.rules.outcome import Foul, Outcome, Penalty
from poolgym.rules.shot import DeclaredFoul, ShotCall, ShotEvents
from poolgym.rules.state import CueBallZone, GameState
from poolgym.rules.ten_ball import TenBall

__all__ = [
    "CheckReport", "Choice", "CueBallZone", "Decision", "DecisionKind", "DeclaredFoul", "Foul", "GameState",
    "NineBall", "Outcome", "Penalty", "PendingDecision", "RuleOptions", "Ruleset", "ShotCall",
    "ShotEvents", "RulesetCheckError", "TenBall", "Verdict", "available_rulesets",
    "check_ruleset", "check_state", "get_ruleset", "random_events", "register_ruleset",
    "state_violations",
]
