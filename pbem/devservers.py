"""Throwaway servers for the live tests, the benches and CI: gunicorn, PostgreSQL, PgBouncer,
Postfix.

Nothing here imports the rest of pbem; bench/, tests/live and .ci/run share it:
`python -m pbem.devservers -- COMMAND...` (or `-m tests.live.servers`) runs COMMAND with a
fresh PostgreSQL server, its URL in PBEM_TEST_DATABASE_URL and a restart command in
PBEM_TEST_PG_RESTART.
"""

from __future__ import annotations

import http.client
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

HOST = "127.0.0.1"
READY_TIMEOUT = 60.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


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


def postfix_bin() -> Path | None:
    """Debian's `postfix` command (postqueue beside it), if installed."""
    found = shutil.which("postfix") or "/usr/sbin/postfix"
    return Path(found) if Path(found).exists() else None


# Every service a delivery needs, from Debian's master.cf, with chroot off (column five):
# the temporary queue has no copy of /etc for a chroot. SMTP is heard on loopback only.
_POSTFIX_MASTER = """\
{host}:{port} inet n - n - - smtpd
pickup    unix  n - n 60    1 pickup
cleanup   unix  n - n -     0 cleanup
qmgr      unix  n - n 300   1 qmgr
rewrite   unix  - - n -     - trivial-rewrite
bounce    unix  - - n -     0 bounce
defer     unix  - - n -     0 bounce
trace     unix  - - n -     0 bounce
flush     unix  n - n 1000? 0 flush
proxymap  unix  - - n -     - proxymap
showq     unix  n - n -     - showq
error     unix  - - n -     - error
retry     unix  - - n -     - error
local     unix  - n n -     - local
virtual   unix  - n n -     - virtual
smtp      unix  - - n -     - smtp
relay     unix  - - n -     - smtp
lmtp      unix  - - n -     - lmtp
anvil     unix  - - n -     1 anvil
scache    unix  - - n -     1 scache
postlog   unix-dgram n - n - 1 postlogd
"""

# Each setting with its reason; {…} are filled in by Postfix.start.
_POSTFIX_MAIN = """\
# Postfix 3.6+ defaults, without the backwards-compatibility warnings.
compatibility_level = 3.6
# Everything this instance keeps lives in its temporary directory.
queue_directory = {dir}/queue
data_directory = {dir}/data
# Its log, without a syslog daemon (postlogd writes it); the prefix check allows the path.
maillog_file = {dir}/maillog
maillog_file_prefixes = {dir}
# Loopback only, IPv4: the test machine's mail is not this instance's business.
inet_interfaces = {host}
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
# The test domain: mail for any local part there is taken at RCPT time (an empty
# local_recipient_maps skips the recipient check), then local(8) finds no such user and
# bounces it with a DSN to the envelope sender, as a real MTA does after queueing.
myhostname = {domain}
mydomain = {domain}
myorigin = $myhostname
mydestination = $myhostname
local_recipient_maps =
# No /etc/aliases, no NIS, no comsat: nothing of the machine's own mail set-up is read.
alias_maps =
alias_database =
biff = no
# The refusing domain: a mailbox domain with no mailboxes, so smtpd answers 550 5.1.1
# "User unknown" at RCPT time (the relay's own refusal); nothing is ever delivered there.
virtual_mailbox_domains = {refusing}
virtual_mailbox_maps = texthash:{dir}/conf/mailboxes
# Loopback clients may send to any domain; the routed domains (the test's reply domain)
# go by transport_maps to the test's SMTP or LMTP server; any other recipient resolves to
# the error transport, which smtpd refuses at RCPT time.
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
transport_maps = texthash:{dir}/conf/transport
default_transport = error:5.4.4 this test server delivers nowhere else
relay_transport = $default_transport
# No DNS: routes are bracketed IP addresses, and no name is ever looked up.
smtp_dns_support_level = disabled
smtp_host_lookup = native
lmtp_host_lookup = native
# aiosmtpd (so `pbem inbound --lmtp` too) answers an LMTP DATA once, not once per recipient
# as LMTP wants: Postfix would wait for the second answer. One recipient per LMTP mail.
lmtp_destination_recipient_limit = 1
# No TLS either way (the test servers speak plain SMTP on loopback).
smtpd_tls_security_level = none
smtp_tls_security_level = none
# Seconds, not minutes: a deferred mail is retried within a second or two, gives up after
# `lifetime` (a DSN with the 4.x.x status then), and bounces are not kept longer.
queue_run_delay = 1s
minimal_backoff_time = 1s
maximal_backoff_time = 2s
transport_retry_time = 1s
maximal_queue_lifetime = {lifetime}
bounce_queue_lifetime = {lifetime}
smtp_connect_timeout = 2s
lmtp_connect_timeout = 2s
# No "delayed mail" notices: only the final DSN goes back.
delay_warning_time = 0
# No pauses: smtpd answers a refused recipient at once, cleanup takes bursts at once.
smtpd_error_sleep_time = 0
in_flow_delay = 0
"""


class Postfix:
    """A throwaway Postfix (Debian's) on 127.0.0.1: its configuration, queue and log in a
    temporary directory, SMTP on a free port; it must run as root, as Postfix insists.

    Mail for any user at `domain` is taken and then bounced by Postfix itself (a DSN,
    multipart/report, to the envelope sender); at `refusing_domain` every recipient is
    refused at RCPT time with 550 5.1.1; mail for a domain in `routes` is handed over to
    the server given ("127.0.0.1:PORT" by SMTP, "lmtp:127.0.0.1:PORT" by LMTP), retried
    every second or two while that server is away; mail for anywhere else is refused at
    RCPT time (550 5.4.4). No DNS, no TLS.
    """

    domain = "localhost.test"
    refusing_domain = "refusing.test"

    def __init__(self, program: Path, routes: Mapping[str, str], lifetime: str = "60s") -> None:
        """An instance to be, in a new temporary directory, on a free port; `lifetime`: how
        long a deferred mail (and a bounce) stays queued before Postfix gives it up."""
        self.program = program
        self.routes = dict(routes)
        self.lifetime = lifetime
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-postfix-"))
        self.conf = self.dir / "conf"
        self.log = self.dir / "maillog"
        self.port = free_port()

    def _run(self, program: str, *arguments: str) -> str:
        command = [str(self.program.parent / program), "-c", str(self.conf), *arguments]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            tail = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
            raise RuntimeError(f"{shlex.join(command)} failed:\n{done.stderr}\n{tail}")
        return done.stdout

    def start(self) -> None:
        """Write its configuration and start it; returns once it takes connections."""
        # Postfix's daemons run as the `postfix` user and must reach the queue: mkdtemp's
        # 0700 would shut them out. Nothing here may be group- or world-writable.
        self.dir.chmod(0o755)
        self.conf.mkdir(mode=0o755)
        (self.dir / "queue").mkdir(mode=0o755)  # post-install makes the rest, owners and all
        fill = {"dir": self.dir, "host": HOST, "port": self.port, "domain": self.domain,
                "refusing": self.refusing_domain, "lifetime": self.lifetime}  # fmt: skip
        (self.conf / "main.cf").write_text(_POSTFIX_MAIN.format(**fill))
        (self.conf / "master.cf").write_text(_POSTFIX_MASTER.format(**fill))
        (self.conf / "mailboxes").write_text("")
        (self.conf / "transport").write_text(
            "".join(f"{domain} {_postfix_route(to)}\n" for domain, to in self.routes.items())
        )
        # Postfix waits for a configuration file written in the last second or two to settle
        # before reading it (an editor may still be at work): these are whole already.
        settled = time.time() - 60
        for written in self.conf.iterdir():
            os.utime(written, (settled, settled))
        self._run("postfix", "start")
        give_up = time.monotonic() + READY_TIMEOUT
        while not serves(self.port, None):
            if time.monotonic() > give_up:
                self.stop()
                raise RuntimeError(f"postfix did not listen within {READY_TIMEOUT:.0f} s")
            time.sleep(0.05)

    def master(self) -> int | None:
        """The master process's pid, while it runs."""
        try:
            pid = int((self.dir / "queue" / "pid" / "master.pid").read_text().split()[0])
            # The daemon's parent is init, which may reap it late: a zombie has stopped.
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (OSError, ValueError, IndexError):
            return None
        return None if state in ("Z", "X") else pid

    def flush(self) -> None:
        """Try every deferred mail again now (postqueue -f)."""
        self._run("postqueue", "-f")

    def queue(self) -> list[dict[str, object]]:
        """The mails still queued (postqueue -j: one JSON object each)."""
        return [json.loads(line) for line in self._run("postqueue", "-j").splitlines() if line]

    def stop(self) -> None:
        """Stop it, wait for the master to be gone, and delete its directory."""
        try:
            pid = self.master()
            if pid is not None:
                self._run("postfix", "abort")  # as `stop`, without its 1 s polls
                give_up = time.monotonic() + READY_TIMEOUT
                while self.master() == pid and time.monotonic() < give_up:
                    time.sleep(0.05)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


def _postfix_route(to: str) -> str:
    """A transport(5) entry's right side: bracketed, so no MX or address lookup is made."""
    host, port = to.removeprefix("lmtp:").rsplit(":", 1)
    return f"lmtp:inet:[{host}]:{port}" if to.startswith("lmtp:") else f"smtp:[{host}]:{port}"


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
        env = {
            **os.environ,
            "PBEM_TEST_DATABASE_URL": server.create_database("pbem_test"),
            "PBEM_TEST_PG_RESTART": shlex.join(server.restart_command()),
        }
        return subprocess.run(command, env=env).returncode
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
