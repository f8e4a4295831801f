"""Hi MiLo!'s action ids and texts: one ``Discrete(147)`` space for every player count.

| ids           | text                                | when                          |
|---------------|-------------------------------------|-------------------------------|
| 0..71         | ``play 7S`` (id = card id)          | trick play                    |
| 72..143       | ``pass 7S`` (id = 72 + card id)     | passing, one card per action  |
| 144, 145, 146 | ``bid low``, ``bid middle``, ``bid high`` | bidding                 |

The ids and texts are public API (``docs/himilo.md`` section 5). Text is read case- and
space-insensitively, and cards may use suit symbols (``play 7♠``).
"""

from __future__ import annotations

from numbers import Integral

from hilo_env.himilo.cards import NUM_CARD_IDS, card_str, parse_card

FIRST_PLAY = 0
FIRST_PASS = FIRST_PLAY + NUM_CARD_IDS  # 72
BID_LOW = FIRST_PASS + NUM_CARD_IDS  # 144
BID_MIDDLE = BID_LOW + 1
BID_HIGH = BID_LOW + 2
NUM_ACTIONS = BID_HIGH + 1  # 147
BIDS = (BID_LOW, BID_MIDDLE, BID_HIGH)
BID_NAMES = {BID_LOW: "low", BID_MIDDLE: "middle", BID_HIGH: "high"}
PLAY_WORD, PASS_WORD, BID_WORD = "play", "pass", "bid"


def play(card: int) -> int:
    """The action that plays ``card`` to the trick."""
    return FIRST_PLAY + card


def pass_card(card: int) -> int:
    """The action that sets ``card`` aside to pass."""
    return FIRST_PASS + card


def card_of(action: int) -> int:
    """The card a play or pass action names."""
    return action - FIRST_PASS if action >= FIRST_PASS else action


def is_pass(action: int) -> bool:
    return FIRST_PASS <= action < BID_LOW


def action_to_string(action: int) -> str:
    """Text of an action id (a Python or NumPy integer): ``play 7S``, ``pass 12C``,
    ``bid high``."""
    if isinstance(action, bool) or not isinstance(action, Integral):
        raise TypeError(f"a Hi MiLo! action id is an integer 0..{NUM_ACTIONS - 1}, not "
                        f"{action!r} ({type(action).__name__})")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"{action!r} is not a Hi MiLo! action id (0..{NUM_ACTIONS - 1})")
    action = int(action)
    if action >= BID_LOW:
        return f"{BID_WORD} {BID_NAMES[action]}"
    word = PASS_WORD if action >= FIRST_PASS else PLAY_WORD
    return f"{word} {card_str(card_of(action))}"


_BID_BY_NAME = {name: a for a, name in BID_NAMES.items()}


def string_to_action(text: str) -> int:
    """The id of an action text; ValueError for text that names no action."""
    if not isinstance(text, str):
        raise TypeError(f"a Hi MiLo! action text is a string, not {text!r}")
    words = text.strip().lower().split()
    if len(words) == 2:
        verb, what = words
        if verb == BID_WORD and what in _BID_BY_NAME:
            return _BID_BY_NAME[what]
        if verb in (PLAY_WORD, PASS_WORD):
            try:
                card = parse_card(what)
            except ValueError:
                pass
            else:
                return play(card) if verb == PLAY_WORD else pass_card(card)
    raise ValueError(f"cannot read Hi MiLo! action {text!r}: 'play 7S', 'pass 7S', "
                     "'bid low', 'bid middle' or 'bid high'")
