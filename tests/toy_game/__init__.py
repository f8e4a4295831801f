"""Swap, a toy fourth game written entirely under tests/ and registered by the tests alone
(``tests/test_games.py``), to show that a game needs no edit to the CLI, the agents or the
training code: a rules dataclass with presets (:mod:`.game`), an engine, an observation, a
PettingZoo AEC env (:mod:`.env`), an agent table (:mod:`.agents`), a terminal view for
``hilo play`` (:mod:`.terminal`) and the :class:`~hilo_env.game_spec.GameSpec` (:mod:`.spec`).

The rules: each player is dealt one card of a deck of ``deck_size`` values; in seat order,
each keeps it or swaps it for the top card of the deck; the highest card wins (+1), every
other seat pays ``1 / (n - 1)``.
"""
