"""8-ball for two learning players under the v1 benchmark protocol (metadata name
``eight_ball_v1``; the defaults are ``poolgym.envs.aec.versions.VERSION_DEFAULTS[1]``)."""

from poolgym.envs.aec.versions import factories

env, raw_env = factories("eight_ball", 1)
