"""A policy callable for the eval command's import-path test."""

import numpy as np


def centre_policy(observation, info):
    """A firm centre-ball stroke straight up the table, every time."""
    return np.array([0.0, 0.0, 0.0, 0.0, -0.5, 0.0, 0.0, 0.0])
