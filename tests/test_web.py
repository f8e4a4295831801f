"""The web table's API without a browser (Starlette's TestClient): every game played and
watched, many games at once, and every way a page can misuse it refused with nothing
changed."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install -e '.[web]'")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (the dev extra)")

from starlette.testclient import TestClient

from hilo_env import games
from hilo_env.replays import from_json
from hilo_env.web.app import create_app

BASE = "http://127.0.0.1"


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app(), base_url=BASE)


def new(client: TestClient, **body) -> tuple[str, dict]:
    answer = client.post("/api/matches", json=body)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    return data["id"], data["view"]


def post(client: TestClient, key: str, what: str, **body):
    return client.post(f"/api/sessions/{key}/{what}", json=body)


def finish(client: TestClient, key: str, view: dict, limit: int = 2000) -> dict:
    """Play a match to its end: the person takes the first legal action, agents advance."""
    for _ in range(limit):
        if view["over"] and view["match_over"]:
            return view
        if view.get("waiting_for") == "person":
            answer = post(client, key, "act", action=view["table"]["legal"][0]["id"],
                          version=view["version"])
        else:
            answer = post(client, key, "advance", version=view["version"])
        assert answer.status_code == 200, answer.text
        view = answer.json()
    raise AssertionError("the match did not end")


def test_the_page_and_its_script_are_served(client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "api/matches" in client.get("/static/app.js").text
    assert client.get("/static/style.css").status_code == 200


def test_the_catalogue_lists_every_game_and_no_path_agents(client) -> None:
    listed = {g["name"]: g for g in client.get("/api/games").json()}
    assert list(listed) == games.names()
    for name, game in listed.items():
        spec = games.get(name)
        assert game["presets"] == list(spec.presets) and spec.baseline in game["agents"]
        assert not any(":" in a for a in game["agents"])


@pytest.mark.parametrize("game", games.names())
def test_a_person_plays_a_whole_match_of_each_game(client, game) -> None:
    key, view = new(client, game=game, seed=2, seat=1)
    assert view["mode"] == "play" and view["person"] == 1 and view["viewer"] == 1
    view = finish(client, key, view)
    assert view["table"]["result"] and view["log"]
    replay = from_json(client.get(f"/api/sessions/{key}/replay").json())
    assert replay.game == game and replay.episodes[0].seats[1] == "person"


def test_the_person_sees_only_their_own_hidden_card(client) -> None:
    key, view = new(client, game="hilo", seed=1, seat=0, players=3)
    seats = view["table"]["seats"]
    assert not seats[0]["cards"][0]["hidden"]
    assert seats[1]["cards"][0]["hidden"] and seats[2]["cards"][0]["hidden"]
    other = client.get(f"/api/sessions/{key}?viewer=2").json()  # a person cannot peek
    assert other["viewer"] == 0 and other["table"]["seats"][2]["cards"][0]["hidden"]


def test_an_illegal_stale_or_out_of_turn_move_changes_nothing(client) -> None:
    key, view = new(client, game="hilo", seed=0, seat=0)
    assert view["waiting_for"] == "person"
    legal = {a["id"] for a in view["table"]["legal"]}
    illegal = next(a for a in range(200) if a not in legal)
    before = client.get(f"/api/sessions/{key}").json()
    for body, status, words in [
            ({"action": illegal, "version": view["version"]}, 400, "not a legal action"),
            ({"action": "call", "version": view["version"]}, 400, "not a legal action"),
            ({"action": True, "version": view["version"]}, 400, "not a legal action"),
            ({"action": min(legal), "version": view["version"] + 1}, 409, "moved on"),
            ({"action": min(legal), "version": "0"}, 400, "'version' must be an integer"),
            ({"action": min(legal)}, 400, "'version' must be an integer")]:
        answer = post(client, key, "act", **body)
        assert answer.status_code == status and words in answer.json()["error"], body
    assert post(client, key, "advance", version=view["version"]).status_code == 409
    assert client.get(f"/api/sessions/{key}").json() == before
    moved = post(client, key, "act", action=min(legal), version=view["version"]).json()
    assert moved["version"] == view["version"] + 1
    again = post(client, key, "act", action=min(legal), version=view["version"])
    assert again.status_code == 409  # the same click twice: the second is stale


def test_an_unknown_id_and_a_restarted_server_are_refused_cleanly(client) -> None:
    key, view = new(client, game="lohi")
    for path in (f"/api/sessions/{key}x", "/api/sessions/nothing/replay"):
        answer = client.get(path)
        assert answer.status_code == 404 and "start a new one" in answer.json()["error"]
    restarted = TestClient(create_app(), base_url=BASE)
    answer = post(restarted, key, "advance", version=view["version"])
    assert answer.status_code == 404 and "restarted" in answer.json()["error"]
    assert post(client, key, "jump", version=0).status_code == 404


@pytest.mark.parametrize("body, words", [
    ({"game": "chess"}, "chess"),
    ({"game": "hilo", "rules": "huge"}, "'rules' is a preset of Equation Hi-Lo"),
    ({"game": "hilo", "rules": "configs/rules/x.yaml"}, "not 'configs/rules/x.yaml'"),
    ({"game": "hilo", "rules": {"ante": 5}}, "'rules' is a preset"),
    ({"game": "lohi", "players": 9}, "seats 2 to 5 players"),
    ({"game": "lohi", "players": "3"}, "'players' must be an integer"),
    ({"game": "hilo", "seat": 5}, "'seat' must be 0..1"),
    ({"game": "hilo", "mode": "spectate"}, "'mode' is 'play' or 'watch'"),
    ({"game": "hilo", "agents": ["random", "nobody"]}, "seat 1"),
    ({"game": "hilo", "agents": ["random", "ppo:/etc/passwd"]}, "a page may name"),
    ({"game": "hilo", "agents": ["random"]}, "one agent a seat"),
    ({"game": "hilo", "agents": 7}, "'agents' is an agent's name"),
    ({"game": "hilo", "count": 0}, "'count' must be 1..100"),
    ({"game": "hilo", "seed": -1}, "'seed' must be at least 0"),
    ([1, 2], "a new game is a JSON object"),
])
def test_a_bad_new_game_is_refused_naming_the_problem(client, body, words) -> None:
    answer = client.post("/api/matches", json=body)
    assert answer.status_code == 400 and words in answer.json()["error"], answer.json()


def test_only_json_bodies_from_this_host_are_taken(client) -> None:
    form = client.post("/api/matches", data={"game": "hilo"})
    assert form.status_code == 415 and "JSON" in form.json()["error"]
    broken = client.post("/api/matches", content=b"{", headers={"content-type":
                                                                  "application/json"})
    assert broken.status_code == 400 and "not JSON" in broken.json()["error"]
    assert client.get("/api/games", headers={"host": "evil.example"}).status_code == 400


def test_many_games_at_once_stay_apart(client) -> None:
    def watch(seed: int) -> tuple[str, list[int]]:
        key, view = new(client, game=("hilo", "himilo")[seed % 2], mode="watch", seed=seed,
                        agents="random")
        finish(client, key, view)
        replay = client.get(f"/api/sessions/{key}/replay").json()
        return key, replay["episodes"][0]["actions"]

    with ThreadPoolExecutor(8) as pool:
        played = list(pool.map(watch, range(16)))
    assert len({key for key, _ in played}) == 16
    for seed, (key, actions) in enumerate(played):  # each as it would be alone
        alone_key, alone = watch(seed)
        assert alone == actions and alone_key != key


def test_a_watched_match_steps_one_decision_at_a_time(client) -> None:
    key, view = new(client, game="himilo", mode="watch", seed=4, agents="team")
    assert view["person"] is None and view["table"]["legal"] == []
    step = post(client, key, "advance", version=view["version"]).json()
    assert step["version"] == view["version"] + 1 and len(step["log"]) == 1
    shown = client.get(f"/api/sessions/{key}?viewer=2").json()
    assert shown["viewer"] == 2
    seats = shown["table"]["seats"]
    assert all(not c["hidden"] for c in seats[2]["cards"])
    assert all(c["hidden"] for c in seats[0]["cards"])
    assert post(client, key, "act", action=0, version=step["version"]).status_code == 409


def test_a_replay_steps_forward_and_back(client) -> None:
    key, view = new(client, game="lohi", mode="watch", seed=6, agents="heuristic")
    finish(client, key, view)
    data = client.get(f"/api/sessions/{key}/replay").json()
    answer = client.post("/api/replays", json=data)
    assert answer.status_code == 200, answer.text
    rid, first = answer.json()["id"], answer.json()["view"]
    assert first["step"] == 0 and first["steps"] == len(data["episodes"][0]["actions"])
    views = [client.get(f"/api/sessions/{rid}?episode=0&step={s}").json()
             for s in range(first["steps"] + 1)]
    assert views[-1]["over"] and views[-1]["table"]["result"]
    back = client.get(f"/api/sessions/{rid}?episode=0&step=3").json()
    assert back["table"] == views[3]["table"]  # forward then back: the same table
    assert views[4]["log"][-1].startswith("player_")
    for query, words in [("step=999", "'step' must be"), ("episode=3", "'episode' must be"),
                         ("step=x", "'step' must be an integer"), ("viewer=7", "'viewer'")]:
        bad = client.get(f"/api/sessions/{rid}?{query}")
        assert bad.status_code == 400 and words in bad.json()["error"]
    assert post(client, rid, "advance", version=0).status_code == 409


def test_a_bad_replay_file_is_refused_naming_the_field(client) -> None:
    key, view = new(client, game="hilo", mode="watch", seed=3, agents="random")
    finish(client, key, view)
    data = client.get(f"/api/sessions/{key}/replay").json()
    data["episodes"][0]["actions"][0] = 10**6
    answer = client.post("/api/replays", content=json.dumps(data),
                         headers={"content-type": "application/json"})
    assert answer.status_code == 400
    assert "field 'episodes[0].actions[0]'" in answer.json()["error"]
    answer = client.post("/api/replays", json={"format": "something else"})
    assert answer.status_code == 400 and "field 'format'" in answer.json()["error"]


def test_hilo_serve_checks_its_port_first(capsys) -> None:
    from hilo_env.cli import main

    assert main(["serve", "--port", "0"]) == 2
    assert "--port must be 1..65535" in capsys.readouterr().err


def test_the_page_and_the_video_frame_draw_the_same_table(client) -> None:
    from hilo_env.picture import picture, png

    key, view = new(client, game="hilo", mode="watch", seed=8, agents="heuristic", players=3)
    for _ in range(4):
        view = post(client, key, "advance", version=view["version"]).json()
    served = client.get(f"/api/sessions/{key}/frame.png")
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    replay = from_json(client.get(f"/api/sessions/{key}/replay").json())
    state = replay.final_states()[-1]
    env = games.get("hilo").raw_env(replay.rules)
    table = type(env).table_of(state, None)  # what env.render() draws as rgb_array
    assert served.content == png(picture(table))
    assert view["table"]["headline"] == table.headline
    assert [s["facts"] for s in view["table"]["seats"]] == [list(s.facts) for s in table.seats]
    bad = client.get(f"/api/sessions/{key}/frame.png?viewer=9")
    assert bad.status_code == 400 and "'viewer' must be a seat 0..2" in bad.json()["error"]
