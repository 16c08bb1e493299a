"""bot:pro's search on bot:normal's strokes, at bot:normal's sizes and at bot:pro's: agents
for ``poolgym baselines`` (named ``pro_search_sizes:NAME`` with this folder on
``PYTHONPATH``). They measure whether a search as cheap as bot:normal can beat it, the
bar the learned agent's target sets (issue: a learned agent, with or without search, that
beats bot:normal at no more seconds a move):

    PYTHONPATH=benchmarks/archive poolgym baselines --agents random,fixed,untrained:pretrained:nine_ball,\\
        pro_search_sizes:normal_strokes_6_8,pro_search_sizes:normal_strokes_4_12,pro_search_sizes:normal_strokes_pro_sizes,\\
        bot:normal,bot:pro,pretrained:nine_ball --opponents bot:normal --racks 200 --seed 7777 --workers 2

Each is ``ProBot`` (noisy outcomes valued by the position they leave, the best valued two
shots deep) whose first-level strokes are bot:normal's budget (``SearchBudget.preset
("normal")``: 6 speeds x 5 tips, up to 6 pots) instead of bot:strong's, and whose searched
break re-plays bot:normal's 6 best breaks 8 times each:

- ``normal_strokes_6_8``: 6 pots x 8 noisy plays, the best 2 valued two shots deep from 2
  groups of outcomes (bot:normal's re-check sizes);
- ``normal_strokes_4_12``: 4 x 12, 2, 2;
- ``normal_strokes_pro_sizes``: bot:pro's 8 x 20, 4, 3.
"""

from poolgym.agents.bot.pro import ProBot
from poolgym.agents.bot.shot_search import SearchBudget
from poolgym.agents.evaluation.protocol import protocol

_P = protocol("poolgym/NineBall-v1")


def on_normal_strokes(top_k: int, noise_samples: int, lookahead: int, clusters: int) -> ProBot:
    """``ProBot`` with these sizes searching bot:normal's strokes and breaks (module docstring)."""
    normal = SearchBudget.preset("normal")
    bot = ProBot(_P.rules, noise=_P.noise, seed=0, max_speed=_P.max_speed, top_k=top_k,
                 noise_samples=noise_samples, lookahead=lookahead, clusters=clusters,
                 break_top_k=normal.top_k, break_noise_samples=normal.noise_samples)
    bot.budget = bot.search.budget = normal
    return bot


normal_strokes_6_8 = on_normal_strokes(6, 8, 2, 2)
normal_strokes_4_12 = on_normal_strokes(4, 12, 2, 2)
normal_strokes_pro_sizes = on_normal_strokes(8, 20, 4, 3)
