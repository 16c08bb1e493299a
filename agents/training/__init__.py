"""Training stable-baselines3 and RLlib agents: configs, curricula, self-play, return normalisation, curves."""
