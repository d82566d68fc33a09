"""pbem/ imports one way: no cycles, even through a function, and no floor imports one above."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pbem"
# The one function-level import pbem/ keeps: `pbem.create_app` imports the app lazily so
# that `import pbem.games` (which runs pbem/__init__.py first) stays free of Flask.
LAZY = {("pbem", "pbem.app")}


def module_name(path: Path, root: Path) -> str:
    """The dotted name of a module file under `root`."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package, by dotted name."""
    return {module_name(path, package.parent): path for path in sorted(package.rglob("*.py"))}


def _resolve(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = here.split(".") if is_package else here.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The pbem modules that `name` imports anywhere in its file (top level or in functions)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _resolve(node, name, path.name == "__init__.py")
            # `from pbem import play` imports the module pbem.play; `from pbem.x import f` pbem.x.
            targets = [
                f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module
                for alias in node.names
            ]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def graph(package: Path = PACKAGE, lazy: set[tuple[str, str]] = LAZY) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, less the allowed lazy imports."""
    mods = modules(package)
    edges = {name: imports_of(name, path, set(mods)) for name, path in mods.items()}
    for source, target in lazy:
        edges[source].discard(target)
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def function_level_imports(package: Path = PACKAGE) -> list[tuple[str, int]]:
    """(module, line) of every import statement that is not at the top level of its file."""
    found = []
    for name, path in modules(package).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in top:
                found.append((name, node.lineno))
    return found


def test_pbem_has_no_import_cycle() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_imports_sit_at_the_top_of_their_files() -> None:
    lazy = [(name, line) for name, line in function_level_imports() if name != "pbem"]
    assert lazy == [], f"imports inside functions: {lazy}"
    assert len(function_level_imports()) == len(LAZY)


# The house from the ground up: a module imports only from its own floor or those below,
# and every package sits whole on one floor.
# The Site (signing key, URL, mail templates) is read by nearly everything, so it sits just
# above the rows; what players/ and webhooks/ mail goes through its Mailing protocol, so
# they sit below mailout/, which reads players' links, talk and reports and tells webhooks.
# The turn clocks' arithmetic (timing) knows only the rows and the rules, so forms, pages
# and moves use it; the clock's jobs (scheduler, sweeps, computer moves) run moves, so they
# sit at the top with the web and mail-in. The lobby (play) tells a started game's first
# turn as a move does, so it sits above moves.
# The counters are counted on every floor, so they sit at the bottom; watch (heartbeats,
# readiness, /metrics, doctor) is asked only by the web, the clock, mail-in and the
# commands, and its doctor checks the mail settings, so it sits at the top with them.
LAYERS: list[tuple[str, ...]] = [
    ("pbem.errors", "pbem.models", "pbem.config", "pbem.resources"),
    ("pbem.site",),
    ("pbem.counters",),
    ("pbem.games", "pbem.bots"),
    ("pbem.timing",),
    ("pbem.present",),
    ("pbem.storage", "pbem.bounces", "pbem.ratings"),
    ("pbem.players", "pbem.webhooks"),
    ("pbem.mailout",),
    ("pbem.moves",),
    ("pbem.play", "pbem.plans", "pbem.seats", "pbem.takeback", "pbem.opentables", "pbem.leagues"),
    ("pbem.mailfix",),
    ("pbem.web", "pbem.mailin", "pbem.cli", "pbem.clock", "pbem.watch", "pbem.live"),
    ("pbem.app", "pbem.console", "pbem"),
]


def floor_of(module: str, layers: list[tuple[str, ...]] = LAYERS) -> int:
    """The floor of a module: that of the longest prefix in `layers` naming it."""
    found: tuple[int, int] | None = None
    for floor, prefixes in enumerate(layers):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if found is None or len(prefix) > found[1]:
                    found = (floor, len(prefix))
    if found is None:
        raise AssertionError(f"{module} is on no floor: add it to LAYERS")
    return found[0]


def upward_imports(edges: dict[str, set[str]]) -> list[str]:
    """Every import from a lower floor to a higher one, as "a -> b"."""
    return [
        f"{source} -> {target}"
        for source, targets in sorted(edges.items())
        for target in sorted(targets)
        if floor_of(target) > floor_of(source)
    ]


def test_the_layers_read_one_way() -> None:
    """errors/models < site < games < present < storage < players < mail < moves < play < web."""
    assert upward_imports(graph()) == []


def room_of(module: str) -> str:
    """The room a module is in: its top-level package or module under pbem/ (pbem.x)."""
    return ".".join(module.split(".")[:2])


def rooms(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The import graph between rooms: room -> the other rooms its modules import."""
    found: dict[str, set[str]] = {}
    for source, targets in edges.items():
        here = room_of(source)
        found.setdefault(here, set()).update(room_of(t) for t in targets if room_of(t) != here)
    return found


def test_rooms_import_one_way() -> None:
    """No cycle between the packages under pbem/, even one a floor holds side by side."""
    cycle = find_cycle(rooms(graph()))
    assert cycle is None, "cycle between rooms: " + " -> ".join(cycle or [])


def test_every_package_sits_on_one_floor() -> None:
    """LAYERS names rooms only (pbem.x, never pbem.x.y): a package is not split by floors."""
    assert [p for floor in LAYERS for p in floor if p.count(".") > 1] == []


def test_the_room_check_finds_a_cycle_between_packages() -> None:
    """The checker itself: modules that form no cycle can still make two rooms import each
    other (a.x -> b.y and b.z -> a.w), and that is caught."""
    edges = {"pbem.a.x": {"pbem.b.y"}, "pbem.b.z": {"pbem.a.w"}, "pbem.a.w": set()}
    assert find_cycle(edges) is None
    assert find_cycle(rooms(edges)) is not None


def test_the_floor_check_finds_an_upward_import() -> None:
    """The checker itself: present importing the mailer is caught, mail importing present not."""
    assert upward_imports({"pbem.present.forms": {"pbem.mailout.mailer"}}) == [
        "pbem.present.forms -> pbem.mailout.mailer"
    ]
    assert upward_imports({"pbem.mailout.mailer": {"pbem.present.text"}}) == []


@pytest.mark.parametrize(
    "files, cycle",
    [
        ({"a.py": "from pkg import b\n", "b.py": "def f():\n    from pkg.a import x\n"}, True),
        ({"a.py": "from . import b\n", "b.py": "import pkg.c\n", "c.py": ""}, False),
        (
            {"a.py": "from .b import f\n", "b.py": "from .c import g\n", "c.py": "import pkg.a\n"},
            True,
        ),
    ],
)
def test_the_check_finds_a_cycle(tmp_path: Path, files: dict[str, str], cycle: bool) -> None:
    """The checker itself: it sees cycles through relative and function-level imports."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in files.items():
        (package / name).write_text(text)
    assert (find_cycle(graph(package, lazy=set())) is not None) is cycle
