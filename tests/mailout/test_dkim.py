"""DKIM signing by pbem (pbem.mailout.dkim): mail sent through the real SMTP server verifies
with dkimpy against the record `pbem dkim-record` prints, breaks when changed after signing,
and a bad key stops the process at start with the reason, never its text."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import dkim
import pytest

from pbem import create_app
from pbem.config import ConfigError, Settings, load_settings
from pbem.mailout.dkim import dkim_problems, record_value
from pbem.mailout.dkimkey import dkim_key
from tests.app import make_test_app
from tests.settings import SECRET_KEY, app_settings
from tests.web.helpers import PLAYERS, deliver, link_in, play_turn

# Test keys, made for these tests alone (openssl genpkey) and used nowhere else.
RSA_KEY = """-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDEmKfBywKYeFwo
JxZQoENeMQB+lXkCD0m6tMUhs0kX+MBuJElTk3ZJPvMw6OPCWF2HVNs5cXZBX8eK
UzPbQwAjH2O0LLhb1Knf1iDuppgzeBBfciKm/3i6saq8xE32DfNBDYd0flnnY7ny
vxpy+fNBrL1JwjKWVVWcSvVfX762x+/CaxmwIYUQLmRZZETWoevg82dq3ylDli0a
+hwoOmHgHAXwIYyGKIfJHxm/iewJIMDIubZJcF8a8e1Zinz+KKXBPQP2GlffZcvJ
0vO6SAy2ca5zRbW4zb4IXVX+BMcq2vGMfLQR60/BPeGcDPZmxQXiK3PECCkJQTSn
po2EF0nrAgMBAAECggEAOzZrWJAnoPqnbySOsQwEHmuN5ZJplvg50bU+pq7UNhcj
BkmBmF2Sw+7k2ndamh95VBh3yu5kmr4ZYI080i507R84LX1Grcn4vEVHN/oPX3kr
HURIMZpCp6B5d098175N5OsJQEoKFApSaE2szrJ/1OkNPhjymZrsJR3il65Dx9Mb
H3Qd2qIx/vc3lR5fAggHa7ftpeGeAzUBjfdU3PIMylUR9CBk4e/ozB0DEZCoVk+6
2P0RtSeZlWA4MCEo/9nXiqxdNGCPJYo/JrAnWXRVleOKc3gZGDtYZysX0waIhF2n
/adhZyCxa7bj0gGIlYI0ee/75g/OJetGU0/hODJM4QKBgQDpyirmN7K1U7pTqsx5
TWRxJTdu8iKHHb3fpVeshbfhlUnjRkQYLN2q6rLv/7Raje9uP6ZwOvPlq9e39eD6
aqme0WLXQbzK9luKTGjsQwg+GgZ4k6wz5R2lWrR8lMCKrVlfEf+zGBqtPDNlstDY
OybNguOqrIqK270r+KLf1mjWuwKBgQDXRe74fVJV9z1/FbmasE2U1KtqxaduF2+U
OFfkG6gaOCWdYEKTWp405A27S7YN5Ue+ghKuVuO51u/OBRX7siGx/qAc5f0kqYZI
5Wxw4oxF834gz63jMhx8Mp0mrjGHEJM+oNVjdS1e7oC7D0gykgn4CvltbK0zB4lL
2AHrskdekQKBgH6uhcBpvfRzgiuECXhRb3O/7uG3Yu5EN3bQaUmay6D4/CijEpLm
/NZ4hq11qYzIDE15P/7gcviovSN5oIcQ9QiR/TUW8e4owEGYVeJwEC9WetsracxV
AlNvaw12rT534E2buyqYjRwB2vfohTImG0iQ/Dyncgr8Nu10tQ0FaZmxAoGBAIcs
oqHmD41rcnIacjFwA0cxQ3IIKto2XRn1Rzs1IplUKEpp52Qfwrfze6vgHrEbB7HY
e2J9rQFEtc/n4aXqdL4P5PpAcHRU/r1HUpCPsQU7oDd6MPY4wSo7nfJr7y2getUY
qOWK7rJtkOfk8LDQgvH98iGD3D3uvYeiW5Jkn+wBAoGBAOMcu8mKHdrP5pBzU1bs
k+d0TyF2cvNnaM8Y284h8f+EAPutEaStKnrbzTl9PBiP8Loavc8G0FLFAC3IQVlm
wYofHtgBjfFxietHRYu8r9knsM2itDoOKGf0AXrOVV2hRTN4DZr0qFxM5LTBtauZ
rwdAyJeDxzlkiexpc1rn6wab
-----END PRIVATE KEY-----
"""
ED25519_KEY = """-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIHl9DMKIn3Y2Hc8+nrNtSBGsXlZ6dOjEGwMOB2s3yIin
-----END PRIVATE KEY-----
"""
SHORT_KEY = """-----BEGIN PRIVATE KEY-----
MIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEA2ce34zUDui6+4wvO
p0vD1tlUHWp3hiouz1PFqIUNs0F0FIqhpFcv5c+WESyZq0gthe/HSIc5xZDWchZO
BxVlRwIDAQABAkAfN2OCa+z22RB/lweuL0wJFenatZIgZxeCnG1utHO8R9fc5T3H
6iw3xeYlLBla55nWeSnRQVc2lGUOVTVn7kaRAiEA7Gib//+Bv4qcw562lFZwZijR
0baam5DPmqgq+UFBC8sCIQDr0+g8dH2vhswyBBYG4nhE/ae8Dt4pdozrtEY/whPU
9QIgUI6k+erbD6XwHUir9ogt7OHj/Y43yOLjm1PKsPznaVkCIQDlIZN3icfEj7g+
sHGmZsxsW/hpZBi/OIxbR2Ep+avDMQIhAJ3in/A5CNkX651LfNsdTmEOE6Q+Lhx/
PUfAvnyUkCnu
-----END PRIVATE KEY-----
"""
SELECTOR = "pbem2026"


ROOT = Path(__file__).resolve().parents[2]


def key_file(tmp_path: Path, text: str, name: str = "dkim.pem") -> str:
    """The key written where PBEM_DKIM_KEY_FILE may name it, readable by its owner alone."""
    path = tmp_path / name
    path.write_text(text)
    path.chmod(0o600)
    return str(path)


def dkim_settings(tmp_path: Path, key: str = RSA_KEY) -> dict[str, Any]:
    """Settings that make pbem sign: a selector, a key file, and a sender's domain."""
    return {
        "MAIL_FROM": "pbem@pbem.test",
        "DKIM_SELECTOR": SELECTOR,
        "DKIM_KEY_FILE": key_file(tmp_path, key),
    }


@pytest.fixture
def app(database_url: str, clock: Any, smtpd: Any, tmp_path: Path) -> Any:
    """The test app, signing its mail, with replies by mail (turn mails carry a Reply-To)."""
    app = make_test_app(
        database_url, clock, smtpd, tmp_path, REPLY_DOMAIN="in.pbem.test", **dkim_settings(tmp_path)
    )
    yield app
    app.extensions["pbem"]["engine"].dispose()


def published(app: Any) -> dict[bytes, bytes]:
    """The DNS as an operator who published what `pbem dkim-record` printed has it."""
    result = app.test_cli_runner().invoke(args=["dkim-record"])
    assert result.exit_code == 0, result.output
    name = re.search(r"name: +(\S+)", result.output)
    value = re.search(r"value: +(.+)", result.output)
    assert name and value, result.output
    assert name[1] == f"{SELECTOR}._domainkey.pbem.test"
    return {f"{name[1]}.".encode(): value[1].encode()}


def verifies(raw: bytes, dns: dict[bytes, bytes]) -> bool:
    """Whether the mail's first DKIM signature checks out against the keys in `dns`."""
    return bool(dkim.verify(raw, dnsfunc=lambda name, timeout=5: dns.get(name)))


def raw_to(smtpd: Any, address: str) -> list[bytes]:
    """The bytes of each mail to `address`, as the SMTP server received them."""
    with smtpd.lock:
        return [
            raw
            for msg, raw in zip(smtpd.messages, smtpd.raw, strict=True)
            if address in str(msg["To"])
        ]


def tags(raw: bytes) -> dict[str, str]:
    """The tags of the mail's DKIM-Signature header, white space removed."""
    header = re.match(rb"DKIM-Signature:(.*?)\r\n(?=\S)", raw, re.S)
    assert header, raw[:200]
    found = {}
    for part in header[1].decode().split(";"):
        name, _, value = part.partition("=")
        found[name.strip()] = "".join(value.split())
    return found


def new_game(client: Any, app: Any, players: list[tuple[str, str]], lang: str = "en") -> None:
    """A Colour Bazaar game from the lobby form, its invitations sent."""
    form = {"game": "colour-bazaar"}
    for row, (name, email) in enumerate(players):
        form[f"name_{row}"], form[f"email_{row}"] = name, email
    assert client.post(f"/games?lang={lang}", data=form).status_code == 303
    deliver(app)


def test_an_ascii_mail_verifies(client: Any, app: Any, smtpd: Any) -> None:
    new_game(client, app, [("Ana", "ana@example.org"), ("Bob", "bob@example.org")])
    (raw,) = raw_to(smtpd, "bob@example.org")
    head = raw.partition(b"\r\n\r\n")[0]
    assert b"To: Bob <bob@example.org>" in head and b"=?utf-8?" not in head
    assert raw.startswith(b"DKIM-Signature: ")
    signature = tags(raw)
    assert signature["d"] == "pbem.test" and signature["s"] == SELECTOR
    assert signature["a"] == "rsa-sha256" and signature["c"] == "relaxed/relaxed"
    signed = signature["h"].split(":")
    for name in ("from", "to", "subject", "date", "message-id", "mime-version", "content-type"):
        assert name in signed
    assert verifies(raw, published(app))


def test_a_french_mail_with_encoded_words_verifies(client: Any, app: Any, smtpd: Any) -> None:
    new_game(client, app, PLAYERS, lang="fr")
    (raw,) = raw_to(smtpd, "zoe@example.org")
    head = raw.partition(b"\r\n\r\n")[0]
    assert b"Subject: =?utf-8?b?" in head and b"To: =?utf-8?b?" in head  # "avec Ana et Léo"
    (mail,) = smtpd.to("zoe@example.org")
    assert str(mail["Subject"]) == "Colour Bazaar #1 avec Ana et Léo"
    assert "é" in mail.get_body(("plain",)).get_content()
    assert verifies(raw, published(app))


def test_turn_mails_verify_with_their_thread_headers(client: Any, app: Any, smtpd: Any) -> None:
    new_game(client, app, PLAYERS[:2])
    (invitation,) = smtpd.to("leo@example.org")
    assert client.post(f"{link_in(invitation)}/join").status_code == 303
    deliver(app)
    turn = next(m for m in smtpd.messages if m["Reply-To"])
    play_turn(client, link_in(turn))
    deliver(app)
    dns = published(app)
    turns = [raw for msg, raw in zip(smtpd.messages, smtpd.raw, strict=True) if msg["Reply-To"]]
    assert len(turns) >= 2
    for raw in turns:
        signed = tags(raw)["h"].split(":")
        for name in ("in-reply-to", "references", "reply-to", "list-unsubscribe"):
            assert name in signed
        assert "list-unsubscribe-post" in signed  # RFC 8058 4: one-click needs it signed
        assert verifies(raw, dns)
    assert all(verifies(raw, dns) for raw in smtpd.raw)


def test_a_mail_changed_after_signing_fails(client: Any, app: Any, smtpd: Any) -> None:
    new_game(client, app, PLAYERS[:2])
    (raw,) = raw_to(smtpd, "leo@example.org")
    dns = published(app)
    assert verifies(raw, dns)
    head, _, body = raw.partition(b"\r\n\r\n")
    changed_body = head + b"\r\n\r\n" + body.replace(b"Colour Bazaar", b"Colour Bazaar!", 1)
    assert not verifies(changed_body, dns)
    assert not verifies(raw.replace(b"Subject: Colour", b"Subject: Color", 1), dns)
    # A second From (or Subject, Reply-To) put in on the way: those are signed once more.
    second_from = raw.replace(b"\r\nFrom: ", b"\r\nFrom: Eve <eve@example.org>\r\nFrom: ", 1)
    assert not verifies(second_from, dns)
    reply_to = raw.replace(b"\r\nFrom: ", b"\r\nReply-To: eve@example.org\r\nFrom: ", 1)
    assert not verifies(reply_to, dns)
    # Relaxed canonicalization: a relay that refolds a header or pads its spaces breaks nothing.
    refolded = raw.replace(b"\r\nSubject: ", b"\r\nSubject:\r\n    ", 1)
    assert refolded != raw and verifies(refolded, dns)


def test_an_ed25519_key_signs_too(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Path
) -> None:
    app = make_test_app(
        database_url, clock, smtpd, tmp_path, **dkim_settings(tmp_path, ED25519_KEY)
    )
    client = app.test_client()
    new_game(client, app, PLAYERS, lang="fr")
    raws = raw_to(smtpd, "zoe@example.org")
    assert tags(raws[0])["a"] == "ed25519-sha256"
    dns = published(app)
    assert dns[f"{SELECTOR}._domainkey.pbem.test.".encode()].startswith(b"v=DKIM1; k=ed25519;")
    assert verifies(raws[0], dns)
    assert not verifies(raws[0].replace(b"Subject: ", b"Subject: Re: ", 1), dns)
    app.extensions["pbem"]["engine"].dispose()


def test_without_the_settings_nothing_is_signed(
    database_url: str, clock: Any, smtpd: Any, tmp_path: Path
) -> None:
    app = make_test_app(database_url, clock, smtpd, tmp_path)
    new_game(app.test_client(), app, PLAYERS[:2])
    assert smtpd.raw and not any(b"DKIM-Signature" in raw for raw in smtpd.raw)
    result = app.test_cli_runner().invoke(args=["dkim-record"])
    assert result.exit_code != 0 and "does not sign" in result.output
    app.extensions["pbem"]["engine"].dispose()


# The middle of the test key: the text that must never reach a message.
KEY_TEXT = RSA_KEY.splitlines()[5]
# A line of the first prime turned round: still base64 and DER, but no longer a key.
DAMAGED = RSA_KEY.replace(RSA_KEY.splitlines()[13], RSA_KEY.splitlines()[13][::-1])
PUBLIC = """-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAak9v/WeZFDrAiIgOG0QCd3YTBDfF900hQjvIHotMeS8=
-----END PUBLIC KEY-----
"""


@pytest.mark.parametrize(
    ("settings", "reason"),
    [
        ({"DKIM_KEY_FILE": "/nonexistent/dkim.pem"}, "cannot be read: No such file"),
        ({"key": f"not a key\n{KEY_TEXT}\n"}, "holds no PEM private key"),
        ({"key": PUBLIC}, "holds a PUBLIC KEY, not an unencrypted private key"),
        ({"key": DAMAGED}, "its numbers do not make an RSA key"),
        ({"key": SHORT_KEY}, "is a 512-bit RSA key"),
        ({"DKIM_KEY_FILE": ""}, "Set both PBEM_DKIM_SELECTOR and PBEM_DKIM_KEY_FILE"),
        ({"DKIM_SELECTOR": "pbem 2026"}, "PBEM_DKIM_SELECTOR must be"),
        ({"MAIL_FROM": "pbem@localhost"}, "must be a domain name, not 'localhost'"),
    ],
)
def test_a_bad_key_or_setting_refuses_at_start(
    tmp_path: Path, settings: dict[str, str], reason: str
) -> None:
    settings = dict(settings)
    config = dkim_settings(tmp_path, settings.pop("key", RSA_KEY)) | settings
    with pytest.raises(ConfigError) as refused:
        create_app(app_settings(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path, **config))
    assert reason in str(refused.value)
    assert KEY_TEXT not in str(refused.value) and "MII" not in str(refused.value)
    assert dkim_problems(typed(config)) == [str(refused.value)]


def test_the_clock_stops_at_start_on_an_unreadable_key(tmp_path: Path) -> None:
    """The process itself, as systemd starts it: it exits with the reason, not the key."""
    path = Path(key_file(tmp_path, RSA_KEY))
    path.chmod(0)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "PBEM_SECRET_KEY": SECRET_KEY,
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PBEM_MAIL_BACKEND": "smtp",
        "PBEM_MAIL_FROM": "pbem@pbem.test",
        "PBEM_DKIM_SELECTOR": SELECTOR,
        "PBEM_DKIM_KEY_FILE": str(tmp_path / "missing.pem" if os.geteuid() == 0 else path),
    }
    clock = subprocess.run(
        [sys.executable, "-c", "from pbem.console import main; main()", "clock"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert clock.returncode != 0
    assert "pbem clock running" not in clock.stdout
    assert "PBEM_DKIM_KEY_FILE" in clock.stderr and "cannot be read" in clock.stderr
    assert KEY_TEXT not in clock.stderr + clock.stdout


def test_problems_for_the_doctor(tmp_path: Path) -> None:
    config = dkim_settings(tmp_path)
    assert dkim_problems(typed({"MAIL_FROM": "pbem@pbem.test"})) == []  # pbem does not sign
    assert dkim_problems(typed(config)) == []
    # A parent domain aligns (DMARC relaxed); another does not.
    assert dkim_problems(typed(config | {"MAIL_FROM": "pbem@mail.pbem.test"})) == []
    (other,) = dkim_problems(typed(config | {"DKIM_DOMAIN": "example.net"}))
    assert "DMARC will not count the signature" in other
    Path(config["DKIM_KEY_FILE"]).chmod(0o644)
    (loose,) = dkim_problems(typed(config))
    assert "readable by others (mode 644)" in loose
    Path(config["DKIM_KEY_FILE"]).chmod(0o600)
    name = f"{SELECTOR}._domainkey.pbem.test"
    (missing,) = dkim_problems(typed(config), lookup=lambda _: None)
    assert f"No TXT record at {name}" in missing
    (stale,) = dkim_problems(typed(config), lookup=lambda _: "v=DKIM1; k=rsa; p=MIIBold")
    assert "holds another key" in stale
    record = published_value(config)
    assert dkim_problems(typed(config), lookup={name: record}.get) == []
    # A provider that splits the text or adds spaces publishes the same key.
    assert dkim_problems(typed(config), lookup={name: record.replace("p=", "p= ")}.get) == []


def published_value(config: dict[str, Any]) -> str:
    """The value `pbem dkim-record` prints for these settings."""
    return record_value(dkim_key(typed(config)))


def typed(config: dict[str, Any]) -> Settings:
    """These settings as a process reads them (PBEM_DEBUG: any key)."""
    return load_settings({"DEBUG": True} | config)
