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
CHROMIUM_MISSING = f"Chromium ({CHROMIUM}) is missing: {HOW_TO_GET}"
if Path(CHROMIUM).exists():
    CHROMIUM_MISSING = ""
elif os.environ.get("CI") == "true":
    _missing(f"Chromium ({CHROMIUM})")


pytestmark = [pytest.mark.slow,  # a browser, and matches played by clicking
              pytest.mark.skipif(bool(CHROMIUM_MISSING), reason=CHROMIUM_MISSING)]


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
    context = browser.new_context(viewport={"width": 1150, "height": 900}, bypass_csp=True)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.set_default_timeout(WAIT_MS)
    opened.goto(f"{server}/?delay=0")
    opened.wait_for_selector("#game option", state="attached")
    yield opened
    context.close()
    assert not errors, errors


def deal(page: Page, game: str, mode: str = "play", seed: int = 1,
         preset: str | None = None) -> None:
    preset, players = (preset or GAMES[game][0]), GAMES[game][1]
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
    page.fill("#timeline", "2")  # the timeline scrubbed
    page.wait_for_function("state.view.step === 2")
    assert page.inner_text("#table") == seen[2]
    page.locator("body").press("ArrowLeft")  # the keys step it
    page.wait_for_function("state.view.step === 1")
    page.locator("body").press("End")
    page.wait_for_function(f"state.view.step === {steps}")


def test_a_bad_replay_file_is_refused_naming_the_field(page, tmp_path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"format": "hilo_env replay", "version": 9}')
    page.click("#modes [data-mode=replay]")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_function("document.querySelector('#message').textContent.includes('field')")
    assert "field 'version'" in page.inner_text("#message")
    assert page.is_hidden("#board")


WIDTHS = (1280, 400)
"""A desktop window and a phone held upright."""


@pytest.fixture
def open_page(browser, server):
    """``open_page(width, height=900, delay=0)``: a fresh page of the table at that size,
    the agents moving after ``delay`` ms; every one is closed, and none may raise."""
    contexts, errors = [], []

    def opened(width: int, height: int = 900, delay: int = 0) -> Page:
        context = browser.new_context(viewport={"width": width, "height": height},
                                      bypass_csp=True)
        contexts.append(context)
        made = context.new_page()
        made.on("pageerror", lambda exc: errors.append(str(exc)))
        made.set_default_timeout(WAIT_MS)
        made.goto(f"{server}/?delay={delay}")
        made.wait_for_selector("#game option", state="attached")
        return made

    yield opened
    for context in contexts:
        context.close()
    assert not errors, errors


def shoot(page: Page, name: str) -> None:
    """A screenshot for the docs when ``HILO_SCREENSHOTS`` names a folder."""
    shots = os.environ.get("HILO_SCREENSHOTS")
    if shots:
        page.screenshot(path=str(Path(shots) / name), full_page=False)


def settle(page: Page) -> None:
    page.wait_for_function("state.view && !state.busy")


def until_person_has(page: Page, words: str, limit: int = 60) -> None:
    """Click the first action until one whose text starts with ``words`` is offered."""
    for _ in range(limit):
        page.wait_for_function("state.view && !state.busy && "
                               "document.querySelector('#actions button.action')")
        texts = page.locator("#actions button.action").all_inner_texts()
        if any(words in t for t in texts):
            return
        before = version(page)
        page.locator("#actions button.action").first.click()
        page.wait_for_function(f"state.view.version > {before}")
    raise AssertionError(f"no action {words!r} was offered")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_double_click_makes_one_move(open_page, width) -> None:
    page = open_page(width)
    deal(page, "himilo")
    until_person_has(page, "pass")
    settle(page)
    before = version(page)
    cards = page.locator(".seat.you .card").count()
    box = page.locator("#actions button.action").first.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down(click_count=1)
    page.mouse.up(click_count=1)
    page.wait_for_function(f"state.view.version > {before}")  # the server answered...
    settle(page)
    page.mouse.down(click_count=2)  # ...before the double click's second half landed on
    page.mouse.up(click_count=2)    # the next card's button
    settle(page)
    page.wait_for_timeout(300)
    assert version(page) == before + 1 and page.locator(".seat.you .card").count() == cards - 1
    suits = [t[-1] for t in page.locator(".seat.you .card").all_inner_texts()]
    assert suits == sorted(suits, key="SHCD".index)  # a Hi MiLo! hand grouped by suit


@pytest.mark.parametrize("width", WIDTHS)
def test_the_log_keeps_its_newest_line_in_sight(open_page, width) -> None:
    page = open_page(width)
    deal(page, "lohi", mode="watch", preset="standard")
    for step in range(1, 25):
        page.click("#step")
        page.wait_for_function(f"state.view.version === {step}")
    assert page.locator("#log li").count() >= 12
    assert page.evaluate("(() => { const log = document.querySelector('#log'); "
                         "return log.scrollHeight > log.clientHeight && "
                         "log.scrollTop + log.clientHeight >= log.scrollHeight - 2; })()")


@pytest.mark.parametrize("width", WIDTHS)
def test_bet_sizing_buttons_a_typed_amount_and_keys(open_page, width) -> None:
    page = open_page(width)
    deal(page, "hilo", seed=3)
    page.wait_for_selector("#raise-amount")
    settle(page)
    sizes = page.locator("#actions .sizing").all_inner_texts()
    assert [t.split("(")[0][1:].strip() for t in sizes] == ["½ pot", "pot", "all-in"]
    if width == WIDTHS[0]:
        shoot(page, "web_bet_sizing.png")
    highest = int(page.get_attribute("#raise-amount", "max"))
    before = version(page)
    page.fill("#raise-amount", str(highest + 1))  # beyond the range: said, not sent
    page.press("#raise-amount", "Enter")
    page.wait_for_function("document.querySelector('#message').textContent.includes('not legal')")
    assert version(page) == before
    page.fill("#raise-amount", str(highest))
    assert page.inner_text("#raise-button").endswith(str(highest))
    page.press("#raise-amount", "Enter")
    page.wait_for_function(f"state.view.version > {before}")
    assert any(str(highest) in line and line.startswith("You")
               for line in page.locator("#log li").all_inner_texts())
    page.wait_for_function("state.view && !state.busy && (state.view.over || "
                           "document.querySelector('#actions button[data-key=\"1\"]'))")
    if not page.evaluate("state.view.over"):  # a key picks the action marked with it
        first = page.locator("#actions button[data-key='1']").inner_text()
        before = version(page)
        page.locator("body").press("1")
        page.wait_for_function(f"state.view.version > {before}")
        word = first.removeprefix("1").split()[-1]  # "low": "You declare low"
        log = page.locator("#log li").all_inner_texts()
        assert any(line.startswith("You") and line.endswith(word) for line in log), (first, log)
    assert "1" in page.inner_text("#keys")


@pytest.mark.parametrize("width", WIDTHS)
def test_an_agents_probabilities_are_shown_beside_its_move(open_page, width) -> None:
    page = open_page(width)
    page.click("#modes [data-mode=watch]")
    page.select_option("#game", "lohi")
    for seat in (0, 1):
        page.select_option(f"#agent-{seat}", "random")
    page.fill("#seed", "1")
    page.click("#start")
    page.wait_for_selector("#board:not([hidden])")
    page.click("#step")
    page.wait_for_function("state.view.version === 1")
    page.wait_for_selector("#thought:not([hidden])")
    rows = page.locator("#thought .prob").count()
    assert rows >= 1
    shares = [float(t.rstrip("%")) for t in page.locator("#thought .prob-p").all_inner_texts()]
    assert abs(sum(shares) - 100) < 1 or rows == 6
    if width == WIDTHS[1]:
        page.locator("#thought").scroll_into_view_if_needed()
        shoot(page, "web_probabilities_400.png")


def test_the_table_fits_a_320_px_screen_and_keeps_the_actions_in_view(open_page) -> None:
    page = open_page(320, 640)
    deal(page, "hilo")
    page.wait_for_selector("#actions .action")
    assert page.evaluate("document.documentElement.scrollWidth") <= 320
    page = open_page(400, 800)
    page.select_option("#game", "himilo")
    page.select_option("#players", "5")
    page.fill("#seed", "2")
    page.click("#start")
    page.wait_for_selector("#actions .action")
    settle(page)
    box = page.locator("#actions").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800  # in view without scrolling
    assert page.evaluate("document.documentElement.scrollWidth") <= 400
    shoot(page, "web_himilo_400.png")


def test_switching_games_seats_each_games_baseline_and_only_fitting_agents(page) -> None:
    page.select_option("#game", "himilo")
    assert page.input_value("#agent-1") == "team"
    page.select_option("#game", "lohi")
    assert page.input_value("#agent-1") == "heuristic"
    page.select_option("#players", "3")
    page.wait_for_function("document.querySelector('#agents').dataset.fitted === 'true'")
    offered = page.locator("#agent-1 option").all_inner_texts()
    assert "heuristic" in offered and "ppo" not in offered


def test_lo_hi_names_the_cards_a_play_takes_and_no_dealer(page) -> None:
    deal(page, "lohi")
    page.wait_for_selector("#actions .action")
    assert page.is_hidden("#legend-dealer")
    hand = page.locator(".seat.you .card").all_inner_texts()
    plays = [t for t in page.locator("#actions .action").all_inner_texts() if "play" in t]
    assert plays and all("(" in t for t in plays)
    for text in plays:
        for card in text.split("(")[1].rstrip(")").split():
            assert card in hand
    deal(page, "hilo")
    page.wait_for_function("state.view.game === 'hilo'")
    assert page.is_visible("#legend-dealer")


def test_a_rematch_deals_again_and_the_scores_add_up(page) -> None:
    deal(page, "lohi")
    play_to_the_end(page)
    first = page.evaluate("state.id")
    assert page.locator("#scores tr").count() == 3  # the heading, one game, the total
    page.click("#rematch")
    page.wait_for_function(f"state.id !== {first!r}")
    play_to_the_end(page)
    assert "2 matches" in page.inner_text("#scores")


def test_a_finished_trick_stays_in_view_until_the_next_starts(page) -> None:
    deal(page, "himilo", mode="watch")
    for step in range(1, 60):
        page.click("#step")
        page.wait_for_function(f"state.view.version === {step}")
        if page.locator("#centre.last").count():
            break
    else:
        raise AssertionError("no trick was finished in 60 decisions")
    assert page.inner_text("#centre .centre-label").startswith("last: trick")
    assert page.locator("#centre .card").count() == 3  # one card a seat
    assert "takes trick 1" in page.locator("#log li").last.inner_text()
    page.click("#step")  # the next trick's first card replaces it
    page.wait_for_function(f"state.view.version === {step + 1}")
    assert page.locator("#centre.last").count() == 0
    assert page.locator("#centre .card").count() == 1
