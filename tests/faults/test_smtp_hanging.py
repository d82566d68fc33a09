"""An SMTP server that hangs blocks neither moves nor the clock for good, and loses no mail."""

from __future__ import annotations

import socket
import threading
from typing import Any

from sqlmodel import select

from pbem.clock.scheduler import drain_outbox
from pbem.config import settings_of
from pbem.models import Outbox
from pbem.storage.db import read_session
from tests.web.helpers import first_mover


class HangingServer:
    """Accepts connections and says nothing until released."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.connected = threading.Event()
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        self.connected.set()
        self.release.wait(30)
        conn.close()
        self.sock.close()


def test_moves_go_on_while_smtp_hangs_and_mail_goes_out_after(
    client: Any, app: Any, smtpd: Any, clock: Any
) -> None:
    link, data, _ = first_mover(client, app, smtpd)
    form = {
        "game": "colour-bazaar",
        "name_0": "Max",
        "email_0": "max@example.org",
        "name_1": "Noé",
        "email_1": "noe@example.org",
    }
    assert client.post("/games", data=form).status_code == 303  # two mails now wait
    hanging = HangingServer()
    settings_of(app).smtp_port = hanging.port
    settings_of(app).smtp_timeout = 30.0
    result: dict[str, Any] = {}
    sender = threading.Thread(target=lambda: result.update(drain_outbox(app)))
    sender.start()
    assert hanging.connected.wait(10)
    # While the sender waits on the silent server, the site still answers and takes moves.
    assert client.get(link).status_code == 200
    assert client.post(f"{link}/move", data=data).status_code == 303
    assert sender.is_alive()  # still stuck: the move did not wait for it
    hanging.release.set()  # the server drops the connection
    sender.join(30)
    assert result == {"sent": 0, "failed": 1}
    with read_session(app.extensions["pbem"]["engine"]) as session:
        waiting = session.exec(select(Outbox).where(Outbox.sent_at.is_(None))).all()
    assert len(waiting) == 3  # two invitations and the next player's turn mail
    # The server is back: after the backoff every waiting mail goes out, once.
    settings_of(app).smtp_port = smtpd.port
    smtpd.clear()
    clock.advance(minutes=1)
    assert drain_outbox(app)["sent"] == 3
    assert sorted(str(m["Message-ID"]) for m in smtpd.messages) == sorted(
        r.message_id for r in waiting
    )
