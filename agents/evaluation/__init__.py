"""Matches between agents, the evaluation protocol, the ladder's agents and baseline tables."""
