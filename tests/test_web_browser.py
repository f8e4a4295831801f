"""The web table in a real browser: Debian's Chromium driven by Playwright (launched by its
path; Playwright's own browser download is not used). A person's whole hand of each game
played by clicking, a watched match stepped, a replay stepped forward and back, an illegal
move refused.

Without Chromium (or Playwright) these tests skip, saying how to get it; under CI (``CI=true``)
they fail instead, so the browser is never silently untested. ``HILO_SCREENSHOTS=DIR`` saves a
screenshot of each game's table to DIR (``docs/`` holds the ones the docs show).
"""

from __future__ import annotations

import io
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("HILO_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
HOW_TO_GET = ("install Debian's Chromium (apt-get install chromium) and the dev and web "
              "extras (pip install -e '.[dev,web]'), or set HILO_CHROMIUM to a Chromium")
GAMES = {  # short matches: (game, preset, players)
    "hilo": ("standard", 2), "lohi": ("single_round", 2), "himilo": ("standard", 3)}
WAIT_MS = 20_000
SHOT_AT = {"hilo": 1, "lohi": 2, "himilo": 5}
"""The click before which each game's screenshot is taken: cards on the table, a choice."""


def _missing(what: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI runs the browser tests, but {what} is missing: {HOW_TO_GET}",
                    pytrace=False)
    pytest.skip(f"{what} is missing: {HOW_TO_GET}", allow_module_level=True)


try:
    import uvicorn
    from playwright.sync_api import Page, sync_playwright

    from hilo_env.web.app import create_app
except ImportError as exc:
    _missing(f"Python package {exc.name}")
if not Path(CHROMIUM).exists():
    _missing(f"Chromium ({CHROMIUM})")


pytestmark = pytest.mark.slow  # a browser, and matches played by clicking


@pytest.fixture(scope="module")
def server() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app_server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port,
                                               log_level="warning"))
    thread = threading.Thread(target=app_server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not app_server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    app_server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, server) -> Page:
    context = browser.new_context(viewport={"width": 1150, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.set_default_timeout(WAIT_MS)
    opened.goto(f"{server}/?delay=0")
    opened.wait_for_selector("#game option", state="attached")
    yield opened
    context.close()
    assert not errors, errors


def deal(page: Page, game: str, mode: str = "play", seed: int = 1) -> None:
    preset, players = GAMES[game]
    if mode != "play":
        page.click(f"#modes [data-mode={mode}]")
    page.select_option("#game", game)
    page.select_option("#preset", preset)
    page.select_option("#players", str(players))
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#board:not([hidden])")


def version(page: Page) -> int:
    return page.evaluate("state.view.version")


def play_to_the_end(page: Page, shot: Path | None = None, shot_at: int = 0,
                    limit: int = 400) -> int:
    """Click through the match: at each of the person's turns the last plain action (check or
    call rather than fold); a screenshot to ``shot`` at click ``shot_at``; returns the
    clicks."""
    for clicks in range(limit):
        page.wait_for_function(
            "state.view && !state.busy && (document.querySelector('#actions .action') || "
            "(state.view.over && state.view.match_over))")
        if page.evaluate("state.view.over && state.view.match_over"):
            return clicks
        if shot is not None and clicks == shot_at:
            page.screenshot(path=str(shot), full_page=True)
        before = version(page)
        page.locator("#actions button.action").last.click()
        page.wait_for_function(f"state.view.version > {before}")
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("game", list(GAMES))
def test_a_person_plays_a_whole_hand_by_clicking(page, game) -> None:
    deal(page, game)
    assert page.locator(".seat.you").count() == 1
    shots = os.environ.get("HILO_SCREENSHOTS")
    clicks = play_to_the_end(page, Path(shots) / f"web_{game}.png" if shots else None,
                             SHOT_AT[game])
    assert clicks >= 1
    assert page.locator("#result p").count() >= 1
    assert page.locator("#log li").count() >= 1


@pytest.fixture
def slow_agent(monkeypatch) -> str:
    """A lo-hi agent that takes 0.8 s a decision (the random one, slowed), for this test."""
    from hilo_env import games
    from hilo_env.agents.registry import make

    def slow(rules, seed):
        agent = make("random", rules, seed=seed, game="lohi")
        decide = agent.act

        def act(observation, mask):
            time.sleep(0.8)
            return decide(observation, mask)

        agent.act = act
        return agent

    monkeypatch.setitem(games.get("lohi").agent_factories(), "slow", slow)
    return "slow"


def test_a_slow_agent_shows_it_is_thinking(slow_agent, page) -> None:
    page.reload()  # the catalogue, with the slow agent
    page.wait_for_selector("#game option", state="attached")
    page.select_option("#game", "lohi")
    page.select_option("#agent-1", slow_agent)
    page.fill("#seed", "1")
    page.click("#start")
    page.wait_for_selector("#actions .action")
    page.locator("#actions button.action").first.click()
    page.wait_for_selector("#thinking:not([hidden])")
    assert page.inner_text("#thinking").startswith("player_1 (slow) is thinking")
    page.wait_for_selector("#thinking", state="hidden")


def test_an_illegal_move_from_the_page_is_refused_and_changes_nothing(page) -> None:
    deal(page, "hilo")
    page.wait_for_selector("#actions .action")
    table = page.inner_text("#table")
    before = version(page)
    page.evaluate("act(100000)")  # the page's own move function, with an action not offered
    page.wait_for_function(
        "document.querySelector('#message').textContent.includes('not a legal action')")
    assert version(page) == before and page.inner_text("#table") == table
    page.evaluate(f"state.view.version = {before - 1}")  # a page that missed a move
    page.locator("#actions button.action").first.click()
    page.wait_for_function("document.querySelector('#message').textContent.includes('moved on')")
    page.wait_for_function(f"state.view.version === {before}")  # shown as it stands
    assert page.inner_text("#table") == table  # nothing played


def test_agents_are_watched_step_by_step_and_played_and_paused(page) -> None:
    deal(page, "lohi", mode="watch")
    assert page.locator("#actions .action").count() == 0
    for step in range(1, 3):
        page.click("#step")
        page.wait_for_function(f"state.view.version === {step}")
    page.fill("#speed", "100")
    page.click("#play-pause")
    page.wait_for_function("state.view.version >= 5")
    page.click("#play-pause")
    stopped = version(page)
    page.wait_for_timeout(400)
    assert version(page) <= stopped + 1  # a move under way may land


def test_a_replay_steps_forward_and_back(page, tmp_path) -> None:
    from hilo_env.agents.play import play

    path = tmp_path / "match.json"
    commands = iter(["call", "check", "high", "low"] * 20)
    play(None, None, 1, seed=4, game="hilo", read_line=lambda prompt: next(commands),
         out=io.StringIO(), save_replay=path)
    page.click("#modes [data-mode=replay]")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_function("state.view && state.view.mode === 'replay'")
    steps = page.evaluate("state.view.steps")
    assert steps >= 3
    seen = [page.inner_text("#table")]
    for step in range(1, 4):
        page.click("#step-forward")
        page.wait_for_function(f"state.view.step === {step}")
        seen.append(page.inner_text("#table"))
    for step in (2, 1):
        page.click("#step-back")
        page.wait_for_function(f"state.view.step === {step}")
        assert page.inner_text("#table") == seen[step]
        assert page.inner_text("#step-label").startswith(f"decision {step} of {steps}")
    page.click("#step-last")
    page.wait_for_function(f"state.view.step === {steps}")
    assert page.locator("#result p").count() >= 1 and page.is_disabled("#step-forward")


def test_a_bad_replay_file_is_refused_naming_the_field(page, tmp_path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "hilo_env replay", "version": 9}')
    page.click("#modes [data-mode=replay]")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_function("document.querySelector('#message').textContent.includes('field')")
    assert "field 'version'" in page.inner_text("#message")
    assert page.is_hidden("#board")
