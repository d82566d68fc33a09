"""The seat page (join, play, results), the move form with its confirmation, the spectator page."""

from __future__ import annotations

import secrets
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    after_this_request,
    g,
    redirect,
    render_template,
    request,
    url_for,
)
from sqlmodel import Session, select
from werkzeug.wrappers import Response

from pbem import moves, play
from pbem.errors import Gone, PlayError
from pbem.games import GAMES, IllegalMove
from pbem.mailout.replies import page_moves
from pbem.models import Game, Player, Seat, level_for
from pbem.players import account, home, notes, presence, talk
from pbem.present import presenter, rounds_viewed
from pbem.present.common import FormError, game_title, log_lines, result_names
from pbem.present.forms import NOTE_MAX, TALK_MAX, ExtendForm, TalkForm
from pbem.present.i18n import languages
from pbem.present.options import banked, time_control
from pbem.present.replay import deal_shown, unshared
from pbem.present.text import error_text, render_for, say
from pbem.present.timefmt import deadline_words, format_left, format_when
from pbem.seats.leave import leave as leave_game
from pbem.seats.leave import leaving_level
from pbem.seats.rematch import rematch as rematch_game
from pbem.storage import versions
from pbem.storage.db import read_connection, read_session, write_session
from pbem.storage.rounds import viewed_state
from pbem.storage.store import LoggedMove, id_of, log_of, seat_of, table_of
from pbem.takeback import consent
from pbem.web import bad_link, drafts, engine, live, now, site
from pbem.web.fragments import found, kept
from pbem.web.mailfix import table_context
from pbem.web.markup import said
from pbem.web.plan import plan_context
from pbem.web.review import offer as review_offer_of
from pbem.web.seats import (
    LOG_PAGE,
    open_seat,
    open_watch,
    seat_from,
    seat_payload,
    watch_payload,
)
from pbem.web.standing import standing_context
from pbem.webhooks.events import hooks_of_game

bp = Blueprint("game", __name__)


def _page(
    token: str, game_id: int, seat_no: int | None, status: int = 200, **extra: Any
) -> tuple[str, int]:
    """Render the page for a seat (or a spectator when seat_no is None)."""
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
        if game is None:
            abort(404)
        return _render_page(
            session, token, game, table_of(session, game_id, now()), seat_no, status, **extra
        )


def _game_of(token: str) -> Game:
    """The game of a seat's link, read for a page that asks before an act."""
    game_id, _ = seat_from(token)
    with read_session(engine()) as session:
        game = session.get(Game, game_id)
    assert game is not None
    return game


def error_page(
    token: str, game_id: int, seat_no: int, exc: PlayError, **extra: Any
) -> tuple[str, int]:
    """The seat's page with the error a request on it ended in (and what `extra` adds)."""
    return _page(token, game_id, seat_no, status=exc.status, error=exc, **extra)


def _render_page(
    session: Any,
    token: str,
    game: Game,
    table: list[tuple[Seat, Player, Any]],
    seat_no: int | None,
    status: int = 200,
    **extra: Any,
) -> tuple[str, int]:
    """Render the page from rows already read (the game and its table) in `session`."""
    seats = [seat for seat, _, _ in table]
    names = [s.name for s in seats]
    seat = seats[seat_no] if seat_no is not None else None
    tz = "UTC"
    if seat_no is not None:
        player = table[seat_no][1]
        tz = player.tz
        if "lang" not in request.args:
            g.lang = player.lang
        elif g.lang != player.lang:
            remember_language(player.id, g.lang)  # once this read is over
    lang = g.lang
    context: dict[str, Any] = {
        "token": token,
        "game": game,
        "seats": seats,
        "seat": seat,
        "names": names,
        "title": game_title(game, lang),
        "watch_link": site().watch_url(game),
        **extra,
    }
    context["talk"] = [
        {
            "id": m.id,
            "who": names[m.seat],
            "to": names[m.to_seat] if m.to_seat is not None else None,
            "mine": m.seat == seat_no,
            "text": m.text,
            "at": format_when(m.created_at, tz, lang),
        }
        for m in talk.visible(session, game, seat_no)
    ]
    # Others' messages carry a report button where reports go somewhere (PBEM_OPERATOR_EMAIL).
    context["can_report"] = seat_no is not None and bool(site().operator_email)
    context["deal"] = deal_shown(game, [s.share for s in seats], unshared(seats))
    context.update(table_context(session, table, seat_no, game.status, tz, lang, token))
    if game.status in ("forming", "active"):
        context.update(_live(token, game, seat_no is not None))
    if game.status in ("forming", "cancelled") or game.state is None:
        return render_template("game/join.html", **context), status
    if seat_no is not None and "note_text" not in extra:
        note = notes.note_of(session, id_of(game), seat_no)
        context["note_text"] = note.text if note is not None else ""
    context.update(note_max=NOTE_MAX, note_saved=bool(request.args.get("saved")))
    rules = GAMES[game.slug]
    shown = presenter(game.slug)
    # A paged log: the last LOG_PAGE moves unless the reader asked for all of them.
    whole = request.args.get("log") == "all"  # also every past round, for games that have them
    # Only the rounds the page shows are viewed: a page costs the same late in a long game.
    rounds = None if whole else rounds_viewed(shown, "page")
    state = viewed_state(session, game, rounds)  # the rounds shown that the state released
    view = rules.view(state, seat_no, rounds)
    first = 0 if whole else max(0, game.ply - LOG_PAGE)
    log = _log_since(session, game, first, seat_no, lang, names)
    # Lines after the reader's last move are marked new; when that move is older than the
    # page, every shown line of the others is new, as -1 gives.
    my_last = max((e["ply"] for e in log if e["seat"] == seat_no), default=-1)
    to_act = rules.to_act(game.state)
    # Seats a computer plays and the table waits on: their move comes by itself.
    thinking = [names[s] for s in to_act if level_for(game, seats[s]) is not None]
    if thinking and seat_no is not None:
        context.update(computers_thinking=thinking)
    context.update(
        view=view,
        table=shown.play_context(state, view, seat_no, lang, names, whole=whole),
        log=log,
        log_older=first,
        my_last=my_last,
        turn=rules.turn_token(game.state, seat_no) if seat_no is not None else "",
        to_act=[names[s] for s in to_act],
        again=seat_no is not None and seat_no in to_act,
        results=shown.results(game.outcome, result_names(seats, lang), lang)
        if game.outcome
        else None,
        rematch_link=_rematch_link(session, game, seat),
        review_offer=review_offer_of(session, game, seat_no),
        clocks=_clocks(game, table, tz, lang),
        clock_text=time_control(game, lang),
        next_game=_next_game(session, game, seat, rules),
        time_control=game.days_per_move,
        by_mail=page_moves(site(), game, seat, lang, names),
        plan=plan_context(game, seat, lang, names),
        standing=standing_context(game, seat, lang),
        **consent.for_page(session, game, seat_no, names),
    )
    return render_template(f"games/{game.slug}/page.html", **context), status


def _live(token: str, game: Game, seat_page: bool) -> dict[str, Any]:
    """What the page needs to keep itself up to date (static/live.js, pbem.web.live): its
    stream at `pbem live`, its poll for when the stream is down, its own address; a seat's
    page also says when it is hidden or left (the seat's mail is then not held)."""
    # A page showing "Your move is in" (?done=1) fetches itself with it: the notice stays,
    # and says "it is your turn again" once the next answer has come.
    done = 1 if seat_page and request.args.get("done") else None
    page = url_for("game.seat_page" if seat_page else "game.watch_page", token=token, done=done)
    return {
        "reload_url": page,
        "live": live.page_live(
            stream=f"{'p' if seat_page else 'w'}/{token}",
            poll=url_for("game.seat_ply" if seat_page else "game.watch_ply", token=token),
            page=page,
            shown=versions.Shown(game.version, game.ply, game.status),
            away=url_for("game.away", token=token) if seat_page else "",
        ),
    }


def _log(
    game: Game, moves: list[LoggedMove], seat_no: int | None, lang: str, names: list[str]
) -> list[dict[str, Any]]:
    """The log's entries as this reader reads them: a move's lines never change once written,
    so each is put in words once per reader and language (pbem/web/fragments.py)."""
    known = _log_key(game, seat_no, lang, names)
    return [kept(("log", m.ply, *known), partial(_entry, m, seat_no, lang, names)) for m in moves]


def _log_key(game: Game, seat_no: int | None, lang: str, names: list[str]) -> tuple[Any, ...]:
    # A move taken back leaves its ply to the next move: the count keeps their lines apart.
    return (game.id, str(game.created_at), game.takebacks, seat_no, lang, tuple(names))


def _log_since(
    session: Any, game: Game, first: int, seat_no: int | None, lang: str, names: list[str]
) -> list[dict[str, Any]]:
    """The log's entries from ply `first` to the game's last move, as `_log` gives them; the
    moves are read from the database only from the first one not yet kept (a game's moves
    are plies 0 to game.ply - 1, and a logged move never changes)."""
    known = _log_key(game, seat_no, lang, names)
    entries: list[dict[str, Any]] = []
    for ply in range(first, game.ply):
        entry = found(("log", ply, *known))
        if entry is None:
            moves = log_of(session, game, seat_no, since=ply)
            return entries + _log(game, moves, seat_no, lang, names)
        entries.append(entry)
    return entries


def _entry(move: LoggedMove, seat_no: int | None, lang: str, names: list[str]) -> dict[str, Any]:
    entry = log_lines([move], seat_no, lang, names)[0]
    # Its HTML is made with it: a page shows a dozen entries, twice for the newest.
    return {**entry, "html": said(entry["text"])}


def _rematch_link(session: Any, game: Game, seat: Seat | None) -> str | None:
    """This player's seat in the rematch of this game, once someone asked for one."""
    if seat is None or game.status != "over":
        return None
    again = session.exec(select(Game).where(Game.rematch_of == game.id)).first()
    if again is None:
        return None
    mine = session.exec(
        select(Seat).where(Seat.game_id == again.id, Seat.player_id == seat.player_id)
    ).first()
    return urlsplit(site().seat_url(mine)).path if mine else None


def _next_game(session: Any, game: Game, seat: Seat | None, rules: Any) -> dict[str, Any] | None:
    """Once this seat has moved: the player's most urgent game where it is their move, or /me."""
    if seat is None or game.state is None or seat.seat in rules.to_act(game.state):
        return None
    link = home.next_game(session, site(), seat.player_id, now(), besides=game.id)
    return {"link": link or url_for("me.home"), "found": link is not None}


def remember_language(player_id: int | None, lang: str) -> None:
    """The EN/FR switch on a player's own page sets their language for pages and mail.

    Written after the response is built, so the page's read is over before this write.
    """

    @after_this_request
    def _save(response: Response) -> Response:
        with write_session(engine()) as session:
            player = session.get(Player, player_id)
            if player is not None and lang in languages():
                player.lang = lang
                session.add(player)
        return response


def _clocks(
    game: Game, table: list[tuple[Seat, Player, Any]], tz: str, lang: str
) -> list[dict[str, Any]]:
    """Per seat, in the viewer's time zone: deadline, banked time, vacation, absence."""
    moment = now()
    return [
        {
            "seat": s.seat,
            "name": s.name,
            **deadline_words(s.deadline, moment, tz, lang),
            "away_text": format_when(away, tz, lang) if away is not None else "",
            "bank_text": _kept_words(game, s, lang),
            "absent": s.absent,
            "left": s.left,
        }
        for s, _, away in table
    ]


def _kept_words(game: Game, seat: Seat, lang: str) -> str:
    """The seat's banked time in words ("" for a per-move clock)."""
    kept = banked(game, seat)
    if kept is None:
        return ""
    return format_left(kept, lang) if kept else say(lang, "clock.nothing")


@bp.get("/p/<token>")
def seat_page(token: str) -> tuple[str, int]:
    """The seat's page: invitation, table or results, as the game stands; with `review`, the
    move kept by "Review the move" in words, and with `change`, the form refilled with it."""
    notice = "done" if request.args.get("done") else None
    # The page alone records no look: only its script's poll does (seat_ply), which also
    # keeps the page up to date. A page without JavaScript shows no move as it comes, so
    # its player's mail is never held.
    with read_session(engine()) as session:
        game, table, seat_no = open_seat(session, token)
        return _render_page(
            session,
            token,
            game,
            table,
            seat_no,
            notice=notice,
            **_draft_shown(game, table, seat_no),
        )


def _draft_shown(game: Game, table: list[tuple[Seat, Player, Any]], seat_no: int) -> dict[str, Any]:
    """The review (or the refilled form) of the draft move, while it is still this seat's
    turn as it was when the draft was made; nothing when the game has moved on."""
    wanted = next((w for w in ("review", "change") if request.args.get(w)), "")
    draft = drafts.read() if wanted else None
    if draft is None or game.status != "active" or game.state is None:
        return {}
    rules = GAMES[game.slug]
    if draft.get("turn") != rules.turn_token(game.state, seat_no):
        return {}
    if wanted == "change":
        return {"chosen": draft}
    try:
        return {"confirm": _review(game, table, seat_no, draft)}
    except (FormError, IllegalMove, PlayError):
        return {"chosen": draft}


def _review(
    game: Game, table: list[tuple[Seat, Player, Any]], seat_no: int, form: dict[str, str]
) -> dict[str, Any]:
    """The move a form describes, in the words of the log as the mover may read them, said
    to them ("You play…"), in their page's language."""
    the_move = presenter(game.slug).parse_form(form)
    if game.state is None:
        raise Gone("play.error.not_active")
    # Promise 4: the review shows only what the mover may see before sending.
    lines = GAMES[game.slug].review(game.state, seat_no, the_move)
    names, lang = [seat.name for seat, _, _ in table], _seat_lang(table, seat_no)
    words = [render_for(m, lang, names, seat_no, review=True) for m in lines]
    return {"lines": words, "form": form}


def _seat_lang(table: list[tuple[Seat, Player, Any]], seat_no: int) -> str:
    """The language of a seat's page (as _render_page sets it): ?lang= when the address
    gives one, else its player's own; a form posted from the page carries no ?lang=."""
    return str(g.lang) if "lang" in request.args else table[seat_no][1].lang


@bp.get("/p/<token>/ply")
def seat_ply(token: str) -> Response:
    """How far the game has gone, for the page's poll (static/live.js, when its stream is
    down, every few seconds while the page is visible): a look at one row, 304 while the
    version the page names holds, and the seat marked as looking (a write at most every
    20 s: pbem.players.presence)."""
    game_id, seat_no, key = seat_payload(token)
    moment = now()
    with read_connection(engine()) as connection:
        # These columns alone: the state (36 KB of JSON late in a Fantasy Business
        # game) is not read for a poll every few seconds.
        found = versions.of_seat(connection, game_id, seat_no)
    if found is None or not secrets.compare_digest(found.link_key, key):
        bad_link()  # as a seat page would answer (seats.key_fits: revoked links too)
    if found.shown.status in ("forming", "active"):
        presence.mark_seen(engine(), game_id, seat_no, found.seen_at, moment)
    return live.answer(found.shown)


@bp.post("/p/<token>/away")
def away(token: str) -> tuple[str, int]:
    """The seat's page was hidden or left (the page's script says so as it goes): the
    player is no longer looking, so a move that makes them due mails them at once."""
    game_id, seat_no = seat_from(token)
    presence.mark_away(engine(), game_id, seat_no, now())
    return "", 204


@bp.get("/w/<token>")
def watch_page(token: str) -> tuple[str, int]:
    """The read-only spectator page: no hand is shown."""
    with read_session(engine()) as session:
        game, table = open_watch(session, token)
        return _render_page(session, token, game, table, None)


@bp.get("/w/<token>/ply")
def watch_ply(token: str) -> Response:
    """How far the game has gone, for the spectator page's poll: what its page shows too.
    A spectator is nobody's seat: nothing is recorded."""
    game_id, key = watch_payload(token)
    with read_connection(engine()) as connection:
        found = versions.of_watch(connection, game_id)
    if found is None or not secrets.compare_digest(found[1], key):
        bad_link()
    return live.answer(found[0])


def _lobby_action(token: str, action: Any) -> Response | tuple[str, int]:
    game_id, seat_no = seat_from(token)
    try:
        with write_session(engine()) as session:
            action(session, site(), game_id, seat_no, now())
    except PlayError as exc:
        return error_page(token, game_id, seat_no, exc)
    return redirect(url_for("game.seat_page", token=token), code=303)


@bp.post("/p/<token>/join")
def join(token: str) -> Response | tuple[str, int]:
    """Accept the invitation, with the player's share of a checkable deal."""
    return _lobby_action(token, partial(play.join, share=request.form.get("share", "")))


@bp.post("/p/<token>/decline")
def decline(token: str) -> Response | tuple[str, int]:
    """Refuse the invitation."""
    return _lobby_action(token, play.decline)


@bp.get("/p/<token>/cancel")
def cancel_page(token: str) -> tuple[str, int]:
    """Ask before calling the game off: it cannot be undone."""
    title = game_title(_game_of(token), g.lang)
    return render_template("game/cancel.html", token=token, title=title), 200


@bp.post("/p/<token>/cancel")
def cancel(token: str) -> Response | tuple[str, int]:
    """The creator calls the game off before it starts."""
    return _lobby_action(token, play.cancel)


@bp.post("/p/<token>/back")
def back(token: str) -> Response | tuple[str, int]:
    """An absent player takes their seat back."""
    game_id, seat_no = seat_from(token)
    with write_session(engine()) as session:
        account.come_back(session, game_id, seat_no, now())
    return redirect(url_for("game.seat_page", token=token), code=303)


@bp.post("/p/<token>/extend")
def extend(token: str) -> Response | tuple[str, int]:
    """The creator adds days to a seat's deadline."""
    game_id, seat_no = seat_from(token)
    try:
        extra = ExtendForm.read(request.form)
        with write_session(engine()) as session:
            account.add_time(session, game_id, seat_no, extra.seat, extra.days)
    except PlayError as exc:
        return error_page(token, game_id, seat_no, exc)
    return redirect(url_for("game.seat_page", token=token), code=303)


@bp.post("/p/<token>/talk")
def talk_post(token: str) -> Response | tuple[str, int]:
    """Add a table-talk message; it travels in each recipient's next mail."""
    game_id, seat_no = seat_from(token)
    try:
        message = TalkForm.read({"to": "all", **request.form.to_dict()})
        with write_session(engine()) as session:
            talk.post(session, game_id, seat_no, message, now())
    except PlayError as exc:
        return error_page(
            token,
            game_id,
            seat_no,
            exc,
            draft=request.form.get("text", "")[:TALK_MAX],
        )
    return redirect(url_for("game.seat_page", token=token, _anchor="talk"), code=303)


@bp.post("/p/<token>/move")
def move(token: str) -> Response | tuple[str, int]:
    """Check the turn form, ask for confirmation, then apply it once."""
    form = request.form
    turn = form.get("turn", "")
    moment = now()
    # One read: the link's seat checked against the game and seats the move needs; a
    # refusal, the review and the move's plan are all made from these rows.
    with read_connection(engine()) as connection:
        game, table, seat_no = open_seat(connection, token, moment)
        page = partial(_render_on, connection, token, game, table, seat_no)
        names = [seat.name for seat, _, _ in table]
        state = game.state
        if game.status != "active" or state is None:
            return page(status=409, error=Gone("play.error.not_active"))
        try:
            moves.check_turn(GAMES[game.slug], state, seat_no, turn)
            if form.get("confirm") != "1":
                review = _review(game, table, seat_no, form.to_dict())
                return _to_review(token, review, page)
            the_move = presenter(game.slug).parse_form(form)
        except FormError as exc:
            return page(status=400, error=PlayError(exc.key))
        except IllegalMove as exc:
            why = error_text(exc, _seat_lang(table, seat_no), names)
            return page(status=400, move_error=why)
        except PlayError as exc:
            return page(status=exc.status, error=exc)
        read = moves.table_read(game, table, hooks_of_game(connection, game.id))
    try:
        moves.play(engine(), site(), read, seat_no, the_move, turn, moment)
    except IllegalMove as exc:
        why = error_text(exc, _seat_lang(table, seat_no), names)
        return _page(token, id_of(game), seat_no, status=400, move_error=why)
    except PlayError as exc:
        return error_page(token, id_of(game), seat_no, exc)
    done = redirect(url_for("game.seat_page", token=token, done=1), code=303)
    drafts.drop(done, token)
    return done


def _render_on(connection: Any, *args: Any, **extra: Any) -> tuple[str, int]:
    """_render_page, in an ORM session on the connection the request reads with (made only
    for a page: a move that goes through reads its rows without one)."""
    with Session(bind=connection, expire_on_commit=False) as session:
        return _render_page(session, *args, **extra)


def _to_review(token: str, review: dict[str, Any], page: Any) -> Response | tuple[str, int]:
    """POST, redirect, GET: the review becomes a page of its own, in view at its anchor, that
    reloads and switches language; a form too large for the cookie is reviewed in place."""
    value = drafts.encode(review["form"])
    if value is None:
        shown: Response | tuple[str, int] = page(confirm=review)
        return shown
    response = redirect(
        url_for("game.seat_page", token=token, review=1, _anchor="confirm"), code=303
    )
    drafts.keep(response, token, value)
    return response


@bp.post("/p/<token>/rematch")
def rematch(token: str) -> Response | tuple[str, int]:
    """Start the same game again with the same players, or go to the rematch already made;
    the asker's share of its deal comes with the press (static/deal.js)."""
    game_id, seat_no = seat_from(token)
    share = request.form.get("share", "")
    try:
        with write_session(engine()) as session:
            again = rematch_game(session, site(), game_id, seat_no, now(), share)
            player_id = seat_of(session, game_id, seat_no).player_id
            mine = session.exec(
                select(Seat).where(Seat.game_id == again.id, Seat.player_id == player_id)
            ).one()
            link = urlsplit(site().seat_url(mine)).path
    except PlayError as exc:
        return error_page(token, game_id, seat_no, exc)
    return redirect(link, code=303)


@bp.get("/p/<token>/leave")
def leave_page(token: str) -> tuple[str, int]:
    """Ask before leaving: leaving cannot be undone."""
    game = _game_of(token)
    title = game_title(game, g.lang)
    # The game's takeover level takes the seat; with none chosen, the default one.
    level = say(g.lang, f"lobby.level.{leaving_level(game)}")
    return render_template(
        "game/leave.html", token=token, title=title, level=level, rated=game.rated
    ), 200


@bp.post("/p/<token>/leave")
def leave(token: str) -> Response | tuple[str, int]:
    """Leave the game: the server plays this seat's turns from now on."""
    return _lobby_action(token, leave_game)
