"""The datasets' table of docs/datasets.md: episodes, steps, size on disk, collection time
and how the recorded agent did (``poolgym.agents.datasets.collect.describe``), read from
the datasets under $MINARI_DATASETS_PATH.

    python benchmarks/dataset_table.py poolgym/nine-ball/bot-fast-v0 ... \
        --json benchmarks/results/datasets/datasets.json --markdown benchmarks/results/datasets/datasets.md
"""

from __future__ import annotations

import argparse

from poolgym.agents.datasets.collect import describe
from poolgym.agents.tools.script_io import write_json, write_text


def markdown(rows: list[dict]) -> str:
    lines = ["| dataset | agent | opponent | env, mode | episodes | steps | size | collection | agent's result (95%) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        key = "racks_won" if "racks_won" in r else "pots"
        result = r[key]
        lines.append(f"| `{r['dataset_id']}` | {r['agent']} | {r['opponent'] or '-'} | {r['env_id']}, "
                     f"{r['action_mode']}/{r['obs_mode']} | {r['episodes']:,} | {r['steps']:,} | "
                     f"{r['size_bytes'] / 1e6:.1f} MB | {r['seconds'] / 60:.1f} min | {key.replace('_', ' ')} "
                     f"{result['rate']:.2f} [{result['ci95'][0]:.2f}, {result['ci95'][1]:.2f}] |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="+", help="Minari dataset ids")
    parser.add_argument("--json", help="also write the figures to FILE")
    parser.add_argument("--markdown", help="also write the table to FILE")
    args = parser.parse_args()
    rows = [describe(i) for i in args.ids]
    text = markdown(rows)
    print(text)
    write_json(args.json, rows)
    write_text(args.markdown, text + "\n")


if __name__ == "__main__":
    main()
