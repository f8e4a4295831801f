"""A picture of the table, as an RGB array (the AEC env's ``rgb_array`` render mode).

Drawn with NumPy alone, so it needs no extra. One row per seat, the seat to act first marked:

| what                 | drawn as                                                           |
|----------------------|--------------------------------------------------------------------|
| the seat to act      | a yellow bar at the row's left edge                                |
| the dealer           | a white disc                                                       |
| a hidden card        | a red card back, or the card face where the viewer may see it      |
| a number card        | a white card, its value in its suit's colour (Gold, Silver, Bronze,|
|                      | Black), with a band of that colour                                 |
| a × or a √           | a blue card with an ×, a purple card with a √                      |
| the operators held   | their signs (+ − × ÷) after the cards                              |
| stack and wager      | a green bar (chips behind) and a red bar (chips wagered), to scale |
| a seat out of the hand | the row dimmed                                                   |

The pot is the bar along the top. Hidden cards show as :func:`render.render_text` shows them:
the viewer's own, and everyone's at a showdown.
"""

from __future__ import annotations

import functools

import numpy as np

from hilo_env.equation_hilo import cards
from hilo_env.equation_hilo.engine import Game
from hilo_env.equation_hilo.solver import OPERATORS

WIDTH = 720
HEADER, ROW = 36, 64
CARD_W, CARD_H, CARD_GAP = 34, 52, 6
CARDS_LEFT = 48
MAX_CARDS = 9
"""Cards a row has room for: the hidden card and eight face up (three deals, each with up to
two specials' extra cards: more than a hand ever holds)."""
BARS_LEFT = CARDS_LEFT + MAX_CARDS * (CARD_W + CARD_GAP) + 4 * 16 + 16
GLYPH_SCALE = 4

FELT = (16, 96, 48)
CARD_FACE = (245, 245, 240)
CARD_BACK = (150, 30, 40)
SUIT_COLOURS = ((212, 175, 55), (150, 150, 160), (176, 104, 40), (20, 20, 20))
"""Gold, Silver, Bronze, Black: the colours of ``cards.SUIT_LETTERS`` in order."""
MULTIPLY_COLOUR, ROOT_COLOUR = (40, 90, 200), (120, 50, 160)
TO_ACT, DEALER = (250, 210, 40), (255, 255, 255)
STACK_BAR, WAGER_BAR, POT_BAR = (60, 200, 90), (220, 60, 60), (250, 210, 40)
INK = (240, 240, 240)
DIM = 0.45

GLYPHS = {
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
    "+": ("000", "010", "111", "010", "000"), "-": ("000", "000", "111", "000", "000"),
    "*": ("000", "101", "010", "101", "000"), "/": ("000", "010", "000", "010", "000"),
    "r": ("00111", "00100", "00100", "10100", "01000"),
}
"""5-row bitmaps of the digits and signs drawn (``/`` is ÷, ``r`` is √)."""


@functools.cache
def _glyph(char: str) -> np.ndarray:
    rows = GLYPHS[char]
    bits = np.array([[c == "1" for c in row] for row in rows])
    return np.kron(bits, np.ones((GLYPH_SCALE, GLYPH_SCALE), bool))


def _text(canvas: np.ndarray, text: str, top: int, left: int,
          colour: tuple[int, int, int]) -> None:
    """Draw ``text`` (characters of :data:`GLYPHS`) with its top-left corner at (top, left)."""
    for char in text:
        mask = _glyph(char)
        h, w = mask.shape
        canvas[top:top + h, left:left + w][mask] = colour
        left += w + GLYPH_SCALE


def _card(canvas: np.ndarray, card: int | None, top: int, left: int) -> None:
    """A card, face up (``card``) or face down (None)."""
    box = canvas[top:top + CARD_H, left:left + CARD_W]
    if card is None:
        box[:] = CARD_BACK
        box[4:-4:6, 4:-4] = CARD_FACE  # the back's stripes
        return
    if cards.is_number(card):
        colour = SUIT_COLOURS[cards.suit(card)]
        box[:] = CARD_FACE
        box[-8:] = colour
        value = str(cards.value(card))
        width = len(value) * 4 * GLYPH_SCALE - GLYPH_SCALE
        _text(canvas, value, top + 10, left + (CARD_W - width) // 2, colour)
        return
    sign = "*" if cards.is_multiply(card) else "r"
    box[:] = MULTIPLY_COLOUR if sign == "*" else ROOT_COLOUR
    _text(canvas, sign, top + 16, left + (CARD_W - _glyph(sign).shape[1]) // 2, CARD_FACE)


def _bar(canvas: np.ndarray, top: int, fraction: float, colour: tuple[int, int, int]) -> None:
    length = round((WIDTH - BARS_LEFT - 12) * min(max(fraction, 0.0), 1.0))
    canvas[top:top + 10, BARS_LEFT:BARS_LEFT + length] = colour


def picture(game: Game, viewer: int | None = None) -> np.ndarray:
    """The table as an ``(H, 720, 3)`` uint8 picture; hidden cards show for ``viewer`` only,
    and for everyone at a showdown."""
    n = game.num_players
    canvas = np.empty((HEADER + n * ROW, WIDTH, 3), np.uint8)
    canvas[:] = FELT
    chips = game.rules.starting_stack * n
    showdown = game.result is not None and not game.result.fold_out
    pot = game.pot if game.result is None else sum(game.result.payouts) + game.result.house
    _bar(canvas, 12, pot / chips, POT_BAR)
    for seat in range(n):
        top = HEADER + seat * ROW
        row = canvas[top:top + ROW]
        if seat == game.current_player:
            row[6:-6, :6] = TO_ACT
        if seat == game.button:
            yy, xx = np.ogrid[:ROW, :WIDTH]
            row[(yy - ROW // 2) ** 2 + (xx - 26) ** 2 <= 64] = DEALER
        hidden = game.hidden[seat]
        shown = showdown or seat == viewer
        dealt = [(hidden if shown else None)] if hidden >= 0 else []
        for i, card in enumerate([*dealt, *game.up[seat]][:MAX_CARDS]):
            _card(canvas, card, top + 6, CARDS_LEFT + i * (CARD_W + CARD_GAP))
        signs = "".join(sorted(game.operators[seat], key=OPERATORS.index))
        _text(canvas, signs, top + 22, CARDS_LEFT + MAX_CARDS * (CARD_W + CARD_GAP), INK)
        _bar(canvas, top + 18, game.stacks[seat] / chips, STACK_BAR)
        _bar(canvas, top + 34, game.wagers[seat] / chips, WAGER_BAR)
        if not game.in_hand[seat]:
            row[:] = (row * DIM).astype(np.uint8)
    return canvas
