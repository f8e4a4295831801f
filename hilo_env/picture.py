"""A table (:class:`hilo_env.table.Table`) drawn as an RGB picture: the ``rgb_array`` render
mode of every game, drawn with NumPy and the project's bitmap font (:mod:`hilo_env.font`), so
it needs no extra.

A frame reads on its own in a video: the game and its headline (round, pot) along the top;
one row per seat with its name, its facts (stack, wager, bid, cards left...), its cards and
a note (a showdown's equation); the cards in the middle (lo-hi's pile, Hi MiLo!'s trick); and
at the bottom who is to act and the legal actions, or the episode's result.

| what                   | drawn as                                                     |
|------------------------|--------------------------------------------------------------|
| the seat to act        | a yellow bar at the row's left edge, its name in yellow      |
| the dealer (button)    | a white ``D`` after the name                                 |
| a card face up         | a white card, its text in its colour (suit, × blue, √ purple)|
| a card face down       | a red card back                                              |
| a seat out of the play | its row dimmed                                               |

The picture's size depends on the number of seats only, so the frames of an episode make a
video.
"""

from __future__ import annotations

import struct
import textwrap
import zlib

import numpy as np

from hilo_env import font
from hilo_env.table import Card, Seat, Table

WIDTH = 960
SCALE = 2
"""Pixels per font pixel: text is 14 pixels high."""
LINE = font.HEIGHT * SCALE + 5
CHARS = (WIDTH - 24) // ((font.WIDTH + 1) * SCALE)
"""Characters a full-width line holds."""
MARGIN = 12
HEAD_LINES, FOOT_LINES = 3, 3
HEADER = MARGIN + HEAD_LINES * LINE + 4
CARD_W, CARD_H, CARD_GAP = 42, 58, 4
FACT_LINES = 4
"""Lines of a seat's left column: its name and up to three facts."""
ROW = max(FACT_LINES * LINE, CARD_H + 4) + LINE + 10
"""A seat's row: its column or its cards, then its note."""
CENTRE = LINE + CARD_H + 14
CARDS_LEFT = MARGIN + 20 * (font.WIDTH + 1) * SCALE + 8
MAX_CARDS = (WIDTH - MARGIN - CARDS_LEFT) // (CARD_W + CARD_GAP)
"""Cards a row has room for; more are summed up as ``+N``."""

FELT = (16, 96, 48)
INK = (240, 240, 240)
TO_ACT = (250, 210, 40)
CARD_FACE = (245, 245, 240)
CARD_BACK = (150, 30, 40)
DIM = 0.45
COLOURS = {"gold": (190, 150, 20), "silver": (120, 120, 135), "bronze": (165, 95, 35),
           "black": (20, 20, 20), "red": (200, 30, 30), "blue": (40, 90, 200),
           "purple": (120, 50, 160), "green": (20, 130, 60), "grey": (110, 110, 110)}
"""The RGB of each of ``table.CARD_COLOURS``."""


def height(num_seats: int) -> int:
    """The picture's height for a table of ``num_seats``."""
    return HEADER + num_seats * ROW + CENTRE + FOOT_LINES * LINE + MARGIN


def text(canvas: np.ndarray, words: str, top: int, left: int, colour: tuple[int, int, int],
         scale: int = SCALE) -> int:
    """Draw ``words`` with the top-left corner at (top, left), clipped at the canvas's edge;
    returns the column after the last character."""
    for char in words:
        bits = np.kron(font.glyph(char), np.ones((scale, scale), bool))
        box = canvas[top:top + bits.shape[0], left:left + bits.shape[1]]
        box[bits[:box.shape[0], :box.shape[1]]] = colour
        left += (font.WIDTH + 1) * scale
    return left


def lines_of(words: list[str] | tuple[str, ...], count: int, chars: int = CHARS) -> list[str]:
    """``words`` (paragraphs) wrapped to ``chars`` columns, at most ``count`` lines (the last
    one cut with ``…`` when more would follow)."""
    out = [line for paragraph in words for line in textwrap.wrap(paragraph, chars) or [""]]
    if len(out) > count:
        out = out[:count]
        out[-1] = out[-1][:chars - 1] + "…"
    return out


def card(canvas: np.ndarray, shown: Card, top: int, left: int) -> None:
    """One card, face up or face down."""
    box = canvas[top:top + CARD_H, left:left + CARD_W]
    if shown.hidden:
        box[:] = CARD_BACK
        box[4:-4:6, 4:-4] = CARD_FACE  # the back's stripes
        return
    box[:] = CARD_FACE
    colour = COLOURS[shown.colour]
    box[-6:] = colour
    scale = SCALE if font.text_width(shown.text, SCALE) <= CARD_W - 4 else 1
    width = font.text_width(shown.text, scale)
    text(canvas, shown.text, top + (CARD_H - 6 - font.HEIGHT * scale) // 2,
         left + (CARD_W - width) // 2, colour, scale)


def cards_row(canvas: np.ndarray, shown: tuple[Card, ...], top: int, left: int) -> None:
    """Cards left to right; those beyond the room there is summed up as ``+N``."""
    room = MAX_CARDS if len(shown) <= MAX_CARDS else MAX_CARDS - 1
    for i, c in enumerate(shown[:room]):
        card(canvas, c, top, left + i * (CARD_W + CARD_GAP))
    if len(shown) > room:
        text(canvas, f"+{len(shown) - room}", top + CARD_H // 2 - LINE // 2,
             left + room * (CARD_W + CARD_GAP) + 2, INK)


def seat_row(canvas: np.ndarray, seat: Seat, top: int) -> None:
    """A seat's row (the module docstring's table)."""
    row = canvas[top:top + ROW]
    name_colour = TO_ACT if seat.to_act else INK
    if seat.to_act:
        row[4:-4, :6] = TO_ACT
    after = text(canvas, seat.name, top + 4, MARGIN, name_colour)
    if "dealer" in seat.marks:
        canvas[top + 2:top + 2 + LINE, after + 6:after + 6 + 3 * SCALE * 3] = INK
        text(canvas, "D", top + 4, after + 6 + 5, FELT)
    for i, fact in enumerate(seat.facts[:FACT_LINES - 1]):
        text(canvas, fact[:20], top + 4 + (i + 1) * LINE, MARGIN, INK)
    cards_row(canvas, seat.cards, top + 4, CARDS_LEFT)
    if seat.note:
        note = lines_of([seat.note], 1)[0]
        text(canvas, note, top + ROW - LINE - 4, MARGIN, INK)
    if seat.out:
        row[:] = (row * DIM).astype(np.uint8)


def legal_text(table: Table) -> str:
    """The legal actions in a line, each group of amounts as a range (``raise 2..100``)."""
    words = [a.text for a in table.legal if a.amount is None]
    groups: dict[str, list[int]] = {}
    for a in table.legal:
        if a.amount is not None:
            groups.setdefault(a.group, []).append(a.amount)
    words += [f"{group} {min(amounts)}..{max(amounts)}" if len(amounts) > 1
              else f"{group} {amounts[0]}" for group, amounts in groups.items()]
    return ", ".join(words)


def picture(table: Table) -> np.ndarray:
    """``table`` as an ``(height(seats), 960, 3)`` uint8 picture."""
    canvas = np.empty((height(len(table.seats)), WIDTH, 3), np.uint8)
    canvas[:] = FELT
    head = lines_of([f"{table.title} · {table.headline}"], HEAD_LINES)
    for i, line in enumerate(head):
        text(canvas, line, MARGIN + i * LINE, MARGIN, INK)
    top = HEADER
    for seat in table.seats:
        seat_row(canvas, seat, top)
        top += ROW
    if table.centre_label or table.centre:
        text(canvas, table.centre_label, top, MARGIN, INK)
        cards_row(canvas, table.centre, top + LINE + 4, MARGIN)
    top += CENTRE
    if table.result:
        foot = list(table.result)
    else:
        foot = [f"{table.status} · legal: {legal_text(table)}" if table.legal else table.status]
    for i, line in enumerate(lines_of(foot, FOOT_LINES)):
        text(canvas, line, top + i * LINE, MARGIN, TO_ACT if not table.result else INK)
    return canvas


def png(image: np.ndarray) -> bytes:
    """An ``(H, W, 3)`` uint8 picture as the bytes of a PNG file (zlib alone: no imaging
    library), for a frame saved or served as it is drawn."""
    height_, width = image.shape[:2]
    rows = np.concatenate([np.zeros((height_, 1), np.uint8),  # filter type 0 on every row
                           np.ascontiguousarray(image, np.uint8).reshape(height_, width * 3)],
                          axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height_, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))
