"""The web table's Starlette app (``hilo serve``): the page, its script, and a JSON API over
:mod:`hilo_env.web.sessions`.

=======================================  ==================================================
``GET /``                                the page (``static/index.html``; ``/static/...``)
``GET /api/games``                       the registry: each game's presets, the player
                                         counts each seats, agents (by name) and baseline
``GET /api/agents``                      the agents that play a table (``?game=G&rules=
                                         PRESET&players=N``): ``{"agents": [names],
                                         "refused": {name: why}}``
``POST /api/matches``                    a new game to play or watch: ``{"game", "mode":
                                         "play"|"watch", "rules", "players", "seat",
                                         "agents", "seed", "count"}`` -> ``{"id", "view"}``
``POST /api/replays``                    a replay file's JSON -> ``{"id", "view"}``
``GET /api/sessions/{id}``               the view (``?viewer=SEAT`` for a spectator;
                                         replays: ``?episode=E&step=S``)
``POST /api/sessions/{id}/act``          the person's move ``{"action", "version"}``
``POST /api/sessions/{id}/advance``      an agent's move, or the next deal: ``{"version"}``
``GET /api/sessions/{id}/replay``        the match as a replay file (a person's match: once
                                         it is over)
``GET /api/sessions/{id}/frame.png``     the same table as the ``rgb_array`` frame draws
                                         it (the view's query)
=======================================  ==================================================

A refusal is ``{"error": message}`` with its status (400 bad input, 403 a missing token, 404
unknown id, 409 a stale or out-of-turn move, 413 a body over the limit, 415 a body that is not
JSON, 503 the server busy reading other replays). On the loopback the app answers only
requests addressed to the host it serves (no DNS rebinding); served on another address
(``hilo serve --host ADDRESS --public``) every API call must carry the token printed at
start (``X-Hilo-Token`` header or ``?token=``). It takes JSON bodies only (a form on another
site cannot post to it) and may not be framed by another page.
"""

from __future__ import annotations

import ipaddress
import secrets
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers, MutableHeaders, QueryParams
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hilo_env import games
from hilo_env.picture import picture, png
from hilo_env.web.fitting import fitting
from hilo_env.web.limits import MAX_BODY_BYTES, Refused, parse_json
from hilo_env.web.sessions import IDLE_SECONDS, MAX_SESSIONS, Match, Sessions

STATIC = Path(__file__).parent / "static"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")
TOKEN_HEADER = "x-hilo-token"
REPLAYS_AT_ONCE = 2
"""Replay files read at once (each is played through once as it is read); more wait: 503."""
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
"""Sent with every answer: no other page may frame this one (clickjacking), no script or style
from elsewhere, and the token in the address never leaves in a Referer."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def seat_counts(name: str) -> dict[str, list[int]]:
    """The player counts each preset of game ``name`` seats."""
    spec = games.get(name)
    counts = {}
    for preset in spec.presets:
        fits = []
        for n in range(spec.min_players, spec.max_players + 1):
            try:
                spec.rules(preset, n)
            except ValueError:
                continue
            fits.append(n)
        counts[preset] = fits
    return counts


def catalogue() -> list[dict[str, Any]]:
    """What the page offers: every game of the registry and its agents by name."""
    out = []
    for name in games.names():
        spec = games.get(name)
        out.append({"name": name, "title": spec.title, "description": spec.description,
                    "presets": list(spec.presets), "min_players": spec.min_players,
                    "max_players": spec.max_players, "baseline": spec.baseline,
                    "unit": spec.unit, "cooperative": spec.cooperative,
                    "players": {p: len(spec.raw_env(spec.rules(p)).possible_agents)
                                for p in spec.presets},
                    "seats": seat_counts(name),
                    "agents": list(spec.agent_factories())})
    return out


def agents_for(game: Any, rules: Any, players: Any) -> dict[str, Any]:
    """The agents of ``game`` that play preset ``rules`` at ``players`` seats, and why the
    others do not."""
    try:
        spec = games.get(game)
    except ValueError as exc:
        raise Refused(str(exc)) from None
    if rules not in spec.presets:
        raise Refused(f"'rules' is a preset of {spec.title} ({', '.join(spec.presets)}), "
                      f"not {rules!r}")
    try:
        ruleset = spec.rules(rules, None if players is None else int(players))
    except ValueError as exc:
        raise Refused(str(exc)) from None
    table = fitting(spec.name, ruleset)
    return {"agents": [a for a, why in table.items() if why is None],
            "refused": {a: why for a, why in table.items() if why is not None}}


def refusing(handler: Callable[[Request], Awaitable[Response]]
             ) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` with a :class:`Refused` answered as ``{"error": message}`` and its
    status."""

    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except Refused as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)

    return answer


async def _body(request: Request) -> Any:
    """The request's JSON body, read up to :data:`MAX_BODY_BYTES` and parsed off the event
    loop."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise Refused("send the request as JSON (Content-Type: application/json)", 415)
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise Refused(f"the request body is {int(declared):,} bytes; this table takes at "
                      f"most {MAX_BODY_BYTES:,} (limits.MAX_BODY_BYTES)", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise Refused(f"the request body is over {MAX_BODY_BYTES:,} bytes, the most "
                          "this table takes (limits.MAX_BODY_BYTES)", 413)
        chunks.append(chunk)
    return await run_in_threadpool(parse_json, b"".join(chunks))


def _query_int(request: Request, key: str) -> int | None:
    text = request.query_params.get(key)
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise Refused(f"'{key}' must be an integer, not {text[:40]!r}") from None


def where(session: Any, request: Request) -> tuple[int | None, ...]:
    """The view a request asks for: ``(viewer,)`` of a match, ``(episode, step, viewer)`` of a
    replay, from its query (``?viewer=``, ``?episode=``, ``?step=``)."""
    viewer = _query_int(request, "viewer")
    if isinstance(session, Match):
        return (viewer,)
    return _query_int(request, "episode") or 0, _query_int(request, "step") or 0, viewer


class Guard:
    """ASGI middleware: :data:`HEADERS` on every answer, and with a ``token`` an API call
    without it refused (403)."""

    def __init__(self, app: ASGIApp, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.token is not None and scope["path"].startswith("/api/"):
            given = Headers(scope=scope).get(TOKEN_HEADER) or \
                QueryParams(scope.get("query_string", b"")).get("token") or ""
            if not secrets.compare_digest(given.encode(), self.token.encode()):
                answer = JSONResponse({"error": "this server takes API calls with its token "
                                                "only: open the address hilo serve printed "
                                                "(it ends in ?token=...)"}, status_code=403)
                await self._headed(answer)(scope, receive, send)
                return

        async def send_headed(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in HEADERS.items():
                    headers[key] = value
            await send(message)

        await self.app(scope, receive, send_headed)

    @staticmethod
    def _headed(response: Response) -> Response:
        response.headers.update(HEADERS)
        return response


def create_app(host: str = "127.0.0.1", token: str | None = None,
               limit: int = MAX_SESSIONS, idle: float = IDLE_SECONDS) -> Starlette:
    """The app. On a loopback ``host`` it answers requests addressed to it (and the local
    names); on another, ``token`` is required and every API call must carry it. ``limit``
    and ``idle``: the games held at once and the seconds an untouched one is kept."""
    if not is_loopback(host) and not token:
        raise ValueError(f"serving on {host}, beyond this machine, needs a token")
    sessions = Sessions(limit, idle)
    reading = threading.BoundedSemaphore(REPLAYS_AT_ONCE)

    def view_of(session: Any, request: Request) -> dict[str, Any]:
        return session.show(*where(session, request))

    def new_replay(data: Any) -> str:
        if not reading.acquire(blocking=False):
            raise Refused(f"the server is reading {REPLAYS_AT_ONCE} replays already; try "
                          "again in a moment", 503)
        try:
            return sessions.new_replay(data)
        finally:
            reading.release()

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def list_games(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(catalogue))

    @refusing
    async def list_agents(request: Request) -> Response:
        query = request.query_params
        players = _query_int(request, "players")
        return JSONResponse(await run_in_threadpool(agents_for, query.get("game"),
                                                    query.get("rules"), players))

    def opening(start: Callable[[Any], str]) -> Callable[[Request], Awaitable[Response]]:
        """The route that starts a game with ``start(body)`` and answers its id and view."""

        def started(data: Any) -> dict[str, Any]:
            key = start(data)
            return {"id": key, "view": sessions.get(key).show()}

        @refusing
        async def open_game(request: Request) -> Response:
            return JSONResponse(await run_in_threadpool(started, await _body(request)))

        return open_game

    @refusing
    async def show(request: Request) -> Response:
        session = sessions.get(request.path_params["key"])
        return JSONResponse(await run_in_threadpool(view_of, session, request))

    @refusing
    async def move(request: Request) -> Response:
        session = sessions.get(request.path_params["key"])
        if not isinstance(session, Match):
            raise Refused("a replay takes no moves", 409)
        data = await _body(request)
        if not isinstance(data, dict):
            raise Refused("a move is a JSON object")
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, int):
            raise Refused(f"'version' must be an integer, not {version!r}")
        what = request.path_params["what"]
        if what not in ("act", "advance"):
            raise Refused(f"no such move {what!r}: act or advance", 404)
        if what == "act":
            await run_in_threadpool(session.act, data.get("action"), version)
        else:
            await run_in_threadpool(session.advance, version)
        return JSONResponse(await run_in_threadpool(view_of, session, request))

    @refusing
    async def frame(request: Request) -> Response:
        session = sessions.get(request.path_params["key"])
        table = await run_in_threadpool(session.table, *where(session, request))
        data = await run_in_threadpool(lambda: png(picture(table)))
        return Response(data, media_type="image/png")

    @refusing
    async def replay_file(request: Request) -> Response:
        session = sessions.get(request.path_params["key"])
        if not isinstance(session, Match):
            raise Refused("this is a replay already", 409)
        data = await run_in_threadpool(session.replay_data)
        name = f"{session.spec.name}-seed{session.seed}.json"
        return JSONResponse(data, headers={
            "Content-Disposition": f'attachment; filename="{name}"'})

    routes = [
        Route("/", page),
        Route("/api/games", list_games),
        Route("/api/agents", list_agents),
        Route("/api/matches", opening(sessions.new_match), methods=["POST"]),
        Route("/api/replays", opening(new_replay), methods=["POST"]),
        Route("/api/sessions/{key}", show),
        Route("/api/sessions/{key}/replay", replay_file),
        Route("/api/sessions/{key}/frame.png", frame),
        Route("/api/sessions/{key}/{what:str}", move, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    hosts = ["*"] if token else sorted({host, *LOCAL_HOSTS})
    app = Starlette(routes=routes, middleware=[
        Middleware(Guard, token=token),
        Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])
    app.state.sessions = sessions
    return app


def warm() -> None:
    """Ask every agent of every game whether it plays each preset at each player count (the
    answers are kept: :func:`hilo_env.web.fitting.refusal`)."""
    for name in games.names():
        spec = games.get(name)
        for preset, counts in seat_counts(name).items():
            for n in counts:
                fitting(spec.name, spec.rules(preset, n))


def serve(host: str = "127.0.0.1", port: int = 8765, token: str | None = None,
          limit: int = MAX_SESSIONS, idle: float = IDLE_SECONDS) -> None:
    """Run the app with uvicorn until interrupted; meanwhile, ask every agent of every table
    whether it fits (:func:`warm`), so the page's first lists come at once."""
    import uvicorn

    threading.Thread(target=warm, name="hilo-warm", daemon=True).start()
    uvicorn.run(create_app(host, token, limit, idle), host=host, port=port,
                log_level="warning")


def reachable_address() -> str:
    """This machine's address on its network, for a browser on another host (no packet is
    sent: a UDP socket is only pointed at a non-routable address)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))
            return probe.getsockname()[0]
        except OSError:
            return socket.gethostname()


def launch(host: str, port: int, public: bool = False, limit: int = MAX_SESSIONS,
           idle_minutes: float = IDLE_SECONDS / 60, out: Any = None) -> None:
    """``hilo serve``: check the options (ValueError naming the one at fault), print the
    address to open (beyond the loopback: a warning and the token in it), then serve."""
    import sys

    out = out or sys.stdout
    if not 1 <= port <= 65535:
        raise ValueError(f"--port must be 1..65535, not {port}")
    if limit < 1:
        raise ValueError(f"--max-games must be at least 1, not {limit}")
    if not idle_minutes > 0:
        raise ValueError(f"--idle-minutes must be more than 0, not {idle_minutes}")
    token = None
    if is_loopback(host):
        shown = "[::1]" if host.strip("[]") == "::1" else host
        print(f"hilo serve: open http://{shown}:{port}/ in a browser (Ctrl-C stops)", file=out)
    else:
        if not public:
            raise ValueError(f"--host {host} serves beyond this machine: any host on its "
                             "network could play; add --public to do so (every API call "
                             "then needs the token it prints)")
        token = secrets.token_urlsafe(24)
        address = reachable_address() if host in ("0.0.0.0", "::", "[::]") else host
        print(f"hilo serve: WARNING: serving on {host}, beyond this machine. Anyone who has "
              "the address below (with its token) can use the table; Ctrl-C stops it.",
              file=out)
        print(f"hilo serve: open http://{address}:{port}/?token={token}", file=out)
    out.flush()
    serve(host, port, token, limit, idle_minutes * 60)
