"""Action ids and their text forms, shared by the engine, the environments and the agents.

Every decision of the game (a bet, the forced discard after a ×, the declaration) is one
integer in a single ``Discrete(num_actions(rules.max_cap))`` space, whose size grows with the
largest betting cap of the rule set (:attr:`RuleSet.max_cap`: the starting stack,
or more in a match of 3 or more players where eliminations can leave bigger smallest stacks):

| id          | text          | meaning                                             |
|-------------|---------------|-----------------------------------------------------|
| 0           | ``fold``      | forfeit the hand and everything wagered             |
| 1           | ``check``     | stay in without adding chips (nobody has bet more)  |
| 2           | ``call``      | match the highest wager                             |
| 3           | ``discard +`` | after a ×, give up the + operator                   |
| 4           | ``discard -`` | after a ×, give up the − operator                   |
| 5           | ``discard x`` | after a second × (classic), give up the held ×      |
| 6           | ``low``       | declare Low (target 1)                              |
| 7           | ``high``      | declare High (target 20)                            |
| 8           | ``swing``     | declare Swing (both targets)                        |
| 9 + N - 1   | ``raise N``   | bet or raise so the total wager becomes N           |
|             |               | (N in 1..``max_cap``; legal up to the hand's cap)   |

``bet N`` is read as ``raise N``; ``discard −`` and ``discard ×`` are accepted too.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Integral

FOLD, CHECK, CALL = 0, 1, 2
DISCARD_PLUS, DISCARD_MINUS, DISCARD_MULTIPLY = 3, 4, 5
DECLARE_LOW, DECLARE_HIGH, DECLARE_SWING = 6, 7, 8
FIRST_RAISE = 9

DISCARDS = {"+": DISCARD_PLUS, "-": DISCARD_MINUS, "*": DISCARD_MULTIPLY}
"""Operator character (as the solver writes it) to its discard action."""
DISCARDED_OPERATOR = {a: op for op, a in DISCARDS.items()}
DECLARATIONS = (DECLARE_LOW, DECLARE_HIGH, DECLARE_SWING)

_NAMES = {
    FOLD: "fold", CHECK: "check", CALL: "call",
    DISCARD_PLUS: "discard +", DISCARD_MINUS: "discard -", DISCARD_MULTIPLY: "discard x",
    DECLARE_LOW: "low", DECLARE_HIGH: "high", DECLARE_SWING: "swing",
}
_ALIASES = {
    **{name: a for a, name in _NAMES.items()},
    "discard −": DISCARD_MINUS, "discard ×": DISCARD_MULTIPLY, "discard *": DISCARD_MULTIPLY,
}


def num_actions(max_total: int) -> int:
    """Size of the action space whose largest raise is ``raise max_total``.

    Give it ``rules.max_cap`` (the largest betting cap a hand can have), not the starting
    stack: after an elimination a hand's cap can exceed the starting stack.
    """
    return FIRST_RAISE + max_total


def raise_to(total: int) -> int:
    """The action that raises the acting player's total wager to ``total`` chips."""
    if total < 1:
        raise ValueError(f"a raise must make the total wager at least 1 chip, not {total}")
    return FIRST_RAISE + total - 1


def raise_total(action: int) -> int:
    """The total wager a raise action asks for."""
    return action - FIRST_RAISE + 1


def action_to_string(action: int) -> str:
    """Text form of an action id (a Python or NumPy integer): ``fold``, ``raise 5``,
    ``discard +``, ``swing``..."""
    if isinstance(action, bool) or not isinstance(action, Integral):
        raise TypeError(f"an action id is an integer, not {action!r} ({type(action).__name__})")
    action = int(action)
    if action in _NAMES:
        return _NAMES[action]
    if action >= FIRST_RAISE:
        return f"raise {raise_total(action)}"
    raise ValueError(f"{action!r} is not an action id (0..)")


def string_to_action(text: str) -> int:
    """Action id of a text form; raises ValueError for text that names no action."""
    if not isinstance(text, str):
        raise TypeError(f"an action text is a string, not {text!r}")
    t = " ".join(text.strip().lower().split())
    if t in _ALIASES:
        return _ALIASES[t]
    words = t.split(" ")
    if len(words) == 2 and words[0] in ("raise", "bet") and words[1].isdigit():
        return raise_to(int(words[1]))
    raise ValueError(f"cannot read action {text!r}")


def describe_legal(legal: Sequence[int]) -> str:
    """Legal actions for people, a run of raises shortened: ``fold, call, raise 3..100``."""
    raises = [a for a in legal if a >= FIRST_RAISE]
    words = [action_to_string(a) for a in legal if a < FIRST_RAISE]
    if raises:
        lo, hi = raise_total(raises[0]), raise_total(raises[-1])
        words.append(f"raise {lo}" if lo == hi else f"raise {lo}..{hi}")
    return ", ".join(words)
