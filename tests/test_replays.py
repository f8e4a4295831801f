"""Replays (hilo_env.replays): ``hilo play`` and ``hilo tournament --save-replays`` write
them, and a replay read back plays to the same ends and scores; a bad file is refused naming
the field."""

from __future__ import annotations

import io
import itertools
import json

import numpy as np
import pytest

from hilo_env import games
from hilo_env.agents.play import play, view
from hilo_env.replays import load
from hilo_env.training.evaluate import tournament


def every_command(game: str):
    """A reader typing every action text of ``game`` in turn, forever (each decision takes
    the first legal one it reaches): a person who plays legally, if oddly."""
    env = games.get(game).raw_env()
    texts = [env.action_to_string(a) for a in range(env.action_space(env.possible_agents[0]).n)]
    commands = itertools.cycle(texts)
    return lambda prompt: next(commands)


@pytest.mark.parametrize("game, count", [("hilo", 2), ("lohi", 1), ("himilo", 1)])
def test_a_played_match_replays_to_the_same_scores(tmp_path, game, count) -> None:
    path = tmp_path / "match.json"
    total = play(None, None, count, seed=3, seat=1, game=game, read_line=every_command(game),
                 out=io.StringIO(), save_replay=path)
    replay = load(path)
    assert replay.game == game and replay.deals == {"by": "match", "seed": 3, "count": count}
    assert replay.episodes[0].seats[1] == "person"
    shown = view(game)
    finals = replay.final_states()
    assert sum(shown.score(state, 1) for state in finals) == pytest.approx(total)
    assert all(state.current_player is None for state in finals)
    steps = list(replay.walk(len(finals) - 1))
    assert [a for _, a in steps] == [*replay.episodes[-1].actions, None]


def test_a_match_left_early_is_written_too(tmp_path) -> None:
    path = tmp_path / "left.json"
    play(None, None, 3, game="hilo", read_line=lambda prompt: "quit", out=io.StringIO(),
         save_replay=path)
    replay = load(path)
    assert len(replay.episodes) == 1 and replay.final_states()[0].current_player == 0


@pytest.mark.parametrize("game, names, count", [("hilo", ["random", "heuristic"], 12),
                                               ("lohi", ["random", "heuristic"], 4),
                                               ("himilo", ["random", "team"], 6)])
def test_tournament_replays_give_each_tables_scores_again(tmp_path, game, names,
                                                          count) -> None:
    result = tournament(names, None, count, seed=5, game=game, progress=False,
                        save_replays=tmp_path)
    files = sorted(tmp_path.iterdir())
    assert len(files) == len(result.tables)
    for path, table in zip(files, result.tables, strict=True):
        replay = load(path)
        assert replay.deals == {"by": "env"}
        n = len(replay.episodes[0].seats)
        assert len(replay.episodes) == table.deals * n
        scores: dict[str, list[list[float]]] = {}
        for episode, state in zip(replay.episodes, replay.final_states(), strict=True):
            for seat, name in enumerate(episode.seats):
                scores.setdefault(name, []).append(reward(game, state, seat))
        for i, name in enumerate(table.names):  # a player's mean over each deal's rotations
            mine = np.array(scores[name]).reshape(table.deals, -1).mean(axis=1)
            np.testing.assert_allclose(mine, table.per_deal[:, i])


def reward(game: str, state, seat: int) -> float:
    """A finished episode's reward of ``seat``, read off the engine's state."""
    if game == "hilo":
        return state.result.net[seat]
    if game == "lohi":
        return state.payoffs[seat]
    return state.outcome


def write(tmp_path, data) -> str:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def good(tmp_path) -> dict:
    path = tmp_path / "good.json"
    play(None, None, 1, game="lohi", read_line=every_command("lohi"), out=io.StringIO(),
         save_replay=path)
    return json.loads(path.read_text())


@pytest.mark.parametrize("change, field", [
    (lambda d: d.update(format="other"), "'format'"),
    (lambda d: d.update(version=2), "'version'"),
    (lambda d: d.update(game="chess"), "'game'"),
    (lambda d: d["rules"].update(num_players=9), "'rules'"),
    (lambda d: d["rules"].update(colour="blue"), "'rules'"),
    (lambda d: d.update(deals={"by": "magic"}), "'deals.by'"),
    (lambda d: d["deals"].update(seed="x"), "'deals.seed'"),
    (lambda d: d["deals"].update(count=0), "'deals.count'"),
    (lambda d: d.update(episodes={}), "'episodes'"),
    (lambda d: d["episodes"][0].update(actions=[1.5]), r"'episodes\[0\].actions'"),
    (lambda d: d["episodes"][0].update(seats=[1, 2]), r"'episodes\[0\].seats'"),
    (lambda d: d["episodes"][0]["actions"].insert(0, 199), r"'episodes\[0\].actions\[0\]'"),
    (lambda d: d["episodes"].append(d["episodes"][0]), "'episodes'"),
    (lambda d: d.update(version=True), "'version'"),
    (lambda d: d.update(version=1.0), "'version'"),
    (lambda d: d.pop("game"), "'game'"),
    (lambda d: d.update(game=5), "'game'"),
    (lambda d: d["episodes"][0].update(seats=["person", "heuristic", "random"]),
     r"'episodes\[0\].seats' must be a list of one name per seat \(2 players\)"),
    (lambda d: d["episodes"][0].update(seats=["person"]), r"'episodes\[0\].seats'"),
    (lambda d: d["deals"].update(seed=-1), "'deals.seed' must be an integer >= 0"),
])
def test_a_bad_replay_is_refused_naming_the_field(tmp_path, change, field) -> None:
    data = good(tmp_path)
    change(data)
    with pytest.raises(ValueError, match=f"bad.json: .*field {field}"):
        load(write(tmp_path, data))


def test_a_file_that_is_no_replay_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="not JSON"):
        load(write(tmp_path, "{"))
    with pytest.raises(ValueError, match="a replay is an object"):
        load(write(tmp_path, [1]))
    with pytest.raises(ValueError, match="cannot read"):
        load(tmp_path / "missing.json")
    data = good(tmp_path)
    data["deals"] = {"by": "env"}
    data["episodes"][0]["seed"] = -1
    with pytest.raises(ValueError, match=r"'episodes\[0\].seed'"):
        load(write(tmp_path, data))


def test_a_key_twice_or_json_nested_too_deeply_is_refused(tmp_path) -> None:
    text = json.dumps(good(tmp_path))
    with pytest.raises(ValueError, match=r"bad\.json: key 'game' is set twice"):
        load(write(tmp_path, text[:-1] + ', "game": "hilo"}'))
    with pytest.raises(ValueError, match=r"bad\.json: .*nested too deeply"):
        load(write(tmp_path, "[" * 100_000 + "]" * 100_000))


def test_a_replay_saved_where_it_cannot_be_leaves_no_part_file(tmp_path) -> None:
    replay = load(write(tmp_path, good(tmp_path)))
    folder = tmp_path / "a_folder"
    folder.mkdir()
    with pytest.raises(OSError):
        replay.save(folder)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_folder", "bad.json", "good.json"]


def test_the_cli_writes_replays(tmp_path, monkeypatch, capsys) -> None:
    from hilo_env.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO("fold\ncall\nquit\n"))
    assert main(["play", "--save-replay", str(tmp_path / "p.json")]) == 0
    assert "Replay written to" in capsys.readouterr().out
    assert load(tmp_path / "p.json").deals["by"] == "match"
    assert main(["tournament", "random", "caller", "--hands", "4", "--game", "hilo",
                 "--save-replays", str(tmp_path / "t")]) == 0
    (table,) = (tmp_path / "t").iterdir()
    assert table.name == "01-random-vs-caller.json" and len(load(table).episodes) == 4
