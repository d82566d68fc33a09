"""A throwaway Postfix for the tests of mail that bounces: its own configuration, queue and
log in a temporary directory, SMTP on a loopback port, each test domain routed where the
test says, and no DNS. Nothing here imports the rest of pbem (as pbem.devservers).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from pbem.devservers import HOST, READY_TIMEOUT, free_port, serves


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
