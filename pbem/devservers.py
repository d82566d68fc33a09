"""Throwaway servers for the live tests, the benches and CI: gunicorn, PostgreSQL, PgBouncer,
Postfix.

Nothing here imports the rest of pbem; bench/, tests/live and .ci/run share it:
`python -m pbem.devservers -- COMMAND...` (or `-m tests.live.servers`) runs COMMAND with a
fresh PostgreSQL server and its URL in PBEM_TEST_DATABASE_URL (each pytest worker makes a
database of its own beside it).
"""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOST = "127.0.0.1"
READY_TIMEOUT = 60.0


_GIVEN: set[int] = set()  # the ports this process handed out


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now, and that this process has
    not handed out before: two taken one after the other, then both bound (an inbound server
    and a Postfix), could otherwise be the same port, which the kernel may give twice."""
    while True:
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            port = int(probe.getsockname()[1])
        if port not in _GIVEN:
            _GIVEN.add(port)
            return port


@contextmanager
def gunicorn(
    app: str,
    port: int,
    env: dict[str, str],
    options: list[str],
    log_path: Path,
    cwd: Path,
    probe: str | None = None,
    answers: int = 4,
) -> Iterator[int]:
    """Serve `app` on 127.0.0.1:`port` until the block ends; yields the master's pid.

    Ready when the port takes connections, or, with `probe`, when GET `probe` has
    answered 200 `answers` times in a row (so that every worker is likely up).
    """
    command = [sys.executable, "-m", "gunicorn", *options, "--bind", f"{HOST}:{port}", app]
    with open(log_path, "wb") as log:
        server = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=log)
    try:
        _wait_ready(server, port, probe, answers, log_path)
        yield server.pid
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)


def serves(port: int, probe: str | None = "/") -> bool:
    """Whether the port answers now: GET `probe` gives 200 (None: it takes a connection)."""
    try:
        if probe is None:
            with socket.create_connection((HOST, port), timeout=1):
                return True
        conn = http.client.HTTPConnection(HOST, port, timeout=5)
        conn.request("GET", probe)
        response = conn.getresponse()
        response.read()
        conn.close()
        return response.status == 200
    except OSError:
        return False


def _wait_ready(
    server: subprocess.Popen[bytes], port: int, probe: str | None, answers: int, log_path: Path
) -> None:
    give_up = time.monotonic() + READY_TIMEOUT
    in_a_row = 0
    while time.monotonic() < give_up:
        if server.poll() is not None:
            tail = log_path.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"gunicorn stopped (exit {server.returncode}):\n{tail}")
        in_a_row = in_a_row + 1 if serves(port, probe) else 0
        if in_a_row >= (answers if probe else 1):
            return
        time.sleep(0.1)
    raise RuntimeError(f"gunicorn did not answer within {READY_TIMEOUT:.0f} s")


def pg_bin() -> Path | None:
    """The newest installed PostgreSQL's program folder (Debian's layout), if any."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name or 0))
    return found[-1] if found and (found[-1] / "initdb").exists() else None


class Postgres:
    """A throwaway PostgreSQL server: initdb in a temporary directory, 127.0.0.1 only."""

    def __init__(self, bin_dir: Path, settings: str = "") -> None:
        """A server to be, in a new temporary directory, on a free port (`settings`: -c ...)."""
        self.bin_dir = bin_dir
        self.settings = settings
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.port = free_port()
        self.as_root = os.geteuid() == 0

    def command(self, *command: str) -> list[str]:
        """A PostgreSQL program's command line, as the postgres user when we are root."""
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        return prefix + [str(self.bin_dir / command[0]), *command[1:]]

    def _run(self, *command: str) -> None:
        done = subprocess.run(self.command(*command), capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{command[0]} failed:\n{done.stdout}\n{done.stderr}")

    def start(self) -> None:
        """initdb and start."""
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8")
        options = f"-p {self.port} -c listen_addresses={HOST} -c unix_socket_directories={self.dir}"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
            "-o", f"{options} {self.settings}".strip(), "start",
        )  # fmt: skip

    def restart_command(self) -> list[str]:
        """The command that restarts the server (the fault tests cut the database with it)."""
        return self.command("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-m", "fast",
                            "-w", "restart")  # fmt: skip

    def postmaster(self) -> int | None:
        """The server's pid."""
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def url(self, database: str) -> str:
        """The URL of a database on this server."""
        return f"postgresql+psycopg://postgres@{HOST}:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        """Create an empty database; its URL."""
        self._run("createdb", "-h", HOST, "-p", str(self.port), "-U", "postgres", name)
        return self.url(name)

    def stop(self) -> None:
        """Stop the server and delete its directory."""
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def pgbouncer_bin() -> Path | None:
    """Debian's PgBouncer program, if installed."""
    found = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    return Path(found) if Path(found).exists() else None


class PgBouncer:
    """A throwaway PgBouncer on 127.0.0.1 in front of a PostgreSQL server there, in
    transaction mode (as hosted PostgreSQL poolers run), trusting the user `postgres`."""

    def __init__(self, program: Path, server_port: int, pool_size: int = 4) -> None:
        """A pooler to be, on a free port; `pool_size` server connections per database."""
        self.program = program
        self.server_port = server_port
        self.pool_size = pool_size
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-pgbouncer-"))
        self.log = self.dir / "pgbouncer.log"
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Write its ini file and start it; returns once it takes connections."""
        (self.dir / "userlist.txt").write_text('"postgres" ""\n')
        (self.dir / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={HOST} port={self.server_port}\n"
            "[pgbouncer]\n"
            f"listen_addr = {HOST}\nlisten_port = {self.port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.dir / 'userlist.txt'}\n"
            f"pool_mode = transaction\ndefault_pool_size = {self.pool_size}\n"
            "max_client_conn = 500\n"
        )
        # PgBouncer will not run as root: as the postgres user then, as the server does.
        as_user = ["-u", "postgres"] if os.geteuid() == 0 else []
        if as_user:
            shutil.chown(self.dir, "postgres", "postgres")
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [str(self.program), *as_user, str(self.dir / "pgbouncer.ini")],
                stdout=log, stderr=log,
            )  # fmt: skip
        give_up = time.monotonic() + READY_TIMEOUT
        while not serves(self.port, None):
            if self.process.poll() is not None or time.monotonic() > give_up:
                tail = self.log.read_text(errors="replace")[-3000:]
                self.stop()
                raise RuntimeError(f"pgbouncer did not start:\n{tail}")
            time.sleep(0.05)

    def url(self, database: str) -> str:
        """The URL of a database through this pooler."""
        return f"postgresql+psycopg://postgres@{HOST}:{self.port}/{database}"

    def stop(self) -> None:
        """Stop the pooler and delete its directory."""
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(20)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(10)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def main(argv: list[str]) -> int:
    """Run the command after `--` with a fresh PostgreSQL server and database; its exit code."""
    command = argv[argv.index("--") + 1 :] if "--" in argv else argv
    bin_dir = pg_bin()
    if bin_dir is None or not command:
        print("usage: python -m pbem.devservers -- COMMAND (needs PostgreSQL installed)")
        return 2
    server = Postgres(bin_dir, "-c fsync=off -c max_connections=200")
    try:
        server.start()
        env = {**os.environ, "PBEM_TEST_DATABASE_URL": server.create_database("pbem_test")}
        return subprocess.run(command, env=env).returncode
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
