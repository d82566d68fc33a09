"""The package as an operator installs it: the wheel built from this checkout, installed with
the server's lock file into a fresh virtualenv far from the source tree, serves the same
pages, static files, French catalogue and mails as the checkout, and plays a move.

Slow (a build and an install, about a minute with pip's cache warm): marked `install`;
CI runs it with the rest.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from pbem import create_app
from pbem.devservers import free_port
from pbem.resources import FOLDERS, folder
from tests.live.server import Browser
from tests.settings import SECRET_KEY, app_settings
from tests.web.helpers import text_of

pytestmark = pytest.mark.install

ROOT = Path(__file__).resolve().parents[1]
# The pages compared byte for byte with the checkout's: they hold no form token or date.
SAME_PAGES = ["/rules/colour-bazaar?lang=fr", "/rules/fantasy-business?lang=en"]


def run(*command: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a command to its end; its output, or the test fails showing it."""
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built as `make wheel` builds it (the locked setuptools, no isolation)."""
    dist = tmp_path_factory.mktemp("dist")
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        dist,
        ROOT,
        cwd=dist,
    )
    (built,) = dist.glob("pbem-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv holding the locked server dependencies and the wheel; its bin/."""
    venv = tmp_path_factory.mktemp("venv")
    run(sys.executable, "-m", "venv", venv, cwd=venv)
    pip = venv / "bin" / "pip"
    run(pip, "install", "--quiet", "--require-hashes", "-r", ROOT / "requirements.txt", cwd=venv)
    run(pip, "install", "--quiet", "--no-deps", wheel, cwd=venv)
    return venv / "bin"


def test_the_wheel_holds_what_the_server_reads_and_no_tests(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in FOLDERS:
        source = folder(name)
        expected = {
            f"pbem/{name}/{path.relative_to(source).as_posix()}"
            for path in source.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".mo"
        }
        assert expected <= names, sorted(expected - names)[:5]
    assert "pbem/translations/fr/LC_MESSAGES/messages.mo" in names  # compiled by the build
    assert not [n for n in names if n.startswith("tests/") or "__pycache__" in n]


@pytest.fixture
def served(
    installed: Path, tmp_path: Path, smtpd: Any
) -> Iterator[tuple[Browser, dict[str, str], Path]]:
    """`pbem migrate`, then `pbem serve` from the installed package, run in an empty folder
    with a clean environment (no PYTHONPATH: nothing can come from the checkout)."""
    home = tmp_path / "site"
    home.mkdir()
    port = free_port()
    env = {
        "PATH": f"{installed}:/usr/bin:/bin",
        "HOME": str(home),
        "PBEM_SECRET_KEY": SECRET_KEY,
        "PBEM_DATABASE_URL": f"sqlite:///{home / 'pbem.sqlite3'}",
        "PBEM_BASE_URL": f"http://127.0.0.1:{port}",
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_SMTP_HOST": "127.0.0.1",
        "PBEM_SMTP_PORT": str(smtpd.port),
        "PBEM_SENDER_INTERVAL": "0.5",
        "PBEM_COMPUTER_DELAY": "0",
        "PBEM_COMPUTER_INTERVAL": "0.5",
        "PBEM_TURN_MAIL_DELAY": "0",
    }
    out = run(installed / "pbem", "migrate", cwd=home, env=env)
    assert "up to date" in out
    with open(home / "serve.log", "wb") as log:
        server = subprocess.Popen(
            [str(installed / "pbem"), "serve", "--port", str(port)],
            cwd=home,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        for _ in range(600):
            if server.poll() is not None:
                break
            try:
                status, _ = Browser(port).get("/healthz")
                break
            except OSError:
                time.sleep(0.1)
        assert server.poll() is None and status == 200, (home / "serve.log").read_text()
        yield Browser(port), env, home
    finally:
        server.terminate()
        server.wait(timeout=30)


def seat_link(mail: Any) -> str:
    """The path of the seat link in a mail's text."""
    match = re.search(r"http://127\.0\.0\.1:\d+(/p/[\w.-]+)", text_of(mail))
    assert match, text_of(mail)
    return match.group(1)


def wait_for_mail(smtpd: Any, address: str, count: int) -> Any:
    """The `count`th mail to `address`, once the installed clock has sent it."""
    for _ in range(600):
        mails = smtpd.to(address)
        if len(mails) >= count:
            return mails[count - 1]
        time.sleep(0.1)
    raise AssertionError(f"no mail number {count} to {address}")


def test_an_installed_wheel_serves_and_plays_as_the_checkout(
    served: tuple[Browser, dict[str, str], Path],
    installed: Path,
    smtpd: Any,
    tmp_path: Path,
) -> None:
    browser, env, home = served
    package = next(installed.parent.glob("lib/python*/site-packages/pbem"))
    # An install's file times say nothing (pip may write a .po after its .mo).
    for po in package.glob("translations/*/LC_MESSAGES/*.po"):
        later = po.with_suffix(".mo").stat().st_mtime + 60
        os.utime(po, (later, later))
    before = package_files(package)
    # The same pages and static files as the checkout serves, French from the compiled catalogue.
    checkout = create_app(app_settings(f"sqlite:///{tmp_path / 'checkout.sqlite3'}", tmp_path))
    client = checkout.test_client()
    for path in SAME_PAGES:
        status, page = browser.get(path)
        assert status == 200
        assert page == client.get(path).get_data(as_text=True), path
    assert "Règles" in browser.get(SAME_PAGES[0])[1]
    for static in sorted(folder("static").iterdir()):
        browser.conn.request("GET", f"/static/{static.name}")
        answer = browser.conn.getresponse()
        assert answer.status == 200 and answer.read() == static.read_bytes(), static.name

    # A game against the computer, started with the installed command line.
    run(
        installed / "pbem",
        "new-game",
        "--player",
        "Ana <ana@example.org>",
        "--computer",
        "casual",
        "--seed",
        "7",
        cwd=home,
        env=env,
    )
    # Ana made it, so she is in; the computer joins at once and the game starts: her turn
    # mail comes (after the computer's move if it opens).
    turn = wait_for_mail(smtpd, "ana@example.org", 1)
    seat = seat_link(turn)
    status, page = browser.get(seat)
    assert status == 200 and "Colour Bazaar" in page
    browser.conn.request("GET", f"/api/v1/seat{seat[2:]}")
    view = orjson.loads(browser.conn.getresponse().read())
    assert view["turn"], view
    body = orjson.dumps({"turn": view["turn"], "move": view["legal_moves"][0]})
    browser.conn.request(
        "POST",
        f"/api/v1/seat{seat[2:]}/move",
        body=body,
        headers={"Content-Type": "application/json"},
    )
    answer = browser.conn.getresponse()
    assert answer.status == 200, answer.read()
    answer.read()
    # The computer answers, and the installed clock mails Ana her next turn.
    assert seat_link(wait_for_mail(smtpd, "ana@example.org", 2)) == seat
    out = run(installed / "pbem", "log", "1", cwd=home, env=env)
    assert re.search(r"^\s+1 .*\[web\]", out, re.M), out
    assert "All games replay exactly." in run(installed / "pbem", "check", cwd=home, env=env)
    where = run(installed / "python", "-c", "import pbem; print(pbem.__file__)", cwd=home, env=env)
    assert Path(where.strip()).is_relative_to(installed.parent), where
    # The server wrote nothing into its package: on a server it belongs to root and the
    # services run as another user (a catalogue compiled there at start was refused so).
    assert package_files(package) == before


def package_files(package: Path) -> dict[str, float]:
    """Every file of the installed package but Python's byte code, with its time."""
    return {
        str(path.relative_to(package)): path.stat().st_mtime
        for path in package.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
