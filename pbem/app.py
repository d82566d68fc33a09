"""The Flask application: configuration, database, mail environment, blueprints, errors."""

from __future__ import annotations

import gc
import logging
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from flask import Flask, g, redirect, render_template, request, url_for
from flask_babel import Babel, get_locale
from sqlalchemy.exc import InterfaceError, OperationalError
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header
from werkzeug.wrappers import Response

from pbem.cli import register
from pbem.config import database_settings, load_settings, thread_domain
from pbem.mailout.dkimkey import dkim_key
from pbem.mailout.mailer import make_templates
from pbem.mailout.notify import OutboxMail
from pbem.players.signin import SESSION_DAYS
from pbem.present import check_parts
from pbem.present.i18n import best_lang, language_name, languages, set_directories
from pbem.present.text import install_jinja, say
from pbem.resources import folder
from pbem.site import Site
from pbem.storage.db import make_engine
from pbem.storage.pooler import refuse_unannounced_pooler
from pbem.web import (
    account,
    api,
    apileagues,
    bodies,
    csrf,
    devmail,
    fragments,
    game,
    health,
    leagues,
    lobby,
    mailfix,
    markup,
    me,
    notes,
    opentables,
    plan,
    players,
    replay,
    reports,
    review,
    rules,
    signin,
    standing,
    takeback,
    verify,
    webhooks,
)
from pbem.web.live import connect_sources, live_base
from pbem.web.proxies import TrustedProxies

app_log = logging.getLogger("pbem")
# Seat pages carry their secret in the URL: no referrer, no caching, no framing, and
# only our own scripts and styles.
SECURITY_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
        " form-action 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'"
    ),
}
# https sites are visited over https only from the first answer on (a year; subdomains
# are the operator's to decide, so they are not included).
HSTS = "max-age=31536000"
FILE_MAIL_WARNING = (
    "PBEM_MAIL_BACKEND is 'file' and PBEM_DEBUG is off: mail goes nowhere. Invitations and"
    " turn mails are only written to %s and nobody receives them; set PBEM_MAIL_BACKEND=smtp."
)


def utcnow() -> datetime:
    """The current time, aware, in UTC."""
    return datetime.now(UTC)


# What a test's config may hold beside pbem's settings: Flask's TESTING, the clock it moves,
# and catalogues of its own (a new language). The rest are settings (pbem.config.Settings).
NO_SETTINGS = ("TESTING", "CLOCK", "TRANSLATIONS_DIRS")


def build_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Create the application; see pbem.create_app."""
    app = Flask(
        "pbem",
        template_folder=str(folder("templates")),
        static_folder=str(folder("static")),
        instance_path=str(Path.cwd() / "instance"),
    )
    given = dict(test_config or {})
    own = {key: given.pop(key) for key in NO_SETTINGS if key in given}
    settings = load_settings(given)
    dkim_key(settings)  # a bad DKIM key stops every process at start, naming the setting
    # Flask's own keys: its session's signing key and debug mode are pbem's settings.
    app.config.update(own, SECRET_KEY=settings.secret_key.get_secret_value(), DEBUG=settings.debug)
    # Signing in keeps the player in Flask's signed session cookie, 90 days on the device.
    app.config["PERMANENT_SESSION_LIFETIME"] = timedelta(days=SESSION_DAYS)
    app.config["SESSION_COOKIE_SAMESITE"] = "Lax"
    app.config["SESSION_COOKIE_SECURE"] = settings.base_url.startswith("https://")
    app.config.setdefault("CLOCK", utcnow)
    database = database_settings(settings)
    engine = make_engine(settings.database_url, database)
    # Every process is built here (gunicorn's workers, the clock, computer workers, inbound,
    # the commands): none runs over connections that fail after five uses of a statement.
    refuse_unannounced_pooler(settings.database_url, database)
    site = Site(
        secret=settings.secret_key.get_secret_value(),
        base_url=settings.base_url,
        mail_templates=make_templates(reload=settings.debug),
        domain=thread_domain(settings),
        reply_domain=settings.reply_domain,
        turn_mail_delay=timedelta(seconds=settings.turn_mail_delay),
        operator_email=settings.operator_email,
        mail=OutboxMail(),
    )
    app.extensions["pbem"] = {"engine": engine, "site": site, "settings": settings}
    trusted = settings.trusted_proxies
    if trusted:
        # Off: no header is read, exactly as without a proxy.
        app.wsgi_app = TrustedProxies(app.wsgi_app, trusted)  # type: ignore[method-assign]
    check_parts(app.jinja_env, site.mail_templates.text)  # a game missing a part fails here

    app.register_blueprint(health.bp)  # first: /metrics is answered before any other hook
    app.register_blueprint(lobby.bp)
    app.register_blueprint(game.bp)
    app.register_blueprint(plan.bp)
    app.register_blueprint(standing.bp)
    app.register_blueprint(takeback.bp)
    app.register_blueprint(account.bp)
    app.register_blueprint(webhooks.bp)
    app.register_blueprint(rules.bp)
    app.register_blueprint(signin.bp)
    app.register_blueprint(me.bp)
    app.register_blueprint(mailfix.bp)
    app.register_blueprint(players.bp)
    app.register_blueprint(reports.bp)
    app.register_blueprint(notes.bp)
    app.register_blueprint(verify.bp)
    app.register_blueprint(replay.bp)
    app.register_blueprint(review.bp)
    # The API's one blueprint (pbem.web.api's), with the routes pbem.web.apiplayer and
    # apileagues add to it: apileagues imports apiplayer, which imports api.
    app.register_blueprint(apileagues.bp)
    app.register_blueprint(opentables.bp)
    app.register_blueprint(leagues.bp)
    if settings.mail_backend == "file":
        if settings.debug:
            # The mailbox shows every player's links: only for local use.
            app.register_blueprint(devmail.bp)
        else:
            app_log.warning(FILE_MAIL_WARNING, settings.mail_dir)

    base = urlsplit(settings.base_url)
    headers = dict(SECURITY_HEADERS)
    if base.scheme == "https":
        headers["Strict-Transport-Security"] = HSTS

    @app.after_request
    def _harden(response: Response) -> Response:
        for name, value in headers.items():
            response.headers.setdefault(name, value)
        # Read per answer: `pbem serve` points PBEM_LIVE_URL at its own live port.
        streams = connect_sources(live_base(settings))
        if streams != "'self'":
            policy = response.headers["Content-Security-Policy"]
            response.headers["Content-Security-Policy"] = f"{policy}; connect-src {streams}"
        if request.endpoint != "static":
            # Static files hold no secret and may be revalidated; every page is never stored.
            response.headers["Cache-Control"] = "no-store"
        location = response.headers.get("Location")
        if location:
            # Redirects point at PBEM_BASE_URL only, whatever Host the request named.
            parts = urlsplit(location)
            if parts.scheme or parts.netloc:
                response.headers["Location"] = urlunsplit(
                    (base.scheme, base.netloc, parts.path, parts.query, parts.fragment)
                )
        return response

    # Catalogues: translations/ plus any directories a test config adds (a new language).
    set_directories(own.get("TRANSLATIONS_DIRS", ()))
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = ";".join(
        str(d) for d in (*own.get("TRANSLATIONS_DIRS", ()), folder("translations"))
    )
    Babel(app, locale_selector=_select_locale, configure_jinja=False)
    install_jinja(app.jinja_env)

    @app.before_request
    def _pick_language() -> None:
        g.lang = str(get_locale() or "en")

    @app.get("/favicon.ico")
    def _favicon() -> Any:
        """Browsers ask for /favicon.ico whatever the page says: send them the SVG."""
        return redirect(url_for("static", filename="favicon.svg"), code=301)

    @app.context_processor
    def _helpers() -> dict[str, Any]:
        return {
            "lang": g.get("lang", "en"),
            "languages": languages(),
            "language_name": language_name,
            "lang_link": _lang_link,
            "signed_in": _signed_in(),
            # The local mailbox (file backend, debug only): pages link to it when it is there.
            "local_mailbox": "devmail" in app.blueprints,
        }

    bodies.init_app(app)  # before the form token check, which reads the form
    csrf.init_app(app)
    markup.init_app(app)
    fragments.init_app(app)

    register(app)
    for code in (400, 403, 404, 405, 409, 413, 415, 429, 500):
        app.register_error_handler(code, _error_page)
    app.register_error_handler(OperationalError, _database_down)
    app.register_error_handler(InterfaceError, _database_down)
    if test_config is None:
        settle()
    return app


def settle() -> None:
    """Put what the process has built so far out of the garbage collector's sight.

    The app, its modules and its compiled templates live as long as the process; a full
    collection (one every dozen Fantasy Business pages) walked them all each time, some 60M
    instructions. Frozen, it walks only what requests made. A test's app is not frozen:
    a test run builds hundreds, whose cycles must stay collectable.
    """
    gc.collect()
    gc.freeze()


def _signed_in() -> bool:
    """Whether the page's header offers "My games" and "Sign out" (a stale cookie: no)."""
    try:
        return signin.current_player_id() is not None
    except (OperationalError, InterfaceError):
        return False  # the database is down: the error page that says so still shows


def _lang_link(code: str) -> str:
    """This page in language `code`: the same address and arguments (a review stays a review);
    for the answer to a form, the page the form was on (the view names it in g.form_page; else
    the page of the link), since a POST address answers no GET."""
    path = request.path
    token = (request.view_args or {}).get("token")
    if request.method != "GET" and g.get("form_page"):
        path = g.form_page
    elif request.method != "GET" and token and path[:3] in ("/p/", "/w/"):
        path = path[:3] + str(token)
    args = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    return path + "?" + urlencode([*args, ("lang", code)])


def _select_locale() -> str:
    """The page's language: ?lang=, then the cookie, then Accept-Language (q-values counted)."""
    chosen = request.args.get("lang") or request.cookies.get("lang")
    if chosen in languages():
        return str(chosen)
    return _header_language(request.headers.get("Accept-Language", ""), languages())


@lru_cache(maxsize=512)
def _header_language(header: str, offered: tuple[str, ...]) -> str:
    """best_lang of an Accept-Language header, worked out once per header and set of
    languages (`offered`, the cache's key): a site's browsers send few distinct ones, and
    every request, an open page's poll too, asks."""
    return best_lang(parse_accept_header(header, LanguageAccept))


# The API's error codes for HTTP errors raised outside its own answers.
API_CODES = {
    400: "bad_request",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "not_active",
    413: "too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    503: "unavailable",
}


def _api_error(error: Any, code: int) -> Any:
    """An HTTP error on an API path, as JSON (with Allow on a 405)."""
    lang = g.get("lang", "en")
    message = say(lang, f"error.http.{code}")
    answer, status = api.error(code, API_CODES.get(code, "http_error"), message)
    if code == 405 and getattr(error, "valid_methods", None):
        answer.headers["Allow"] = ", ".join(error.valid_methods)
    return answer, status


def _database_down(error: Any) -> Any:
    """The database did not answer: nothing was written (the transaction never committed)."""
    app_log.warning("database unavailable: %s", error)
    if api.is_api():
        return _api_error(error, 503)
    return render_template("error.html", code=503, key="error.http.503"), 503


def _error_page(error: Any) -> Any:
    code = getattr(error, "code", 500) or 500
    if api.is_api():
        return _api_error(error, code)
    return render_template("error.html", code=code, key=f"error.http.{code}"), code
