"""14.1 continuous for two learning players under the v1 benchmark protocol (metadata name
``straight_pool_v1``; the defaults are ``poolgym.envs.aec.versions.VERSION_DEFAULTS[1]``)."""

from poolgym.envs.aec.versions import factories

env, raw_env = factories("straight_pool", 1)
