"""contrib/: the systemd units, the settings file, the operator's `pbem` and the nginx site
agree with each other, with the Procfile and with pbem's commands and settings.

`systemd-analyze verify` (where it exists) reads each unit as systemd would: every section
and directive known, the values well formed, the specifiers (%i) and the timer's service
resolved, and each Exec* program present and executable. The units name the server's
/opt/pbem/bin; they are verified as copies whose /opt/pbem/bin/ is this test's virtualenv
(which has `pbem` and `gunicorn`), with nothing else changed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.cli import COMMANDS
from pbem.config import ConfigError, Settings, load_settings
from pbem.console import main
from pbem.storage.db import migrate
from tests.settings import SECRET_KEY

ROOT = Path(__file__).resolve().parents[2]
CONTRIB = ROOT / "contrib"
UNITS = sorted((CONTRIB / "systemd").glob("pbem-*"))
SERVICES = [unit for unit in UNITS if unit.suffix == ".service"]
ENV_FILE = "/etc/pbem/pbem.env"
BIN = "/opt/pbem/bin/"
HOME = "/var/lib/pbem"
EXPECTED_SETTINGS: set[str] = set()
NAMES = {name.upper() for name in Settings.model_fields}  # PBEM_<this>


def parse_unit(path: Path) -> dict[str, list[tuple[str, str]]]:
    """A unit file as systemd reads it: section -> its (key, value) lines, repeats kept."""
    sections: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] = []
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
            continue
        key, _, value = line.partition("=")
        current.append((key.strip(), value.strip()))
    return sections


def values(path: Path, key: str, section: str = "Service") -> list[str]:
    """Every value of `key` in a section of the unit."""
    return [v for k, v in parse_unit(path).get(section, []) if k == key]


def one(path: Path, key: str, section: str = "Service") -> str:
    """The value of a key the unit sets once."""
    found = values(path, key, section)
    assert len(found) == 1, f"{path.name}: {key} set {len(found)} times"
    return found[0]


def commands() -> set[str]:
    """The names of pbem's commands."""
    return {command.name for command in COMMANDS if command.name} | set(main.commands)


def pbem_command(exec_line: str) -> list[str]:
    """The words of a pbem command in an Exec* line, inside an `sh -c` too."""
    words = shlex.split(exec_line.replace("$$", "$"))
    if words[:2] == ["/bin/sh", "-c"]:
        words = shlex.split(words[2])
    if words[0] == "exec":
        words = words[1:]
    return words


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
def test_systemd_analyze_verify_finds_nothing(tmp_path: Path) -> None:
    venv_bin = Path(sys.executable).parent
    for program in ("pbem", "gunicorn"):
        if not os.access(venv_bin / program, os.X_OK):
            pytest.skip(f"no {program} in {venv_bin} to stand for {BIN}{program}")
    copies = []
    for unit in UNITS:
        copy = tmp_path / unit.name
        copy.write_text(unit.read_text().replace(BIN, f"{venv_bin}/"))
        copies.append(str(copy))
    verify = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *copies],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Unknown directives are only warned about (exit 0): any line at all is a fault.
    assert verify.returncode == 0 and verify.stdout + verify.stderr == "", (
        verify.stdout + verify.stderr
    )


def test_every_procfile_process_has_a_unit() -> None:
    procfile = dict(
        line.split(": ", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line
    )
    units = {path.name: path for path in SERVICES}
    web = pbem_command(one(units["pbem-web.service"], "ExecStart"))
    procfile_web = shlex.split(procfile["web"])
    assert web[0] == f"{BIN}gunicorn"
    # The same app and the same access log with link tokens masked; only the bind differs.
    for option in ("--logger-class", "--access-logfile", "--workers"):
        assert web[web.index(option) + 1] == procfile_web[procfile_web.index(option) + 1]
    assert web[-1] == procfile_web[-1] == "pbem:create_app()"
    assert web[web.index("--bind") + 1] == "127.0.0.1:8000"
    for process, unit in (
        ("clock", "pbem-clock.service"),
        ("computers", "pbem-computers@.service"),
        ("inbound", "pbem-inbound.service"),
        ("live", "pbem-live.service"),
    ):
        words = pbem_command(one(units[unit], "ExecStart"))
        expected = shlex.split(procfile[process])  # pbem, its command, its options
        assert words[0] == f"{BIN}pbem" and words[1 : len(expected)] == expected[1:]


@pytest.mark.parametrize("unit", SERVICES, ids=lambda path: path.name)
def test_each_service_runs_a_pbem_command_as_pbem_with_the_one_settings_file(unit: Path) -> None:
    for key in ("ExecStart", "ExecStartPost"):
        for line in values(unit, key):
            words = pbem_command(line)
            if words[0] == f"{BIN}pbem":
                assert words[1] in commands(), f"{unit.name}: {words}"
            else:
                assert words[0] in (f"{BIN}gunicorn", "/usr/bin/find"), f"{unit.name}: {words}"
    assert one(unit, "EnvironmentFile") == ENV_FILE
    assert one(unit, "User") == one(unit, "Group") == "pbem"
    assert one(unit, "WorkingDirectory") == HOME
    assert "postgresql.service" in one(unit, "After", "Unit").split()
    if one(unit, "Type") != "oneshot":
        assert one(unit, "Restart") == "on-failure"
    hardening = {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "PrivateTmp": "yes",
        "ProtectHome": "yes",
        "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
        "CapabilityBoundingSet": "",
    }
    for key, value in hardening.items():
        assert one(unit, key) == value, f"{unit.name}: {key}"
    assert one(unit, "ReadWritePaths").split() == [HOME]


def test_the_web_unit_gives_the_workers_a_fresh_metrics_folder() -> None:
    web = CONTRIB / "systemd" / "pbem-web.service"
    runtime = one(web, "RuntimeDirectory")
    assert f"PROMETHEUS_MULTIPROC_DIR=/run/{runtime}" in values(web, "Environment")


def test_the_nightly_backup_is_dated_and_pruned() -> None:
    service = CONTRIB / "systemd" / "pbem-backup.service"
    timer = CONTRIB / "systemd" / "pbem-backup.timer"
    words = pbem_command(one(service, "ExecStart"))
    assert words[1] == "backup"
    # systemd turns %% into % and $$ into $: the shell then runs date for each night's name.
    assert words[2] == f"{HOME}/backups/pbem-$(date +%%Y-%%m-%%d-%%H%%M).backup"
    prune = shlex.split(one(service, "ExecStartPost"))
    assert prune[:2] == ["/usr/bin/find", f"{HOME}/backups"] and "-delete" in prune
    assert one(timer, "OnCalendar", "Timer") and one(timer, "Persistent", "Timer") == "true"
    assert one(timer, "WantedBy", "Install") == "timers.target"


def test_the_computer_workers_and_the_clock_agree_on_who_moves() -> None:
    """A worker unit says the clock must then leave computer moves to it, as the example
    settings do."""
    template = (CONTRIB / "systemd" / "pbem-computers@.service").read_text()
    assert "PBEM_CLOCK_COMPUTERS=0" in template
    assert "#PBEM_CLOCK_COMPUTERS=0" in (CONTRIB / "pbem.env.example").read_text()


def example_settings() -> dict[str, str]:
    """The settings pbem.env.example gives, as the shell of the operator's `pbem` reads it."""
    shell = subprocess.run(
        ["sh", "-c", 'set -a; . "$1"; env -0', "sh", str(CONTRIB / "pbem.env.example")],
        capture_output=True,
        check=True,
        env={"PATH": os.environ.get("PATH", "")},
    )
    pairs = (item.partition(b"=") for item in shell.stdout.split(b"\0") if item)
    return {k.decode(): v.decode() for k, _, v in pairs if k.startswith(b"PBEM_")}


def test_the_example_settings_are_pbem_settings_and_refuse_the_placeholder_key() -> None:
    settings = example_settings()
    for name in settings:
        assert name[len("PBEM_") :] in NAMES | EXPECTED_SETTINGS, name
    for needed in ("SECRET_KEY", "BASE_URL", "DATABASE_URL", "MAIL_BACKEND", "MAIL_FROM"):
        assert f"PBEM_{needed}" in settings
    assert settings["PBEM_BASE_URL"].startswith("https://")
    assert settings["PBEM_TRUSTED_PROXIES"] == "127.0.0.1"
    # Every line commented out names a setting too (the relay, DKIM, metrics, workers).
    text = (CONTRIB / "pbem.env.example").read_text()
    for name in re.findall(r"^#(PBEM_[A-Z_]+)=", text, re.M):
        assert name[len("PBEM_") :] in NAMES | EXPECTED_SETTINGS, name
    config = {key[len("PBEM_") :]: value for key, value in settings.items()}
    with pytest.raises(ConfigError, match="PBEM_SECRET_KEY"):
        load_settings(config)
    load_settings(config | {"SECRET_KEY": SECRET_KEY})


def test_the_operators_pbem_runs_pbem_with_the_settings_file(tmp_path: Path) -> None:
    """contrib/pbem-admin with its three paths pointed at a temporary folder, and runuser
    (which needs root and a user pbem) left out: it reads the settings, moves to the working
    folder and passes the arguments on, quoted as given."""
    admin = (CONTRIB / "pbem-admin").read_text()
    assert f". {ENV_FILE}\n" in admin and f"cd {HOME}\n" in admin
    assert 'exec runuser -u pbem -- /opt/pbem/bin/pbem "$@"' in admin
    env_file = tmp_path / "pbem.env"
    env_file.write_text(
        f"PBEM_SECRET_KEY={SECRET_KEY}\n"
        f"PBEM_DATABASE_URL=sqlite:///{tmp_path / 'pbem.sqlite3'}\n"
        'PBEM_MAIL_FROM_NAME="pbem club"\n'
    )
    home = tmp_path / "home"
    home.mkdir()
    script = tmp_path / "pbem"
    script.write_text(
        admin.replace(ENV_FILE, str(env_file))
        .replace(f"cd {HOME}", f"cd {home}")
        .replace("runuser -u pbem -- /opt/pbem/bin/pbem", f"{sys.executable} -c '{RUN_PBEM}'")
    )
    script.chmod(0o755)
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(ROOT)}
    migrated = subprocess.run(
        [str(script), "migrate"], capture_output=True, text=True, env=env, timeout=120
    )
    assert migrated.returncode == 0, migrated.stderr
    assert "Database is up to date." in migrated.stdout
    games = subprocess.run(
        [str(script), "new-game", "--player", "Ana <ana@example.org>", "--player", "Léo <l@x.org>"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert games.returncode == 0 and "Game #1 created" in games.stdout, games.stderr


RUN_PBEM = 'import sys; from pbem.console import main; sys.argv[0] = "pbem"; main()'


def test_nginx_passes_what_the_readme_says_and_keeps_metrics_in() -> None:
    site = (CONTRIB / "nginx" / "pbem.conf").read_text()
    readme = (ROOT / "README.md").read_text()
    proxy = re.search(r"```nginx\n(.*?)```", readme, re.S)
    assert proxy
    for line in proxy[1].splitlines():
        if line.strip().startswith("proxy_"):
            assert line.strip() in site, line
    assert "proxy_pass http://127.0.0.1:8000;" in site  # the web unit's --bind
    # The live pages' streams go to `pbem live` where its unit listens, unbuffered.
    live = pbem_command(one(CONTRIB / "systemd" / "pbem-live.service", "ExecStart"))
    address = f"{live[live.index('--host') + 1]}:{live[live.index('--port') + 1]}"
    streams = re.search(r"location /live/ \{(.*?)\}", site, re.S)
    assert streams and f"proxy_pass http://{address};" in streams[1]
    assert "proxy_buffering off;" in streams[1] and "proxy_read_timeout" in streams[1]
    assert re.search(r"location = /metrics \{\s*return 404;\s*\}", site)
    assert "access_log off;" in site  # link tokens: gunicorn's masked log is the one kept
    name = "pbem.example.org"
    assert f"/etc/letsencrypt/live/{name}/fullchain.pem" in site
    assert f"/etc/letsencrypt/live/{name}/privkey.pem" in site


def test_the_inbound_unit_listens_where_postfix_is_told_to_deliver() -> None:
    words = pbem_command(one(CONTRIB / "systemd" / "pbem-inbound.service", "ExecStart"))
    host, port = words[words.index("--host") + 1], words[words.index("--port") + 1]
    assert "--lmtp" in words
    readme = (ROOT / "README.md").read_text()
    assert f"lmtp:inet:{host}:{port}" in readme


def as_systemd_runs(line: str, tmp_path: Path) -> list[str]:
    """An Exec* line as systemd hands it to the program ($$ and %% undone), its paths moved
    from the server's into `tmp_path` and this test's virtualenv."""
    line = line.replace("$$", "$").replace("%%", "%")
    line = line.replace(BIN, f"{Path(sys.executable).parent}/").replace(HOME, str(tmp_path))
    return shlex.split(line)


def test_the_backup_service_writes_a_dated_backup_and_prunes_old_ones(tmp_path: Path) -> None:
    """The backup unit's two commands, run as systemd would run them on an SQLite database."""
    service = CONTRIB / "systemd" / "pbem-backup.service"
    (tmp_path / "backups").mkdir()
    old = tmp_path / "backups" / "pbem-2020-01-01-0330.backup"
    old.write_bytes(b"an old backup")
    os.utime(old, (0, 0))
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    migrate(url)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "PBEM_SECRET_KEY": SECRET_KEY,
        "PBEM_DATABASE_URL": url,
    }
    for key in ("ExecStart", "ExecStartPost"):
        done = subprocess.run(
            as_systemd_runs(one(service, key), tmp_path),
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
    (backup,) = (tmp_path / "backups").iterdir()
    assert re.fullmatch(r"pbem-\d{4}-\d\d-\d\d-\d{4}\.backup", backup.name)
    assert backup.read_bytes().startswith(b"SQLite format 3\0")
