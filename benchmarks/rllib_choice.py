"""RLlib PPO with action masks on NineBall-v1 ``choice_discrete``: a short learning curve on
a local Ray instance, its env steps/s beside sb3-contrib's MaskablePPO on the same env in
the same run, and the trained checkpoint played under the v1 protocol with the reference
agents on the same racks.

    nice python benchmarks/rllib_choice.py --iterations 10 --sb3-steps 4096 --racks 100 \
        --out runs/rllib_choice --json benchmarks/results/rllib_choice.json \
        --markdown benchmarks/results/rllib_choice.md

Both trainers use configs/train/rllib_ppo_choice.yaml's settings (two env processes, 1024
steps per update, minibatches of 256, 10 epochs, [256, 256] tanh layers); env steps/s is
env steps over the wall time of training (sampling and updates), set-up left out.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "configs" / "train" / "rllib_ppo_choice.yaml"


def rllib_run(iterations: int, out: str, num_cpus: int) -> dict:
    """``iterations`` iterations of the config on a local Ray instance of ``num_cpus`` CPUs."""
    from poolgym.agents.training.rllib_train import load_rllib_config, train_rllib

    config = {**load_rllib_config(CONFIG), "iterations": iterations}
    return train_rllib(config, out, num_cpus=num_cpus)


def sb3_rate(steps: int, seed: int = 0) -> dict:
    """MaskablePPO on the config's env with its settings, in two subprocess envs: env steps
    over the wall time of ``learn``."""
    import gymnasium
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from poolgym.agents.training.rllib_train import load_rllib_config

    config = load_rllib_config(CONFIG)
    env_id, kwargs = config["env"]["id"], {"obs_mode": "flat", **config["env"]["kwargs"]}
    n_envs = config["num_env_runners"]

    def make():
        import poolgym  # noqa: F401  (registers the ids in the subprocess)

        return gymnasium.make(env_id, **kwargs)

    envs = SubprocVecEnv([make] * n_envs, start_method="forkserver")
    try:
        model = MaskablePPO("MlpPolicy", envs, n_steps=config["train_batch_size"] // n_envs,
                            batch_size=config["minibatch_size"], n_epochs=config["num_epochs"],
                            learning_rate=config["lr"], gamma=config["gamma"], ent_coef=config["entropy_coeff"],
                            policy_kwargs={"net_arch": list(config["hiddens"])}, seed=seed, device="cpu")
        started = time.perf_counter()
        model.learn(steps)
        seconds = time.perf_counter() - started
    finally:
        envs.close()
    return {"env_steps": int(model.num_timesteps), "seconds": round(seconds, 1),
            "env_steps_per_s": round(model.num_timesteps / seconds, 1)}


def evaluate_run(out: str, opponent: str, racks: int, seed: int = 0) -> dict:
    """The run's last checkpoint (``rllib:OUT``) against ``opponent`` under the v1 protocol,
    beside the reference agents on the same racks."""
    from poolgym.agents.evaluation import evaluate
    from poolgym.agents.evaluation.loading import make_agent
    from poolgym.agents.evaluation.protocol import protocol

    played_under = protocol("poolgym/NineBall-v1")
    rules, noise = played_under.rules, played_under.noise
    spec = f"rllib:{out}"
    agents = [make_agent(s, rules, seed=seed + i, noise=noise, max_speed=played_under.max_speed)
              for i, s in enumerate((spec, opponent))]
    match = evaluate.run_match(rules, agents, (spec, opponent), racks, seed=seed, noise=noise)
    summary = evaluate.summarize(match)
    references = evaluate.reference_agents(spec, agents[0], rules, seed=seed, noise=noise,
                                           max_speed=played_under.max_speed)
    summary["references"] = evaluate.reference_report(rules, references, agents[1], opponent, racks,
                                                      seed=seed, noise=noise)
    return summary


def markdown(report: dict) -> str:
    """The curve, the two trainers' speeds and the evaluation as a Markdown page."""
    rl, sb3, ev = report["rllib"], report["sb3_maskable_ppo"], report["evaluation"]
    lines = ["# RLlib PPO with action masks, NineBall-v1 choice_discrete", "",
             f"`{report['command']}`", "",
             f"Local Ray instance of {report['num_cpus']} CPUs, two env runners; masked actions given to "
             f"the env over the run: {sum(r.get('masked_actions', 0) for r in rl['history'])}.", "",
             "| iteration | env steps | episodes | mean episode return | seconds |", "|---|---|---|---|---|"]
    for row in rl["history"]:
        ret = "n/a" if row["episode_return_mean"] is None else f"{row['episode_return_mean']:.2f}"
        lines.append(f"| {row['iteration']} | {row['env_steps']} | {row['episodes']} | {ret} | {row['seconds']:.0f} |")
    lines += ["", "Env steps per second of training (sampling and updates), same machine, same run:", "",
              "| trainer | env steps | seconds | env steps/s |", "|---|---|---|---|",
              f"| RLlib PPO, action-masking RLModule, 2 env runners | {rl['history'][-1]['env_steps']} | "
              f"{rl['seconds']} | {rl['env_steps_per_s']} |",
              f"| sb3-contrib MaskablePPO, 2 subprocess envs | {sb3['env_steps']} | {sb3['seconds']} | "
              f"{sb3['env_steps_per_s']} |", ""]
    a = ev["agents"][report["agent"]]
    lines += [f"The last checkpoint against {report['opponent']}, {ev['racks']} racks under the v1 protocol "
              "(95% Wilson intervals), beside the reference agents on the same racks:", "",
              "| agent | racks won | pot success | fouls/rack |", "|---|---|---|---|"]

    def rate(value, interval):
        return "n/a" if value is None else f"{value:.2f} [{interval[0]:.2f}, {interval[1]:.2f}]"

    rows = [(report["agent"], a)] + list(ev["references"]["agents"].items())
    for name, stats in rows:
        lines.append(f"| {name} | {rate(stats['win_rate'], stats['win_rate_ci95'])} | "
                     f"{rate(stats['pot_success'], stats['pot_success_ci95'])} | {stats['fouls_per_rack']:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    from poolgym.files import atomic_write_text

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--sb3-steps", type=int, default=4096)
    parser.add_argument("--racks", type=int, default=100)
    parser.add_argument("--opponent", default="legal-random")
    parser.add_argument("--num-cpus", type=int, default=2)
    parser.add_argument("--out", default="runs/rllib_choice")
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    args = parser.parse_args()
    command = (f"python benchmarks/rllib_choice.py --iterations {args.iterations} --sb3-steps {args.sb3_steps} "
               f"--racks {args.racks} --opponent {args.opponent}")
    report = {"command": command, "num_cpus": args.num_cpus, "opponent": args.opponent,
              "agent": f"rllib:{args.out}"}
    report["rllib"] = rllib_run(args.iterations, args.out, args.num_cpus)
    report["sb3_maskable_ppo"] = sb3_rate(args.sb3_steps)
    report["evaluation"] = evaluate_run(args.out, args.opponent, args.racks)
    text = markdown(report)
    print(text)
    if args.json:
        atomic_write_text(args.json, json.dumps(report, indent=1))
    if args.markdown:
        atomic_write_text(args.markdown, text)


if __name__ == "__main__":
    main()
