"""Code written outside poolgym's own games, as a user would write it: ``six_ball.py`` is a
whole game that ``configs/variants/six_ball.yaml`` registers by file path. Installed as
``poolgym.examples`` so the variant registers from an installed wheel too."""
