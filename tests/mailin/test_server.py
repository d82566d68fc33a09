"""What `pbem inbound` (pbem/mailin/server.py) writes to its log: one line a mail, with its
verdict, reason, game, seat and Message-ID, and never a reply address's signature nor a
word of the mail's body. Its verdicts used to be kept only in the table (issue 30)."""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from pbem.games import GAMES
from tests.mailin.helpers import (
    REPLY_DOMAIN,
    addr,
    answer,
    example_in,
    free_port,
    game_row,
    send,
    turn_mail,
)
from tests.settings import process_env

SECRET_WORDS = "zanzibar quokka"  # in every body: no log line may hold it


def _signature(address: str) -> str:
    return address.partition("@")[0].rsplit(".", 1)[1]


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "verdict=" in line]


def test_each_mail_is_logged_once_without_signature_or_body(app, smtpd, inbound, game, caplog):
    caplog.set_level(logging.INFO)
    mail = turn_mail(smtpd)
    reply_to = addr(mail["Reply-To"])
    seat = GAMES["colour-bazaar"].to_act(game_row(app, game).state)[0]
    sent = [
        ("refused", "unreadable", answer(mail, SECRET_WORDS)),
        ("rejected", "forged_from", answer(mail, SECRET_WORDS, sender="m@evil.example")),
        ("ignored", "auto_submitted", answer(mail, SECRET_WORDS, headers={"Auto-Submitted": "x"})),
        ("applied", "-", answer(mail, f"{SECRET_WORDS}\n{example_in(mail)}")),
    ]
    for _, _, msg in sent:
        send(inbound, msg)
    assert game_row(app, game).ply == 1
    altered = reply_to.replace(_signature(reply_to), "a" * 16)
    assert send(inbound, answer(mail, SECRET_WORDS), to=altered)[0] == 550
    lines = _lines(caplog.text)
    assert len(lines) == len(sent) + 1, caplog.text
    for line, (status, reason, msg) in zip(lines, sent, strict=False):
        assert f"verdict={status} reason={reason} game={game} seat={seat}" in line
        assert f"message-id={msg['Message-ID']}" in line
    assert f"verdict=rejected reason=bad_address game={game} seat={seat}" in lines[-1]
    assert [r.levelno for r in caplog.records if "verdict=" in r.getMessage()] == [20] * 5
    assert _signature(reply_to) not in caplog.text  # aiosmtpd logs each RCPT TO at INFO
    assert SECRET_WORDS not in caplog.text and example_in(mail) not in caplog.text


def _wait_for(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    give_up = time.monotonic() + 60
    while time.monotonic() < give_up:
        assert process.poll() is None, log.read_text(errors="replace")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("pbem inbound did not listen:\n" + log.read_text(errors="replace"))


def test_the_pbem_inbound_process_writes_each_verdict_to_its_log(app, smtpd, game, tmp_path):
    """The command itself, run as the Procfile runs it: its INFO lines used to go nowhere."""
    env = {
        **os.environ,
        **process_env(
            app, REPLY_DOMAIN=REPLY_DOMAIN, MAIL_BACKEND="file", MAIL_DIR=tmp_path / "mail"
        ),
    }
    port = free_port()
    log = tmp_path / "inbound.log"
    command = [sys.executable, "-c", "from pbem.console import main; main()"]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [*command, "inbound", "--port", str(port)], env=env, stdout=out, stderr=out
        )
    try:
        _wait_for(port, process, log)
        mail = turn_mail(smtpd)
        reply = answer(mail, f"{SECRET_WORDS}\n{example_in(mail)}")
        listener = SimpleNamespace(hostname="127.0.0.1", port=port)
        assert send(listener, reply) == (250, "2.0.0 Move played")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    text = log.read_text(errors="replace")
    (line,) = _lines(text)
    assert f"verdict=applied reason=- game={game}" in line
    assert f"message-id={reply['Message-ID']}" in line and "INFO" in line
    assert _signature(addr(mail["Reply-To"])) not in text
    assert SECRET_WORDS not in text and example_in(mail) not in text
