"""An mkdocs hook: the rules page's tables of WPA sections, written at build time from the
code (the ``WPA x.y`` citations in ``poolgym/rules/`` and each registered game's fouls), so
the page cannot drift from what the rules engine cites."""

from __future__ import annotations

import re
from pathlib import Path

PLACEHOLDER = "<!-- wpa-citations -->"
RULES = Path(__file__).resolve().parents[2] / "poolgym" / "rules"
_SECTION = r"\d+(?:\.\d+)*"
# "WPA 6.1-6.3, 6.5 and 6.10": a run of sections, ranges and lists after "WPA".
_CITATION = re.compile(rf"WPA ({_SECTION}(?:(?:-|, | and ){_SECTION})*)")
# A foul the code records names its section: Foul("6.2", ...).
_FOUL = re.compile(rf'Foul\(\s*"({_SECTION})"')


def _key(section: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.split(r"[.-]", section))


def cited_sections(text: str) -> list[str]:
    """The WPA sections ``text`` cites ("WPA 2.4", "WPA 6.1-6.3, 6.5", ``Foul("6.2", ...)``),
    ranges kept whole, sorted by number."""
    found = set()
    for match in _CITATION.finditer(text):
        for item in re.split(r", | and ", match.group(1)):
            if _key(item)[0] < 100:  # not a year ("WPA 2009")
                found.add(item)
    found.update(_FOUL.findall(text))
    return sorted(found, key=_key)


def citations_table() -> str:
    """One row per module of ``poolgym/rules/``: the sections its code, comments and docstrings cite."""
    rows = ["| module | WPA sections cited |", "|---|---|"]
    for path in sorted(RULES.glob("*.py")):
        sections = cited_sections(path.read_text())
        if sections:
            rows.append(f"| `poolgym/rules/{path.name}` | {', '.join(sections)} |")
    return "\n".join(rows)


def games_table() -> str:
    """One row per registered game: the WPA 6 fouls in force and whether 6.14 applies."""
    from poolgym.rules import available_rulesets, get_ruleset

    rows = ["| game | class | fouls in force (WPA 6) | three fouls lose the rack (6.14) |", "|---|---|---|---|"]
    for name in available_rulesets():
        rules = get_ruleset(name)
        fouls = ", ".join(sorted(rules.fouls_in_force, key=_key))
        rows.append(f"| `{name}` | `{type(rules).__name__}` | {fouls} | {'yes' if rules.three_foul_rule else 'no'} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Replaces the placeholder on the page that has it with the two tables."""
    if PLACEHOLDER not in markdown:
        return markdown
    return markdown.replace(PLACEHOLDER, f"{games_table()}\n\n{citations_table()}")
