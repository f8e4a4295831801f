"""How far from Nash does self-play PPO end? MaskablePPO trained on the tiny rules with the
project's training code (``hilo train``'s ``training.selfplay.train``, config
``configs/train/tiny.yaml``), the exact NashConv of each checkpoint against OpenSpiel's CFR+
on the same game (the ``train`` and ``openspiel`` extras):

    python bench/tiny_ppo.py                      # about 10 minutes on a shared 2-core box

1. trains as the config says, with evaluations off, saving a checkpoint every
   ``checkpoint_every`` decisions; a checkpoint's time is its file's, from the run's start;
2. measures each checkpoint's exact NashConv (``envs.openspiel_policy.exact_exploitability``)
   twice: as the agent samples (its masked action probabilities, the policy PPO learns) and
   as ``hilo exploit ppo:PATH`` plays it (deterministic: the most likely legal action);
3. runs CFR+ for 1,000 iterations, NashConv at checkpoints with its solving time;
4. writes a CSV and a PNG (``docs/tiny_ppo.csv``, ``docs/tiny_ppo.png``): NashConv against
   seconds for both methods (log-log), and PPO's against its decisions with the exact NashConv
   of random, caller, heuristic and cfr_tiny as lines.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import time
from pathlib import Path

from hilo_env.agents.ppo import PPOAgent
from hilo_env.envs import openspiel_policy as P
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.training.config import TrainConfig
from hilo_env.training.selfplay import train

CFR_CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000)
REFERENCES = ("random", "caller", "heuristic", "cfr_tiny")
DOCS = Path(__file__).resolve().parent.parent / "docs"


def checkpoints(run_dir: Path, rules: RuleSet) -> list[tuple[int, Path]]:
    """(decisions, path) of a run's checkpoints in order, the final model (its own count:
    SB3 stops at the end of a rollout) last."""
    found = sorted((int(p.stem.split("_")[1]), p)
                   for p in (run_dir / "checkpoints").glob("model_*.zip"))
    final = run_dir / "model.zip"
    steps = PPOAgent(rules, final).load().num_timesteps
    return [*[c for c in found if c[0] < steps], (steps, final)]


def plot(rows: list[dict], references: dict[str, float], path: Path, title: str) -> None:
    """Left: NashConv against seconds, PPO and CFR+ (log-log); right: PPO against decisions,
    the reference agents as lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ppo = [r for r in rows if r["method"] == "ppo"]
    cfr = [r for r in rows if r["method"] == "cfr+"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot([r["seconds"] for r in ppo], [r["nash_conv"] for r in ppo], "o-",
              label="MaskablePPO self-play (sampling)")
    left.plot([r["seconds"] for r in ppo], [r["nash_conv_deterministic"] for r in ppo], "x:",
              label="MaskablePPO, most likely action")
    left.plot([r["seconds"] for r in cfr], [r["nash_conv"] for r in cfr], "s-",
              label="CFR+ (OpenSpiel, C++)")
    for r in cfr:
        left.annotate(f"{r['steps']:,}", (r["seconds"], r["nash_conv"]), fontsize=7,
                      textcoords="offset points", xytext=(3, 3))
    left.set(xscale="log", yscale="log", xlabel="wall seconds (PPO: training; CFR+: solving; "
             "CFR+ iterations marked)", ylabel="exact NashConv (chips per hand)",
             title="against time")
    left.legend(fontsize=8)
    right.plot([r["steps"] for r in ppo], [r["nash_conv"] for r in ppo], "o-",
               label="MaskablePPO (sampling)")
    right.plot([r["steps"] for r in ppo], [r["nash_conv_deterministic"] for r in ppo], "x:",
               label="MaskablePPO, most likely action")
    for (name, value), color in zip(references.items(), ("C3", "C4", "C5", "C6"), strict=False):
        right.axhline(value, color=color, ls="--", lw=1, label=f"{name} ({value:.3g})")
    right.axhline(cfr[-1]["nash_conv"], color="C2", ls="--", lw=1,
                  label=f"CFR+ {cfr[-1]['steps']:,} iterations ({cfr[-1]['nash_conv']:.1g})")
    right.set(yscale="log", xlabel="learner decisions (thousands)",
              ylabel="exact NashConv (chips per hand)", title="PPO over training")
    right.xaxis.set_major_formatter(lambda x, _: f"{x / 1000:g}")
    right.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="tiny", help="a training config on tiny rules")
    parser.add_argument("--timesteps", type=int, help="override total_timesteps")
    parser.add_argument("--output-dir", default="runs", help="where the run goes")
    parser.add_argument("--csv", type=Path, default=DOCS / "tiny_ppo.csv")
    parser.add_argument("--png", type=Path, default=DOCS / "tiny_ppo.png")
    args = parser.parse_args()
    overrides = {"eval_every": 0, "output_dir": args.output_dir}
    if args.timesteps:
        overrides["total_timesteps"] = args.timesteps
    config = TrainConfig.from_yaml(args.config, **overrides)
    rules = config.rule_set()
    if not P.exact_solvable(rules):
        raise SystemExit(f"config {args.config!r}: rules {config.rules!r} are too large to "
                         "measure exactly (exact_solvable)")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    print(f"machine: {machine}")

    start = time.time()
    final = train(config, progress=False)
    began = (config.run_dir / "config.yaml").stat().st_mtime
    trained = final.stat().st_mtime - began
    print(f"trained {config.total_timesteps:,} decisions in {trained:.0f} s "
          f"(run: {time.time() - start:.0f} s with the final evaluation)")

    rows = []
    for steps, path in checkpoints(config.run_dir, rules):
        sampled = P.exact_exploitability(PPOAgent(rules, path, deterministic=False), rules)
        argmax = P.exact_exploitability(PPOAgent(rules, path, deterministic=True), rules)
        rows.append({"method": "ppo", "steps": steps,
                     "seconds": round(path.stat().st_mtime - began, 2),
                     "nash_conv": sampled.nash_conv,
                     "nash_conv_deterministic": argmax.nash_conv,
                     "value_player0": sampled.agent_value})
        print(f"PPO {steps:>8,} decisions ({rows[-1]['seconds']:>6.0f} s): NashConv "
              f"{sampled.nash_conv:.4f} sampling, {argmax.nash_conv:.4f} most likely action")
    solved = P.solve_cfr_plus(rules, CFR_CHECKPOINTS[-1], checkpoints=CFR_CHECKPOINTS)
    for iterations, nash_conv, seconds in solved.curve:
        rows.append({"method": "cfr+", "steps": iterations, "seconds": round(seconds, 3),
                     "nash_conv": nash_conv, "nash_conv_deterministic": "",
                     "value_player0": ""})
        print(f"CFR+ {iterations:>6,} iterations ({seconds:>6.2f} s): NashConv {nash_conv:.6f}")
    references = {name: P.exact_exploitability(name, rules).nash_conv for name in REFERENCES}
    print("exact NashConv of " + ", ".join(f"{k} {v:.4f}" for k, v in references.items()))

    args.csv.parent.mkdir(parents=True, exist_ok=True)
    with open(args.csv, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, references, args.png,
         f"Exact NashConv on tiny: MaskablePPO ({config.total_timesteps:,} decisions, config "
         f"{args.config}) and CFR+; {machine}")
    print(f"wrote {args.csv} and {args.png}")


if __name__ == "__main__":
    main()
