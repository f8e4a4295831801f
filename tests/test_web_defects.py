"""The web table against hostile and odd requests: replays bounded and rebuilt from
checkpoints off the event loop, agents that do not fit a table refused, nothing hidden leaked
to the person, the match's end the engine's, a token beyond the loopback, games closed with a
reason, 400s rather than 500s."""

from __future__ import annotations

import asyncio
import dataclasses

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra: pip install -e '.[web]'")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the dev extra)")

from starlette.testclient import TestClient

from hilo_env import games
from hilo_env.agents.play import view as terminal_view
from hilo_env.replays import Episode, Replay
from hilo_env.web import app as web_app
from hilo_env.web import limits, sessions
from hilo_env.web.app import create_app
from hilo_env.web.sessions import Sessions

BASE = "http://127.0.0.1"
JSON = {"content-type": "application/json"}


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(), base_url=BASE)


def new(client: TestClient, **body) -> tuple[str, dict]:
    answer = client.post("/api/matches", json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()["id"], answer.json()["view"]


def post(client: TestClient, key: str, what: str, **body):
    return client.post(f"/api/sessions/{key}/{what}", json=body)


def finish_episode(client: TestClient, key: str, view: dict) -> dict:
    while not view["over"]:
        if view["waiting_for"] == "person":
            answer = post(client, key, "act", action=view["table"]["legal"][0]["id"],
                          version=view["version"])
        else:
            answer = post(client, key, "advance", version=view["version"])
        assert answer.status_code == 200, answer.text
        view = answer.json()
    return view


def long_lohi(decisions: int) -> dict:
    """A legal lo-hi game of about ``decisions`` decisions, mostly "pick up" (its
    ``max_turns`` raised to let it run that long)."""
    spec = games.get("lohi")
    rules = dataclasses.replace(spec.rules("standard"), max_turns=decisions)
    shown = terminal_view("lohi")
    replay = Replay.new("lohi", rules, {"by": "match", "seed": 0, "count": 1})
    state, rng, actions = next(shown.deals(rules, 0, 1)), np.random.default_rng(0), []
    while state.current_player is not None:
        legal = state.legal_actions()
        pick_up = [a for a in legal if spec.action_to_string(a) == "pick up"]
        action = pick_up[0] if pick_up and rng.random() < 0.97 else int(rng.choice(legal))
        actions.append(int(action))
        state.step(action)
    replay.episodes.append(Episode(actions=actions, seats=["heuristic", "random"]))
    return replay.to_json()


def refused(answer, status: int, *words: str) -> str:
    assert answer.status_code == status, answer.text
    message = answer.json()["error"]
    assert "\n" not in message and all(w in message for w in words), message
    return message


# ---- 1. replays: bounded, linear, off the event loop ---------------------------------

def test_a_replay_over_the_decision_limit_is_refused_naming_the_limit(client) -> None:
    data = long_lohi(300)
    data["episodes"][0]["actions"] = [0] * (limits.MAX_DECISIONS + 1)
    refused(client.post("/api/replays", json=data), 400, "limits.MAX_DECISIONS", "100,001")


def test_a_body_over_the_size_limit_is_refused_naming_the_limit(client) -> None:
    body = b'{"pad": "' + b"x" * limits.MAX_BODY_BYTES + b'"}'
    refused(client.post("/api/replays", content=body, headers=JSON), 413,
            "limits.MAX_BODY_BYTES")


def test_a_replay_rule_field_beyond_the_table_is_refused_naming_the_field(client) -> None:
    data = long_lohi(300)
    data["rules"]["max_turns"] = 10**12
    refused(client.post("/api/replays", json=data), 400, "'rules.max_turns'")


def test_twenty_thousand_empty_episodes_are_refused_at_once(client) -> None:
    data = long_lohi(300)
    data["deals"] = {"by": "env"}
    data["episodes"] = [{"actions": [], "seed": s} for s in range(20_000)]
    refused(client.post("/api/replays", json=data), 400, "limits.MAX_EPISODES", "20,000")


def test_a_long_replay_keeps_a_few_states_and_steps_on_one_at_a_time(client,
                                                                     monkeypatch) -> None:
    from hilo_env.lohi.engine import Game

    data = long_lohi(3000)
    decisions = len(data["episodes"][0]["actions"])
    assert decisions > 2000
    clones = []
    clone = Game.clone
    monkeypatch.setattr(Game, "clone", lambda self: clones.append(1) or clone(self))
    answer = client.post("/api/replays", json=data)
    assert answer.status_code == 200, answer.text
    rid = answer.json()["id"]
    kept = len(clones)
    assert kept <= decisions / sessions.MIN_SPACING + 4  # not one state a decision
    for step in range(1, 300):  # forward one at a time: the same state stepped on
        view = client.get(f"/api/sessions/{rid}?step={step}").json()
        assert view["step"] == step
    assert len(clones) <= kept + 1
    back = client.get(f"/api/sessions/{rid}?step=150").json()  # back: from a checkpoint
    forward_again = client.get(f"/api/sessions/{rid}?step=151").json()
    assert back["table"] != forward_again["table"] or back["log"] != forward_again["log"]
    last = client.get(f"/api/sessions/{rid}?step={decisions}").json()
    assert last["over"] and last["table"]["result"]


def test_a_replay_shows_the_same_table_however_it_is_reached(client) -> None:
    data = long_lohi(600)
    rid = client.post("/api/replays", json=data).json()["id"]
    steps = len(data["episodes"][0]["actions"])
    forward = {s: client.get(f"/api/sessions/{rid}?step={s}").json()
               for s in range(0, steps + 1, 7)}
    for s in sorted(forward, reverse=True):  # backwards, each rebuilt from a checkpoint
        again = client.get(f"/api/sessions/{rid}?step={s}").json()
        assert again == forward[s]


def test_a_replay_is_read_and_shown_off_the_event_loop(client, monkeypatch) -> None:
    on_loop = []

    def running_loop() -> bool:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return False
        return True

    for name in ("__init__", "show"):
        original = getattr(sessions.ReplayView, name)

        def wrapped(self, *args, _original=original, **kwargs):
            on_loop.append(running_loop())
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(sessions.ReplayView, name, wrapped)
    parse = limits.parse_json
    monkeypatch.setattr(web_app, "parse_json", lambda body: on_loop.append(running_loop())
                        or parse(body))
    answer = client.post("/api/replays", json=long_lohi(300))
    assert answer.status_code == 200, answer.text
    client.get(f"/api/sessions/{answer.json()['id']}?step=5")
    assert len(on_loop) >= 4 and not any(on_loop)


# ---- 2. agents that do not fit the table ---------------------------------------------

@pytest.mark.parametrize("body, words", [
    ({"game": "himilo", "players": 5, "agents": "ppo"}, "has models for 4 players"),
    ({"game": "lohi", "players": 3, "agents": "ppo"}, "has models for 2, 4 players"),
    ({"game": "hilo", "rules": "standard", "agents": "cfr_tiny"}, "plays only the tiny rules"),
    ({"game": "himilo", "rules": "medium", "agents": "value"}, "value"),
])
def test_an_agent_that_does_not_fit_the_table_is_a_400_with_the_reason(client, body,
                                                                        words) -> None:
    refused(client.post("/api/matches", json={**body, "mode": "watch"}), 400, "seat 0",
            words)


def test_the_page_is_offered_only_the_agents_that_fit(client) -> None:
    fit = client.get("/api/agents?game=lohi&rules=standard&players=3").json()
    assert "ppo" not in fit["agents"] and "heuristic" in fit["agents"]
    assert "has models for 2, 4 players" in fit["refused"]["ppo"]
    tiny = client.get("/api/agents?game=hilo&rules=tiny&players=2").json()
    assert "cfr_tiny" in tiny["agents"]
    refused(client.get("/api/agents?game=hilo&rules=duel&players=3"), 400, "duel")
    refused(client.get("/api/agents?game=hilo&rules=/etc/passwd&players=2"), 400,
            "'rules' is a preset")
    seats = {g["name"]: g["seats"] for g in client.get("/api/games").json()}
    assert seats["hilo"]["duel"] == [2] and seats["lohi"]["standard"] == [2, 3, 4, 5]


# ---- 3. nothing hidden reaches the person --------------------------------------------

def test_the_seed_and_the_replay_wait_for_the_end_of_the_persons_match(client) -> None:
    key, view = new(client, game="hilo", seed=5, seat=0, players=3, count=2)
    assert view["seed"] is None and not view["replay_ready"]
    refused(client.get(f"/api/sessions/{key}/replay"), 409, "once the match is over")
    view = finish_episode(client, key, view)
    assert view["seed"] is None  # one hand of two: the second's cards follow from it
    refused(client.get(f"/api/sessions/{key}/replay"), 409, "once the match is over")
    if not view["match_over"]:
        view = finish_episode(client, key, post(client, key, "advance",
                                                version=view["version"]).json())
    assert view["match_over"] and view["seed"] == 5 and view["replay_ready"]
    assert client.get(f"/api/sessions/{key}/replay").status_code == 200


def test_a_watched_match_shows_its_seed_and_replay_at_once(client) -> None:
    key, view = new(client, game="lohi", mode="watch", seed=9, agents="random")
    assert view["seed"] == 9 and view["replay_ready"]
    assert client.get(f"/api/sessions/{key}/replay").status_code == 200


# ---- 5. the match's end is the engine's ----------------------------------------------

def test_a_match_ended_by_knock_out_offers_no_next_hand(client) -> None:
    for seed in range(60):
        key, view = new(client, game="hilo", rules="tiny", mode="watch", seed=seed, count=3,
                        agents="maniac")
        view = finish_episode(client, key, view)
        if view["match_over"]:
            break
    else:
        pytest.fail("no seed of 60 knocks a player out in the first hand")
    assert view["episode"] == 1 and view["episodes"] == 3
    refused(post(client, key, "advance", version=view["version"]), 409, "the match is over")
    replay = client.get(f"/api/sessions/{key}/replay").json()
    assert len(replay["episodes"]) == 1


def test_the_last_hand_of_a_match_is_its_end(client) -> None:
    key, view = new(client, game="lohi", rules="single_round", mode="watch", seed=1,
                    count=2, agents="heuristic")
    view = finish_episode(client, key, view)
    assert not view["match_over"]
    view = post(client, key, "advance", version=view["version"]).json()
    assert view["episode"] == 2 and not view["over"]
    view = finish_episode(client, key, view)
    assert view["match_over"]


# ---- 7. beyond the loopback: a flag, a warning, a token ------------------------------

def test_another_host_than_the_loopback_needs_a_token() -> None:
    with pytest.raises(ValueError, match="needs a token"):
        create_app("0.0.0.0")
    client = TestClient(create_app("0.0.0.0", token="s3cret"), base_url="http://192.0.2.7")
    assert client.get("/").status_code == 200  # the page itself holds nothing
    refused(client.get("/api/games"), 403, "token")
    refused(client.get("/api/games", headers={"x-hilo-token": "wrong"}), 403, "token")
    refused(client.get("/api/games", headers={"host": "localhost"}), 403, "token")
    assert client.get("/api/games", headers={"x-hilo-token": "s3cret"}).status_code == 200
    assert client.get("/api/games?token=s3cret").status_code == 200
    answer = client.post("/api/matches?token=s3cret", json={"game": "lohi"})
    assert answer.status_code == 200


def test_hilo_serve_beyond_the_loopback_asks_for_public_and_prints_the_token(
        capsys, monkeypatch) -> None:
    from hilo_env.cli import main

    served = []
    monkeypatch.setattr(web_app, "serve", lambda *args: served.append(args))
    assert main(["serve", "--host", "0.0.0.0"]) == 2
    assert "--public" in capsys.readouterr().err and not served
    assert main(["serve", "--host", "0.0.0.0", "--public", "--port", "9000",
                 "--max-games", "7", "--idle-minutes", "2"]) == 0
    printed = capsys.readouterr().out
    host, port, token, limit, idle = served[0]
    assert (host, port, limit, idle) == ("0.0.0.0", 9000, 7, 120)
    assert "WARNING" in printed and f":9000/?token={token}" in printed
    assert "http://0.0.0.0" not in printed
    assert main(["serve", "--port", "9001"]) == 0
    assert served[1][2] is None and "http://127.0.0.1:9001/" in capsys.readouterr().out
    assert main(["serve", "--max-games", "0"]) == 2
    assert "--max-games must be at least 1" in capsys.readouterr().err


# ---- 8. a closed game says why --------------------------------------------------------

def test_a_game_closed_for_idling_or_for_room_says_which() -> None:
    now = [0.0]
    held = Sessions(limit=2, idle=60, clock=lambda: now[0])
    first = held.new_match({"game": "lohi", "seed": 1})
    second = held.new_match({"game": "lohi", "seed": 2})
    held.get(first)  # the second is now the idlest
    third = held.new_match({"game": "lohi", "seed": 3})
    with pytest.raises(sessions.Refused, match=r"to make room.*--max-games") as room:
        held.get(second)
    assert room.value.status == 404
    now[0] = 61.0
    with pytest.raises(sessions.Refused, match=r"1 minute without a move.*--idle-minutes"):
        held.get(third)
    with pytest.raises(sessions.Refused, match="restarted"):
        held.get("never-given")
    assert len(held) == 0


def test_replays_held_together_are_bounded_in_decisions() -> None:
    data = long_lohi(300)
    decisions = len(data["episodes"][0]["actions"])
    held = Sessions(decisions_held=2 * decisions)
    first, second = held.new_replay(data), held.new_replay(data)
    match = held.new_match({"game": "lohi"})
    held.get(first)  # the second is now the idlest replay
    third = held.new_replay(data)
    with pytest.raises(sessions.Refused, match=r"replays of at most .* decisions together"):
        held.get(second)
    for key in (first, third, match):
        held.get(key)


# ---- 9. odd input: 400, not 500 -------------------------------------------------------

def test_a_replay_with_fewer_seat_names_than_players_is_refused(client) -> None:
    data = long_lohi(300)
    data["episodes"][0]["seats"] = ["only one"]
    refused(client.post("/api/replays", json=data), 400, "'episodes[0].seats'", "2")


def test_deeply_nested_json_is_a_400(client) -> None:
    for path in ("/api/replays", "/api/matches"):
        refused(client.post(path, content=b"[" * 100_000, headers=JSON), 400,
                "nests too deeply")


# ---- 10. the smaller ones -------------------------------------------------------------

def test_every_answer_forbids_framing_by_another_page(client) -> None:
    for path in ("/", "/api/games", "/static/app.js", "/api/sessions/none"):
        headers = client.get(path).headers
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path
        assert headers["x-frame-options"] == "DENY"


def test_a_negative_deals_seed_is_refused_naming_the_field(client) -> None:
    data = long_lohi(300)
    data["deals"]["seed"] = -1
    refused(client.post("/api/replays", json=data), 400, "'deals.seed'")


def test_a_long_seat_name_is_refused_naming_the_limit(client) -> None:
    data = long_lohi(300)
    data["episodes"][0]["seats"] = ["x" * 3000, "random"]
    refused(client.post("/api/replays", json=data), 400, "'episodes[0].seats[0]'",
            "limits.MAX_SEAT_NAME")


def test_a_replay_names_its_own_game(client) -> None:
    key, view = new(client, game="himilo", mode="watch", seed=2, agents="random", players=3)
    finish_episode(client, key, view)
    data = client.get(f"/api/sessions/{key}/replay").json()
    shown = client.post("/api/replays", json=data).json()["view"]
    assert shown["title"] == "Hi MiLo!"
    assert shown["description"] == games.get("himilo").description


@pytest.mark.parametrize("game", games.names())
def test_the_end_of_a_hand_is_told_in_lines_not_a_terminal_dump(client, game) -> None:
    key, view = new(client, game=game, seed=3, seat=0)
    view = finish_episode(client, key, view)
    assert view["table"]["result"]
    assert not any("\n" in line for line in view["log"])
    assert set(view["table"]["result"]) <= set(view["log"])


def test_the_page_draws_no_symbol_debian_fonts_lack(client) -> None:
    page = "".join(client.get(path).text for path in ("/", "/static/app.js",
                                                      "/static/style.css"))
    assert not set("⏮⏭⏳") & set(page)


def test_a_match_keeps_each_seats_last_action_and_the_scores(client) -> None:
    key, view = new(client, game="lohi", rules="single_round", mode="watch", seed=4,
                    agents="heuristic", count=2)
    assert view["last_actions"] == [None, None] and view["scores"] == []
    acted = view["table"]["to_act"]
    step = post(client, key, "advance", version=view["version"]).json()
    assert step["last_actions"][acted] and step["last_actions"][1 - acted] is None
    view = finish_episode(client, key, step)
    assert len(view["scores"]) == 1 and sorted(view["scores"][0]) == [-1.0, 1.0]
    view = post(client, key, "advance", version=view["version"]).json()
    assert view["last_actions"] == [None, None] and len(view["scores"]) == 1


def test_a_watched_agent_shows_the_distribution_it_played_from(client) -> None:
    key, view = new(client, game="lohi", mode="watch", seed=4, agents="random")
    step = post(client, key, "advance", version=view["version"]).json()
    thought = step["thought"]
    assert thought["seat"] == view["table"]["to_act"] and thought["agent"] == "random"
    chances = [row["p"] for row in thought["probabilities"]]
    legal = round(1 / chances[0])  # the random agent: uniform over the legal actions
    assert chances == [round(1 / legal, 4)] * min(legal, sessions.TOP_PROBABILITIES)
    key, view = new(client, game="lohi", seed=4, seat=1, agents=["random", "person"])
    if view["waiting_for"] == "agent":
        view = post(client, key, "advance", version=view["version"]).json()
    assert view["thought"] is None  # a player never sees an opponent's distribution


def test_a_finished_trick_is_kept_whole_until_the_next_starts(client) -> None:
    key, view = new(client, game="himilo", mode="watch", seed=2, agents="team", players=3)
    views = [view]
    while not views[-1]["over"]:
        views.append(post(client, key, "advance", version=views[-1]["version"]).json())
    taken = next(i for i, v in enumerate(views) if v["last_centre"])
    trick = views[taken]["last_centre"]
    assert trick["label"].startswith("trick") and len(trick["cards"]) == 3
    assert not any(c["hidden"] or c["private"] for c in trick["cards"])
    assert views[taken]["table"]["centre"] == [] and "takes trick 1" in views[taken]["log"][-1]
    assert views[taken - 1]["table"]["centre"] == trick["cards"][:2]
    assert views[taken + 1]["last_centre"] is None  # the next trick's first card is down
    data = client.get(f"/api/sessions/{key}/replay").json()
    rid = client.post("/api/replays", json=data).json()["id"]
    for step in (taken, taken - 5, taken):  # reached stepping on, and from a checkpoint
        shown = client.get(f"/api/sessions/{rid}?step={step}").json()
        assert shown["last_centre"] == views[step]["last_centre"]
