"""The README is a short manual: its example runs as written, and its links (and those of
docs/benchmarks.md, where the headline figures point) resolve to files and headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BENCHMARKS = ROOT / "docs" / "benchmarks.md"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_readme_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)
    assert blocks, "the README has no python example"
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    env = namespace["env"]
    assert not env.agents  # the hand was played to its end


def test_readme_is_short() -> None:
    lines = README.read_text().count("\n")
    assert lines < 320, f"README.md has {lines} lines; measured tables go to docs/benchmarks.md"


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped but - and _, spaces to -."""
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", markdown, re.MULTILINE):
        text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
        anchors.add(text.replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("document", [README, BENCHMARKS], ids=lambda p: p.name)
def test_relative_links_resolve(document: Path) -> None:
    broken = []
    for target in LINK.findall(document.read_text()):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (document.parent / path).resolve() if path else document
        if not file.is_file() or (anchor and anchor not in _anchors(file.read_text())):
            broken.append(target)
    assert not broken, f"{document.name}: broken links {broken}"
