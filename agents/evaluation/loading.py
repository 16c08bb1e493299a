"""Agents from command-line specs (the opponent ladder), and environment policies played on
states.

A spec is a ladder name -- ``random``, ``legal-random``, ``fixed``
(``poolgym.envs.baseline_agents``), ``bot:weak``, ``bot:fast``, ``bot:normal`` (also
``bot``), ``bot:strong`` (``poolgym.agents.bot.player.HeuristicBot`` search budgets), ``bot:pro``
(``poolgym.agents.bot.pro.ProBot``), ``bot:pro-deep`` (the top rung: ``ProBot`` with a deeper
search) -- ``lookahead-greedy`` (the best
canonical stroke by the choice modes' lookahead features,
``poolgym.envs.lookahead_agent``) -- a pretrained agent shipped
with poolgym (``pretrained:nine_ball``, ``poolgym.agents.pretrained``) -- a saved
stable-baselines3 model (a path ending in ``.zip``, loaded as the algorithm its record
names, else PPO, unless written ``ALGO:path.zip``, e.g. ``SAC:model.zip``; it plays with
the action mapping and observation format recorded in it, ``poolgym.envs.sb3_models``), an
RLlib run of ``poolgym train --backend rllib`` (``rllib:RUN_DIR``, its last checkpoint, or
``rllib:RUN_DIR/checkpoint-NNNNNN``; needs the ``distributed`` extra), or
``pkg.mod:name`` naming either an agent (an object with ``choose(state)``) or a policy
``policy(obs, info) -> action``. The environments' ``opponent`` argument takes the same
names (``poolgym.envs.opponents``).
"""

from __future__ import annotations

import importlib
from typing import Any

from poolgym.envs.actions import ActionMapper
from poolgym.envs.choice import ChoiceMapper, make_action_mapper
from poolgym.envs.baseline_agents import BASELINE_AGENTS, make_baseline_agent
from poolgym.envs.lookahead import check_samples as check_lookahead_samples, lookahead_features
from poolgym.envs.lookahead_agent import LookaheadGreedyAgent
from poolgym.envs.observations import actor, flatten_observation, observe_candidates, observe_game
from poolgym.envs.sb3_models import (SB3_ALGORITHMS, action_mapper, check_spaces, infer_record, parse_model_spec,
                                     read_env_record, recorded_game, recorded_mapping)
from poolgym.physics import Noise, Simulator
from poolgym.rules import GameState, Ruleset

from poolgym.agents.bot.jumps import rules_allow_jump_shots
from poolgym.agents.bot.player import HeuristicBot
from poolgym.agents.bot.pro import DEEP_SEARCH, ProBot
from poolgym.agents.pretrained import PREFIX, PRETRAINED, pretrained_card, pretrained_model

BOT_BUDGETS = ("weak", "fast", "normal", "strong")
# The bot rungs, weakest first: the search budgets, then ``ProBot`` and the top rung (its deeper search).
BOT_LEVELS = BOT_BUDGETS + ("pro", "pro-deep")
# The greedy reader of the lookahead features (``poolgym.envs.lookahead_agent``): the
# heuristic a network over those features is measured against.
LOOKAHEAD_GREEDY = "lookahead-greedy"
AGENT_NAMES = (tuple(BASELINE_AGENTS) + (LOOKAHEAD_GREEDY,) + tuple(f"bot:{b}" for b in BOT_LEVELS)
               + tuple(PREFIX + name for name in PRETRAINED))
# An RLlib run directory or checkpoint of ``poolgym train --backend rllib``.
RLLIB_PREFIX = "rllib:"
AGENT_FORMS = (f"{', '.join(AGENT_NAMES)}, bot, [ALGO:]path.zip (ALGO one of "
               f"{', '.join(SB3_ALGORITHMS)}), {RLLIB_PREFIX}RUN_DIR or pkg.module:name")


class PolicyAgent:
    """An environment policy ``policy(obs, info) -> action`` playing on states: it sees the
    observation the env would give the player to act (``obs_mode`` "dict" or "flat"; the
    match score of a one-rack match when ``observe_match``; the candidate slots in the
    choice modes, and their ``lookahead`` features when ``lookahead_samples`` is set, the
    plays made under ``noise`` as the env's own simulator would) and ``info`` with
    ``state``, ``player`` and, in the masked action modes, the ``action_masks`` a maskable model
    predicts with; its action is decoded with ``mapper`` (or a mapping of ``action_mode``,
    ``max_speed`` and ``max_cut_deg``)."""

    def __init__(self, policy, rules: Ruleset, action_mode: str = "raw", obs_mode: str = "dict",
                 max_speed: float = 10.0, max_cut_deg: float = 5.0,
                 mapper: ActionMapper | ChoiceMapper | None = None, observe_match: bool = False,
                 lookahead_samples: int | None = None, noise: Noise | str | dict = "none") -> None:
        self.policy, self.rules, self.obs_mode = policy, rules, obs_mode
        self.observe_match = observe_match
        self.mapper = mapper if mapper is not None else make_action_mapper(
            rules.table, action_mode, max_speed=max_speed, max_cut_deg=max_cut_deg)
        self.lookahead_samples = None
        if lookahead_samples is not None:
            if not isinstance(self.mapper, ChoiceMapper):
                raise ValueError(f"lookahead features belong to the choice action modes, not {self.mapper.mode!r}")
            self.lookahead_samples = check_lookahead_samples(lookahead_samples)
            self.simulator = Simulator(rules.table, noise=Noise.make(noise))

    @classmethod
    def from_record(cls, policy, rules: Ruleset, record: dict, noise: Noise | str | dict | None = None) -> "PolicyAgent":
        """``policy`` playing with the mapping and observation a model record describes
        (``poolgym.envs.sb3_models``); its lookahead plays, if it has them, under ``noise``
        (the match's), else under the noise it was trained with."""
        mapping = recorded_mapping(record)
        samples = mapping["lookahead_samples"] if mapping["lookahead"] else None
        if noise is None:
            noise = record.get("noise") or "none"
        return cls(policy, rules, obs_mode=record["obs_mode"], mapper=action_mapper(record, rules.table),
                   observe_match=record.get("observe_match", False), lookahead_samples=samples,
                   noise=noise if samples is not None else "none")

    def choose(self, state: GameState):
        obs, info = self.observe(state)
        action = self.policy(obs, info)
        return self.mapper.decode(self.mapper.validate(action), state, self.rules)

    @property
    def batchable(self) -> bool:
        """Whether ``choose_many`` gives each state the move ``choose`` gives it: the policy
        says so (``SB3Policy.batchable``)."""
        return bool(getattr(self.policy, "batchable", False))

    def choose_many(self, states: list[GameState]) -> list:
        """The moves in ``states``, the policy called once for all of them
        (``SB3Policy.act_batch``)."""
        observed = [self.observe(state) for state in states]
        masks = [info["action_masks"] for _, info in observed] if self.mapper.masked else None
        actions = self.policy.act_batch([obs for obs, _ in observed], masks)
        return [self.mapper.decode(self.mapper.validate(action), state, self.rules)
                for action, state in zip(actions, states)]

    def observe(self, state: GameState) -> tuple:
        """The observation and info the policy is given in ``state`` (class docstring): what
        ``choose`` passes it, for a caller that reads the policy's distribution itself."""
        player = actor(state)
        # A rack played on states is a race to one, none of it won yet.
        match = ((0, 0), 1) if self.observe_match else None
        obs = observe_game(state, self.rules, self.rules.table, player, match=match)
        if isinstance(self.mapper, ChoiceMapper):
            obs.update(observe_candidates(self.mapper.slots(state, self.rules)))
        if self.lookahead_samples is not None:
            obs["lookahead"] = lookahead_features(state, self.rules, self.simulator, self.mapper,
                                                  self.lookahead_samples)
        if self.obs_mode == "flat":
            obs = flatten_observation(obs)
        info = {"state": state, "player": player}
        if self.mapper.masked:
            info["action_masks"] = self.mapper.action_masks(state, self.rules)
        return obs, info


def load_sb3(path: str, algorithm: str, rules: Ruleset, action_mode: str | None = None,
             obs_mode: str | None = None, trusted: bool = False,
             noise: Noise | str | dict | None = None) -> PolicyAgent:
    """A saved stable-baselines3 model as an agent, with the mapping and observation format
    recorded in it (inferred from its spaces, with a warning, for an older file); a model
    whose record names another game than ``rules``' is refused (``recorded_game``).
    ``action_mode`` / ``obs_mode``, when given, must be the recorded ones: a mismatch is a
    ``ValueError`` naming both sides. The model is read as data unless ``trusted``, which
    lets SB3 unpickle it (``poolgym.envs.sb3_models.load_model``). ``noise``: the match's execution noise,
    under which a model trained with lookahead features foresees its strokes
    (``PolicyAgent.from_record``)."""
    from poolgym.envs.opponents import SB3Policy

    record = read_env_record(path)
    # Refused before the model is loaded, as a pretrained agent of another game is by name.
    game = recorded_game(record) if record is not None else None
    if game is not None and game != rules.name:
        raise ValueError(f"{path} was trained at {game}, not {rules.name}")
    policy = SB3Policy(path, algorithm=algorithm, trusted=trusted)
    record = policy.env_record if policy.env_record is not None else infer_record(policy.model, path)
    check_spaces(policy.model, record, path)
    for key, asked in (("action_mode", action_mode), ("obs_mode", obs_mode)):
        if asked is not None and asked != record[key]:
            raise ValueError(f"{path} was trained with {key} {record[key]!r}, not the "
                             f"{asked!r} asked for")
    agent = PolicyAgent.from_record(policy, rules, record, noise)
    agent.env_record = record
    return agent


def load_pretrained(name: str, rules: Ruleset, action_mode: str | None = None,
                    obs_mode: str | None = None, noise: Noise | str | dict | None = None) -> PolicyAgent:
    """A pretrained agent shipped with poolgym (``poolgym.agents.pretrained``) as an agent
    for ``rules``, which must be its game's."""
    card = pretrained_card(name)  # an unknown name is refused there, naming the choices
    if rules.name != card["game"]:
        raise ValueError(f"{PREFIX}{name} plays {card['game']}, not {rules.name}")
    # Read as data like any other model: the shipped files need no trust.
    return load_sb3(pretrained_model(name), card["algorithm"], rules, action_mode, obs_mode, noise=noise)


def untrained_twin(agent: PolicyAgent, seed: int | None = None) -> PolicyAgent:
    """The same architecture as a loaded model's agent, freshly initialised with the
    model's seed (or ``seed``): the reference that shows what training added."""
    import gymnasium as gym

    model = agent.policy.model

    class Spaces(gym.Env):
        """Only the spaces: the fresh model is built, never trained."""

        observation_space, action_space = model.observation_space, model.action_space

    fresh = type(model)(model.policy_class, Spaces(), seed=model.seed if seed is None else seed,
                        policy_kwargs=model.policy_kwargs, device="cpu")
    from poolgym.envs.opponents import SB3Policy

    looks = agent.lookahead_samples is not None
    twin = PolicyAgent(SB3Policy(fresh, deterministic=agent.policy.deterministic), agent.rules,
                       obs_mode=agent.obs_mode, mapper=agent.mapper, observe_match=agent.observe_match,
                       lookahead_samples=agent.lookahead_samples,
                       noise=agent.simulator.noise if looks else "none")
    return twin


def make_bot(level: str, rules: Ruleset, seed: int = 0, noise: Any = "none", max_speed: float = 10.0,
             jump: bool = False) -> HeuristicBot:
    """The bot rung ``bot:<level>`` (``BOT_LEVELS``): a ``HeuristicBot`` with that search
    budget, or ``ProBot`` for ``"pro"`` and, with its deeper search (``pro.DEEP_SEARCH``),
    for the top rung ``"pro-deep"``. An unknown level is a ``ValueError`` naming the levels."""
    if level in ("pro", "pro-deep"):
        search = DEEP_SEARCH if level == "pro-deep" else {}
        return ProBot(rules, noise=noise, seed=seed, max_speed=max_speed, jump=jump, **search)
    if level not in BOT_BUDGETS:
        raise ValueError(f"unknown bot level {level!r}: the bot rungs are {list(BOT_LEVELS)}")
    return HeuristicBot(rules, noise=noise, budget=level, seed=seed, max_speed=max_speed, jump=jump)


def make_agent(spec: str, rules: Ruleset, seed: int = 0, noise: Any = "none",
               action_mode: str | None = None, obs_mode: str | None = None,
               max_speed: float = 10.0, elevation: bool = False, trusted: bool = False) -> Any:
    """The agent a spec names (module docstring), seeded with ``seed``; bots plan with
    ``noise``; no stroke is faster than ``max_speed``; ``elevation``: the env plays elevated
    strokes, so bots play jump shots where the rules allow them. ``action_mode`` / ``obs_mode`` say
    how a policy callable's actions are read and what it sees (default raw, dict); for a
    saved model they are checked against its record; ``trusted``: a saved model may be
    unpickled (``load_sb3``). An unknown agent, a missing model file or a module that does
    not import is a one-line ``ValueError``."""
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is a string ({AGENT_FORMS}), got {spec!r}")
    if spec in BASELINE_AGENTS:
        return make_baseline_agent(spec, rules, seed=seed, max_speed=max_speed)
    if spec == LOOKAHEAD_GREEDY:
        return LookaheadGreedyAgent(rules, seed=seed, max_speed=max_speed, noise=noise)
    if spec == "bot" or spec.startswith("bot:"):
        # "bot" alone is the normal budget; "bot:" names no rung and is refused.
        level = "normal" if spec == "bot" else spec.partition(":")[2]
        if level not in BOT_LEVELS:
            raise ValueError(f"unknown agent {spec!r}: the bot rungs are {list(BOT_LEVELS)}")
        return make_bot(level, rules, seed=seed, noise=noise, max_speed=max_speed,
                        jump=bool(elevation) and rules_allow_jump_shots(rules))
    if spec.startswith(PREFIX):
        return load_pretrained(spec[len(PREFIX):], rules, action_mode, obs_mode, noise=noise)
    if spec.endswith(".zip"):
        algorithm, path = parse_model_spec(spec)
        return load_sb3(path, algorithm, rules, action_mode, obs_mode, trusted=trusted, noise=noise)
    if spec.startswith(RLLIB_PREFIX):
        from poolgym.agents.training.rllib_train import load_rllib_agent

        return load_rllib_agent(spec[len(RLLIB_PREFIX):], rules, action_mode, obs_mode)
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"unknown agent {spec!r}; agents are {AGENT_FORMS}")
    try:
        target = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except ImportError as exc:
        raise ValueError(f"agent {spec!r}: module {module_name!r} does not import "
                         f"({type(exc).__name__}: {exc})") from None
    except AttributeError:
        raise ValueError(f"agent {spec!r}: module {module_name!r} has no {attribute!r}") from None
    if hasattr(target, "choose"):
        return target
    if callable(target):
        return PolicyAgent(target, rules, action_mode or "raw", obs_mode or "dict", max_speed=max_speed)
    raise ValueError(f"agent {spec!r} is neither an agent with choose(state) nor a policy(obs, info)")

