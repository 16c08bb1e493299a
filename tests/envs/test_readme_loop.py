"""The README's Gymnasium loop, run as written for 100,000 steps: every step's info has the
same keys, and a decision's step (answering a push out) says it was one."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_loop() -> str:
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## A Gymnasium loop"):]
    return re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)


def test_the_readme_loop_runs_100000_steps_and_every_info_has_the_same_keys():
    from poolgym.envs.pool_env import INFO_KEYS

    code = _readme_loop()
    assert "range(1000)" in code and 'info["outcome"]' in code
    # The loop as written, longer, with the action space seeded and every info checked.
    code = code.replace("range(1000)", "range(100_000)")
    code = code.replace("obs, info = env.reset(seed=0)", "obs, info = env.reset(seed=0); env.action_space.seed(0)")
    code = code.replace("    if terminated or truncated:", "    seen.append(info)\n    if terminated or truncated:")
    kept = {"decisions": 0, "shots": 0, "ends": 0}

    class Checked(list):
        def append(self, info):
            assert set(info) == set(INFO_KEYS)
            if info["outcome"] is None:
                kept["decisions"] += info["decision"] is not None
            else:
                assert info["decision"] is None and info["outcome"].shooter == 0
                kept["shots"] += 1
            kept["ends"] += info["winner"] != -1
            assert (info["winner"] == -1) == (info["to_act"] in (0, 1))

    exec(compile(code, "README.md", "exec"), {"seen": Checked()})
    # Random play answers push outs: the steps that used to have no "outcome".
    assert kept["shots"] > 90_000 and kept["decisions"] > 100 and kept["ends"] > 100
