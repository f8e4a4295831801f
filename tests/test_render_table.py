"""The table description of every game and its rgb_array picture: a frame reads on its own
(names, stacks, the pot, the seat to act, ÷ as ÷), hidden cards show only to their owner,
and the picture keeps one size through an episode."""

from __future__ import annotations

import json

import numpy as np
import pytest

from hilo_env import font, games, picture
from hilo_env.equation_hilo.engine import Game
from hilo_env.equation_hilo.rules import RuleSet
from hilo_env.equation_hilo.table import describe
from hilo_env.table import Card, Table

STEP = (font.WIDTH + 1) * picture.SCALE


def read(image: np.ndarray, top: int, left: int, colour: tuple[int, int, int],
         chars: int) -> str:
    """The text drawn at (top, left) in ``colour``, read back glyph by glyph (upper case)."""
    ink = (image == colour).all(-1)
    known = {c: font.glyph(c) for c in font.CHARACTERS}
    out = []
    for i in range(chars):
        x = left + i * STEP
        cell = ink[top:top + font.HEIGHT * picture.SCALE:picture.SCALE,
                   x:x + font.WIDTH * picture.SCALE:picture.SCALE]
        if cell.shape != (font.HEIGHT, font.WIDTH):
            break
        out.append(next((c for c, g in known.items() if (g == cell).all()), "�"))
    return "".join(out).rstrip()


def frames(game: str, seed: int = 0, players: int | None = None):
    """Every rgb_array frame of one episode of ``game`` (the last legal action each time)."""
    spec = games.get(game)
    env = spec.raw_env(spec.rules(None, players), render_mode="rgb_array")
    env.reset(seed=seed)
    yield env, env.render()
    while not all(env.terminations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))
        yield env, env.render()


@pytest.mark.parametrize("game", games.names())
def test_every_game_offers_rgb_array_frames_of_one_size(game) -> None:
    spec = games.get(game)
    assert "rgb_array" in spec.raw_env().metadata["render_modes"]
    seats = len(spec.raw_env().possible_agents)
    shapes = set()
    for count, (_, image) in enumerate(frames(game)):
        assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
        shapes.add(image.shape)
        if count == 60:
            break
    assert shapes == {(picture.height(seats), picture.WIDTH, 3)}


@pytest.mark.parametrize("game", games.names())
def test_a_frame_names_the_seats_and_the_seat_to_act(game) -> None:
    env, image = next(frames(game))
    table = type(env).table_of(env.game, None)
    title = read(image, picture.MARGIN, picture.MARGIN, picture.INK, 40)
    assert title.startswith(table.title.upper())
    for seat, name in enumerate(env.possible_agents):
        top = picture.HEADER + seat * picture.ROW + 4
        to_act = seat == env.game.current_player
        colour = picture.TO_ACT if to_act else picture.INK
        assert read(image, top, picture.MARGIN, colour, len(name)) == name.upper()
        first_fact = table.seats[seat].facts[0]
        assert read(image, top + picture.LINE, picture.MARGIN, picture.INK,
                    len(first_fact)) == first_fact.upper()


def test_equation_hilo_frame_writes_stacks_pot_and_the_equations_with_their_signs() -> None:
    env = games.get("hilo").raw_env("standard", render_mode="rgb_array", num_players=3)
    env.reset(seed=0, options={"deck": ["10S", "1S", "5S", "9G", "r", "2B", "x", "7K"]})
    image = env.render()
    head = read(image, picture.MARGIN, picture.MARGIN, picture.INK, 60)
    assert f"POT {env.game.pot}" in head
    top = picture.HEADER + 4 + picture.LINE
    assert read(image, top, picture.MARGIN, picture.INK, 12) == f"STACK {env.game.stacks[0]}"
    while not all(env.terminations.values()):  # everyone calls and declares to a showdown
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[1 if mask.sum() > 1 else 0]))
    table = describe(env.game)
    assert table.result and all(s.note for s in table.seats if not s.out)
    image = env.render()
    for seat, shown in enumerate(table.seats):
        if shown.note:
            top = picture.HEADER + seat * picture.ROW + picture.ROW - picture.LINE - 4
            note = picture.lines_of([shown.note], 1)[0]
            assert read(image, top, picture.MARGIN, picture.INK, len(note)) == note.upper()


def test_division_is_drawn_as_its_sign() -> None:
    canvas = np.zeros((40, 200, 3), np.uint8)
    picture.text(canvas, "8 ÷ 2 × √4 − 1", 4, 4, (255, 255, 255))
    assert read(canvas, 4, 4, (255, 255, 255), 14) == "8 ÷ 2 × √4 − 1"
    assert font.has("÷") and not (font.glyph("÷") == font.glyph(":")).all()


def test_hidden_cards_show_to_their_owner_and_at_the_showdown_only() -> None:
    game = Game(RuleSet(num_players=3), np.random.default_rng(4))
    mine = describe(game, viewer=1)
    spectator = describe(game)
    assert not mine.seats[1].cards[0].hidden and mine.seats[0].cards[0].hidden
    assert all(s.cards[0].hidden for s in spectator.seats)
    assert spectator.legal and spectator.to_act == game.current_player
    raises = [a for a in spectator.legal if a.group == "raise"]
    assert raises and [a.text for a in raises] == [f"raise {a.amount}" for a in raises]
    assert "raise" in picture.legal_text(spectator)


@pytest.mark.parametrize("game", ["lohi", "himilo"])
def test_a_hand_shows_to_its_owner_only(game) -> None:
    env = games.get(game).raw_env()
    env.reset(seed=3)
    describe_game = type(env).table_of
    for viewer in range(len(env.possible_agents)):
        table = describe_game(env.game, viewer)
        for seat, shown in enumerate(table.seats):
            assert shown.cards and all(c.hidden != (seat == viewer) for c in shown.cards)
    assert all(c.hidden for s in describe_game(env.game, None).seats for c in s.cards)


@pytest.mark.parametrize("game", games.names())
def test_the_description_is_json(game) -> None:
    env = games.get(game).raw_env()
    env.reset(seed=1)
    data = type(env).table_of(env.game, 0).to_json()
    assert json.loads(json.dumps(data)) == data
    assert [a["id"] for a in data["legal"]] == list(env.game.legal_actions())


def test_a_card_colour_outside_the_palette_is_refused() -> None:
    with pytest.raises(ValueError, match="card colour 'pink'"):
        Card("7S", "pink")
    assert set(picture.COLOURS) >= {"gold", "red", "black"}
    assert Table("g", "G", "", ()).to_json()["seats"] == []


def test_a_frame_saves_as_a_png_without_an_imaging_library() -> None:
    import struct
    import zlib

    image = np.random.default_rng(0).integers(0, 256, (5, 7, 3)).astype(np.uint8)
    data = picture.png(image)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert (width, height, depth, colour) == (7, 5, 8, 2)
    start = data.index(b"IDAT") + 4
    length = struct.unpack(">I", data[start - 8:start - 4])[0]
    rows = np.frombuffer(zlib.decompress(data[start:start + length]), np.uint8)
    rows = rows.reshape(5, 1 + 7 * 3)
    assert (rows[:, 0] == 0).all() and (rows[:, 1:].reshape(5, 7, 3) == image).all()
