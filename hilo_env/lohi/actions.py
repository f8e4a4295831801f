"""Action ids and texts of lo-hi (``docs/lohi.md`` section 6): one ``Discrete(200)`` space
for every player count. Ids and texts are public API.

| ids      | text                                  | meaning                                    |
|----------|---------------------------------------|--------------------------------------------|
| 0        | ``pick up``                           | take the stock's top card (or pass)        |
| 1..52    | ``play 7`` .. ``play 7 7 7 7``        | a set of k cards of rank r: 1 + 4r + (k-1) |
| 53..184  | ``play 8 9 10``, ``play 10 9 8``      | a run from rank f to rank l, in play order |
| 185, 186 | ``higher``, ``lower``                 | the choice after a double                  |
| 187..199 | ``call 2`` .. ``call A``              | the call after a triple: 187 + r           |

Runs are numbered by the ordered pairs (f, l) with ``|f - l| >= 2`` in lexicographic order.
"""

from __future__ import annotations

from numbers import Integral

from hilo_env.lohi.cards import NUM_RANKS, NUM_SUITS, RANK_TEXTS, parse_rank

PICK_UP = 0
FIRST_SET = 1
MAX_SET = NUM_SUITS
"""The largest set: every card of one rank."""
FIRST_RUN = FIRST_SET + NUM_RANKS * MAX_SET
MIN_RUN_SPAN = 2
"""A run's first and last ranks differ by at least this (three cards)."""
RUNS: tuple[tuple[int, int], ...] = tuple(
    (f, last) for f in range(NUM_RANKS) for last in range(NUM_RANKS)
    if abs(f - last) >= MIN_RUN_SPAN)
"""(first rank, last rank) of every run id, in id order from :data:`FIRST_RUN`."""
HIGHER = FIRST_RUN + len(RUNS)
LOWER = HIGHER + 1
FIRST_CALL = LOWER + 1
NUM_ACTIONS = FIRST_CALL + NUM_RANKS

PICK_UP_TEXT, HIGHER_TEXT, LOWER_TEXT = "pick up", "higher", "lower"
PLAY_WORD, CALL_WORD = "play", "call"

RUN_ID: dict[tuple[int, int], int] = {run: FIRST_RUN + i for i, run in enumerate(RUNS)}
"""The action id of a run (first rank, last rank)."""


def set_of(action: int) -> tuple[int, int]:
    """(rank, count) of a set action id."""
    rank, k = divmod(action - FIRST_SET, MAX_SET)
    return rank, k + 1


def call_action(rank: int) -> int:
    """The id of calling ``rank`` after a triple."""
    return FIRST_CALL + rank


def run_ranks(first: int, last: int) -> list[int]:
    """The ranks of the run from ``first`` to ``last``, in the order played."""
    step = 1 if last > first else -1
    return list(range(first, last + step, step))


def _build_texts() -> tuple[str, ...]:
    texts = [PICK_UP_TEXT]
    for rank in range(NUM_RANKS):
        texts += [" ".join([PLAY_WORD] + [RANK_TEXTS[rank]] * k) for k in range(1, MAX_SET + 1)]
    texts += [" ".join([PLAY_WORD] + [RANK_TEXTS[r] for r in run_ranks(f, last)])
              for f, last in RUNS]
    texts += [HIGHER_TEXT, LOWER_TEXT]
    texts += [f"{CALL_WORD} {RANK_TEXTS[r]}" for r in range(NUM_RANKS)]
    return tuple(texts)


TEXTS = _build_texts()
"""Every action's text, by id."""
ID_OF_TEXT = {text: i for i, text in enumerate(TEXTS)}


def action_to_string(action: int) -> str:
    """The exact text of an action id (a Python or NumPy integer)."""
    if isinstance(action, bool) or not isinstance(action, Integral):
        raise TypeError(f"a lo-hi action id is an integer 0..{NUM_ACTIONS - 1}, not "
                        f"{action!r} ({type(action).__name__})")
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action id {action!r} is outside 0..{NUM_ACTIONS - 1}")
    return TEXTS[int(action)]


def string_to_action(text: str) -> int:
    """The id of an exact action text (``pick up``, ``play 7 7``, ``play J 10 9``, ``call A``)."""
    if not isinstance(text, str):
        raise TypeError(f"a lo-hi action text is a string, not {text!r}")
    action = ID_OF_TEXT.get(text)
    if action is None:
        raise ValueError(f"unknown lo-hi action {text!r}; actions read like 'pick up', "
                         f"'play 7 7', 'play 8 9 10', 'higher', 'lower', 'call A'")
    return action


def normalize(text: str) -> str:
    """People's spelling of an action in the exact form: spaces squeezed, ranks upper-case
    (``play j q k`` -> ``play J Q K``); an unreadable rank is left for the lookup to refuse."""
    words = text.strip().lower().split()
    if words and words[0] in (PLAY_WORD, CALL_WORD):
        ranks = []
        for w in words[1:]:
            try:
                ranks.append(RANK_TEXTS[parse_rank(w)])
            except ValueError:
                ranks.append(w)
        words = [words[0], *ranks]
    return " ".join(words)
