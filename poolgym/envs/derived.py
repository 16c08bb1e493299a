"""Values derived from the game state an env is in, computed once per state and shared by
the action mapping and the observation: the rules' legal first balls and call options, the
choice modes' candidate slots, the aim mode's ranked (ball, pocket) candidates.

States are frozen values, so a state object never changes under its derived values: the
cache holds the last (state, ruleset) pair it was asked about, by identity, and drops every
value the moment it is asked about another. It never holds more than one state's values, so
it does not grow over an episode or across episodes.
"""

from __future__ import annotations

from typing import Any, Callable

from poolgym.rules import GameState, Ruleset, ShotCall

_UNSET = object()  # no value kept under a name yet (None is a value)


class PerStateCache:
    """The derived values of one (state, ruleset) pair at a time (see the module docstring)."""

    def __init__(self) -> None:
        self._state: GameState | None = None
        self._rules: Ruleset | None = None
        self._values: dict[str, Any] = {}

    def value(self, state: GameState, rules: Ruleset, name: str, compute: Callable[[], Any]) -> Any:
        """The value ``name`` of ``state`` under ``rules``: ``compute()`` the first time it is
        asked for this pair, the kept value after that. Asking about another state or
        ruleset first forgets the previous one's values."""
        if state is not self._state or rules is not self._rules:
            self._state, self._rules, self._values = state, rules, {}
        values = self._values
        kept = values.get(name, _UNSET)
        if kept is _UNSET:
            kept = values[name] = compute()
        return kept

    def legal_targets(self, state: GameState, rules: Ruleset) -> frozenset[int]:
        """``rules.legal_targets(state)``, once per state."""
        return self.value(state, rules, "legal_targets", lambda: rules.legal_targets(state))

    def call_options(self, state: GameState, rules: Ruleset) -> tuple[ShotCall, ...]:
        """``rules.call_options(state)``, once per state."""
        return self.value(state, rules, "call_options", lambda: rules.call_options(state))
