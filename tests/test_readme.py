"""The README says what is true: its Python examples run (and print what their comments
say), its table of contents lists every section in order, its links inside the page lead
somewhere, and every `pbem <command>` it shows is one of pbem's commands."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from pbem.cli import COMMANDS
from pbem.console import main

README = Path(__file__).resolve().parents[1] / "README.md"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
_TOC_ENTRY = re.compile(r"^( *)- \[(.+)\]\(#([^)]+)\)$")
_PRINTS = re.compile(r"^\s*print\(.*\)\s+# (.+)$")


def text() -> str:
    return README.read_text(encoding="utf-8")


def blocks(lang: str) -> list[str]:
    """The fenced code blocks of the README in `lang` (```python ...), in order."""
    return [body for found, body in _FENCE.findall(text()) if found == lang]


def prose() -> str:
    """The README without its fenced code blocks."""
    return _FENCE.sub("", text())


def slug(title: str) -> str:
    """A heading's anchor, as GitHub makes it: lower case, punctuation dropped, spaces to
    hyphens (code marks dropped with the rest)."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def headings() -> list[tuple[int, str, str]]:
    """(level, title, anchor) of every ## and ### heading outside code, in order; a repeated
    anchor gets -1, -2... as on GitHub."""
    seen: dict[str, int] = {}
    found = []
    for match in re.finditer(r"^(#{2,3}) (.+)$", prose(), re.M):
        anchor = slug(match[2])
        if anchor in seen:
            seen[anchor] += 1
            anchor = f"{anchor}-{seen[anchor]}"
        else:
            seen[anchor] = 0
        found.append((len(match[1]), match[2], anchor))
    return found


PYTHON_BLOCKS = blocks("python")


def test_the_readme_has_python_examples() -> None:
    assert PYTHON_BLOCKS, "no ```python block found: the examples would go untested"


@pytest.mark.parametrize("code", PYTHON_BLOCKS, ids=lambda code: code.splitlines()[0][:40])
def test_each_python_example_runs_and_prints_what_it_says(code: str) -> None:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(README), "exec"), {"__name__": "__readme__"})
    promised = [m[1] for line in code.splitlines() if (m := _PRINTS.match(line))]
    assert printed.getvalue().splitlines() == promised


def test_the_table_of_contents_lists_every_section_in_order() -> None:
    before_first_section = prose().split("\n## ", 1)[0]
    entries = [
        (len(m[1]) // 2 + 2, m[2], m[3])
        for line in before_first_section.splitlines()
        if (m := _TOC_ENTRY.match(line))
    ]
    assert entries == headings()


def test_every_link_inside_the_readme_leads_to_a_section() -> None:
    anchors = {anchor for _, _, anchor in headings()}
    for target in re.findall(r"\]\(#([^)]+)\)", prose()):
        assert target in anchors, f"#{target} is no section"


def shown_commands() -> set[str]:
    """The X of every `pbem X` in the README's code: inline code and shell blocks (comments
    left out), /opt/pbem/bin/pbem included."""
    code = re.findall(r"`([^`\n]+)`", prose())
    for block in blocks("sh"):
        code += [line.split(" #", 1)[0] for line in block.splitlines() if line[:1] != "#"]
    return {m for snippet in code for m in re.findall(r"(?:^|\s|bin/)pbem ([a-z][a-z-]*)", snippet)}


def test_every_pbem_command_the_readme_shows_exists() -> None:
    known = {command.name for command in COMMANDS} | set(main.commands)
    shown = shown_commands()
    assert shown - known == set()
    assert {"migrate", "dkim-record", "doctor", "new-game"} <= shown  # the check finds them


def test_the_map_of_the_house_names_every_package() -> None:
    """ "How it is built" names every package and top-level module of pbem/, so a moved or
    new one is drawn where it sits."""
    section = text().split("## How it is built", 1)[1].split("\n## ", 1)[0]
    package = README.parent / "pbem"
    parts = [p.name + "/" for p in package.iterdir() if (p / "__init__.py").is_file()]
    parts += [p.name for p in package.glob("*.py")]
    missing = [part for part in parts if not re.search(rf"(?<![\w.]){re.escape(part)}", section)]
    assert missing == []
