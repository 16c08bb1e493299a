"""The heuristic bot: candidate shots checked with the simulator and rules, and position play."""
from poolgym.agents.bot.player import HeuristicBot

__all__ = ["HeuristicBot"]
