"""The web table's Starlette app (``hilo serve``): the page, its script, and a JSON API over
:mod:`hilo_env.web.sessions`.

=======================================  ==================================================
``GET /``                                the page (``static/index.html``; ``/static/...``)
``GET /api/games``                       the registry: each game's presets, player counts,
                                         agents (by name) and baseline
``POST /api/matches``                    a new game to play or watch: ``{"game", "mode":
                                         "play"|"watch", "rules", "players", "seat",
                                         "agents", "seed", "count"}`` -> ``{"id", "view"}``
``POST /api/replays``                    a replay file's JSON -> ``{"id", "view"}``
``GET /api/sessions/{id}``               the view (``?viewer=SEAT`` for a spectator;
                                         replays: ``?episode=E&step=S``)
``POST /api/sessions/{id}/act``          the person's move ``{"action", "version"}``
``POST /api/sessions/{id}/advance``      an agent's move, or the next deal: ``{"version"}``
``GET /api/sessions/{id}/replay``        the match so far as a replay file
``GET /api/sessions/{id}/frame.png``     the same table as the ``rgb_array`` frame draws
                                         it (the view's query)
=======================================  ==================================================

A refusal is ``{"error": message}`` with its status (400 bad input, 404 unknown id, 409 a
stale or out-of-turn move, 415 a body that is not JSON). The app answers only requests
addressed to the host it serves (no DNS rebinding) and takes JSON bodies only (a form on
another site cannot post to it).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hilo_env import games
from hilo_env.picture import picture, png
from hilo_env.web.sessions import Match, Refused, Sessions

STATIC = Path(__file__).parent / "static"
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]")


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
                    "agents": list(spec.agent_factories())})
    return out


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
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise Refused("send the request as JSON (Content-Type: application/json)", 415)
    try:
        return json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise Refused("the request body is not JSON") from None


def _query_int(request: Request, key: str) -> int | None:
    text = request.query_params.get(key)
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise Refused(f"'{key}' must be an integer, not {text!r}") from None


def where(session: Any, request: Request) -> tuple[int | None, ...]:
    """The view a request asks for: ``(viewer,)`` of a match, ``(episode, step, viewer)`` of a
    replay, from its query (``?viewer=``, ``?episode=``, ``?step=``)."""
    viewer = _query_int(request, "viewer")
    if isinstance(session, Match):
        return (viewer,)
    return _query_int(request, "episode") or 0, _query_int(request, "step") or 0, viewer


def create_app(host: str = "127.0.0.1") -> Starlette:
    """The app, answering requests addressed to ``host`` (and the local names)."""
    sessions = Sessions()

    def view_of(session: Any, request: Request) -> dict[str, Any]:
        return session.show(*where(session, request))

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def list_games(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(catalogue))

    def opening(start: Callable[[Any], str]) -> Callable[[Request], Awaitable[Response]]:
        """The route that starts a game with ``start(body)`` and answers its id and view."""

        @refusing
        async def open_game(request: Request) -> Response:
            key = await run_in_threadpool(start, await _body(request))
            return JSONResponse({"id": key, "view": sessions.get(key).show()})

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
        with session.lock:
            data = session.replay.to_json()
        name = f"{session.spec.name}-seed{session.seed}.json"
        return JSONResponse(data, headers={
            "Content-Disposition": f'attachment; filename="{name}"'})

    routes = [
        Route("/", page),
        Route("/api/games", list_games),
        Route("/api/matches", opening(sessions.new_match), methods=["POST"]),
        Route("/api/replays", opening(sessions.new_replay), methods=["POST"]),
        Route("/api/sessions/{key}", show),
        Route("/api/sessions/{key}/replay", replay_file),
        Route("/api/sessions/{key}/frame.png", frame),
        Route("/api/sessions/{key}/{what:str}", move, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    hosts = sorted({host, *LOCAL_HOSTS})
    app = Starlette(routes=routes, middleware=[
        Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])
    app.state.sessions = sessions
    return app


def serve(host: str = "127.0.0.1", port: int = 8765) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(host), host=host, port=port, log_level="warning")
