"""PPO with action masks on the batched 9-ball env, in one file (CleanRL's style).

``gym.make_vec("poolgym/NineBall-v1", num_envs=N)`` steps N tables together; the policy
picks a candidate slot and binned stroke parameters (``choice_discrete``, a
``MultiDiscrete`` action) among what ``envs.action_masks()`` allows. Run it with::

    python -m poolgym.examples.cleanrl_masked_ppo --total-steps 200000 --num-envs 32

Autoreset is Gymnasium's ``NEXT_STEP``: the step after a table's episode ends resets that
table and ignores its action, so that step is left out of the loss (``valid``), and the
episode's last step does not bootstrap (``ended``). Truncation is treated as an end, as
CleanRL's PPO does. Needs ``torch`` (``pip install "poolgym[train]"``).
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import poolgym  # noqa: F401  (registers the ids)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The run's settings (``--help`` lists them)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env-id", default="poolgym/NineBall-v1")
    p.add_argument("--total-steps", type=int, default=200_000, help="table steps in all")
    p.add_argument("--num-envs", type=int, default=32, help="tables stepped together")
    p.add_argument("--num-workers", type=int, default=1,
                   help="processes the tables step in (gym.make_vec's num_workers): on idle cores only")
    p.add_argument("--num-steps", type=int, default=64, help="steps per table per rollout")
    p.add_argument("--learning-rate", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--minibatches", type=int, default=8)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


class Agent(nn.Module):
    """A value head and one logits head per action component, on a shared-size MLP."""

    def __init__(self, obs_size: int, nvec: np.ndarray) -> None:
        super().__init__()
        self.nvec = [int(n) for n in nvec]
        self.critic = nn.Sequential(nn.Linear(obs_size, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(),
                                    nn.Linear(256, 1))
        self.actor = nn.Sequential(nn.Linear(obs_size, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(),
                                   nn.Linear(256, sum(self.nvec)))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(self, obs: torch.Tensor, masks: torch.Tensor, action: torch.Tensor | None = None):
        """An action (sampled when ``action`` is None), its log-probability, the entropy and
        the value; disallowed choices get no probability."""
        logits = self.actor(obs).masked_fill(~masks, -1e8)
        parts = [torch.distributions.Categorical(logits=chunk) for chunk in torch.split(logits, self.nvec, dim=1)]
        if action is None:
            action = torch.stack([d.sample() for d in parts], dim=1)
        logprob = sum(d.log_prob(action[:, k]) for k, d in enumerate(parts))
        entropy = sum(d.entropy() for d in parts)
        return action, logprob, entropy, self.value(obs)


def train(args: argparse.Namespace) -> dict:
    """Run PPO for ``args.total_steps`` table steps; the mean reward of the episodes that
    ended, per rollout, and the table steps per second."""
    torch.manual_seed(args.seed)
    envs = gym.make_vec(args.env_id, num_envs=args.num_envs, num_workers=args.num_workers,
                        action_mode="choice_discrete", obs_mode="flat")
    nvec = envs.single_action_space.nvec
    obs_size = envs.single_observation_space.shape[0]
    agent = Agent(obs_size, nvec)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros((T, N, obs_size))
    mask_buf = torch.zeros((T, N, int(nvec.sum())), dtype=torch.bool)
    act_buf = torch.zeros((T, N, len(nvec)), dtype=torch.long)
    logp_buf, rew_buf, val_buf = torch.zeros((T, N)), torch.zeros((T, N)), torch.zeros((T, N))
    ended_buf, valid_buf = torch.zeros((T, N)), torch.zeros((T, N))

    obs, _ = envs.reset(seed=args.seed)
    obs = torch.as_tensor(obs, dtype=torch.float32)
    resetting = np.zeros(N, bool)  # NEXT_STEP: this step resets the table, its action ignored
    episode_return, returns, curve = np.zeros(N), [], []
    steps, start = 0, time.perf_counter()
    while steps < args.total_steps:
        for t in range(T):
            masks = torch.as_tensor(envs.action_masks(), dtype=torch.bool)
            with torch.no_grad():
                action, logprob, _, value = agent.act(obs, masks)
            obs_buf[t], mask_buf[t], act_buf[t], logp_buf[t], val_buf[t] = obs, masks, action, logprob, value
            valid_buf[t] = torch.as_tensor(~resetting, dtype=torch.float32)
            next_obs, reward, terminated, truncated, _ = envs.step(action.numpy())
            ended = terminated | truncated
            rew_buf[t] = torch.as_tensor(reward, dtype=torch.float32)
            ended_buf[t] = torch.as_tensor(ended, dtype=torch.float32)
            episode_return += reward
            returns.extend(episode_return[ended].tolist())
            episode_return[ended] = 0.0
            resetting = ended
            obs = torch.as_tensor(next_obs, dtype=torch.float32)
        steps += T * N

        # Generalised advantage estimation, cut at every episode's end.
        with torch.no_grad():
            next_value = agent.value(obs)
            advantages, last = torch.zeros((T, N)), torch.zeros(N)
            for t in reversed(range(T)):
                following = next_value if t == T - 1 else val_buf[t + 1]
                go_on = 1.0 - ended_buf[t]
                delta = rew_buf[t] + args.gamma * following * go_on - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * go_on * last
                advantages[t] = last
            targets = advantages + val_buf

        flat = lambda x: x.reshape(T * N, *x.shape[2:])  # noqa: E731
        b_obs, b_masks, b_act, b_logp = flat(obs_buf), flat(mask_buf), flat(act_buf), flat(logp_buf)
        b_adv, b_targets = flat(advantages), flat(targets)
        keep = torch.nonzero(flat(valid_buf) > 0).squeeze(-1)  # the steps whose action was played
        size = max(1, len(keep) // args.minibatches)
        for _ in range(args.epochs):
            order = keep[torch.randperm(len(keep))]
            for i in range(0, len(order), size):
                mb = order[i:i + size]
                _, logprob, entropy, value = agent.act(b_obs[mb], b_masks[mb], b_act[mb])
                ratio = (logprob - b_logp[mb]).exp()
                adv = b_adv[mb]
                adv = (adv - adv.mean()) / (adv.std(unbiased=False) + 1e-8)
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                value_loss = 0.5 * ((value - b_targets[mb]) ** 2).mean()
                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        curve.append({"steps": steps, "episodes": len(returns),
                      "mean_return": float(np.mean(returns[-100:])) if returns else None,
                      "loss": loss.item()})
        mean = curve[-1]["mean_return"]
        print(f"steps {steps:>8}  episodes {len(returns):>6}  mean return (last 100) "
              f"{'-' if mean is None else f'{mean:.3f}'}  loss {curve[-1]['loss']:.3f}", flush=True)
    envs.close()
    return {"curve": curve, "steps_per_s": steps / (time.perf_counter() - start), "agent": agent}


if __name__ == "__main__":
    train(parse_args())
