"""The web table under load, on the loopback only: long replays and many players at once.

``replay``: legal lo-hi matches of growing length (games of thousands of decisions, mostly
"pick up") are posted to a ``hilo serve`` app and shown; for each, the seconds to read it
(per decision: flat as the length grows when the cost is linear), a step forward, a jump to
a random step, and the server's memory after; then one over the decision limit, refused.

``load``: ``--clients`` threads, each starting a match (play or watch, any game) and playing it
to its end, again and again, for ``--seconds``; the server's resident memory is sampled each
second. The server runs in a child process on 127.0.0.1 with ``--max-games`` games at most,
so memory levels off once the cap is reached.

    .venv/bin/python bench/web.py replay            # the web extra: pip install -e ".[web]"
    .venv/bin/python bench/web.py load --clients 8 --seconds 60
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import numpy as np

from hilo_env import games
from hilo_env.agents.play import view
from hilo_env.replays import Episode, Replay
from hilo_env.web.limits import MAX_DECISIONS

FORWARD = 200
"""Steps shown one after another from the middle of each replay."""
JUMPS = 50
"""Steps shown at random places (each rebuilt from the checkpoint before it)."""
PICK_UP = 0.99
"""How often a seat picks up when it may: lo-hi games of thousands of decisions."""
HOST = "127.0.0.1"
"""The loopback: nothing here reaches beyond this machine."""


def long_lohi(decisions: int, seed: int = 0) -> dict[str, Any]:
    """A legal match of lo-hi games of ``decisions`` decisions in all, each seat picking up
    whenever it may (the last game cut short); a replay's data."""
    spec = games.get("lohi")
    rules = spec.rules("standard")
    pick_up = next(a for a in range(1000) if spec.action_to_string(a) == "pick up")
    rng, episodes, left = np.random.default_rng(seed), [], decisions
    deals = view("lohi").deals(rules, seed, decisions)
    while left > 0:
        state, actions = next(deals), []
        while state.current_player is not None and len(actions) < left:
            legal = state.legal_actions()
            action = pick_up if pick_up in legal and rng.random() < PICK_UP else \
                int(rng.choice(legal))
            actions.append(int(action))
            state.step(action)
        episodes.append(Episode(actions=actions, seats=["random", "random"]))
        left -= len(actions)
    replay = Replay.new("lohi", rules, {"by": "match", "seed": seed, "count": len(episodes)})
    replay.episodes = episodes
    return replay.to_json()


class Server:
    """``hilo serve``'s app in a child process on the loopback (a free port)."""

    def __init__(self, max_games: int = 256) -> None:
        with socket.socket() as probe:
            probe.bind((HOST, 0))
            self.port = probe.getsockname()[1]
        code = ("import uvicorn; from hilo_env.web.app import create_app; "
                f"uvicorn.run(create_app(limit={max_games}), host='{HOST}', "
                f"port={self.port}, log_level='warning')")
        self.process = subprocess.Popen([sys.executable, "-c", code])
        deadline = time.monotonic() + 60
        while True:
            try:
                self.call("GET", "/api/games")
                return
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.2)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://{HOST}:{self.port}{path}", data=data,
                                         method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def memory_mb(self) -> float:
        """The server's resident memory (Linux's /proc)."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError("no VmRSS")

    def cpu_seconds(self) -> float:
        """The server's CPU time so far, user and system (Linux's /proc): on a shared
        machine a steadier measure of its work than the wall clock."""
        import os

        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def bench_replay(lengths: list[int]) -> None:
    server = Server()
    try:
        print(f"server at start: {server.memory_mb():.0f} MB")
        print("| decisions | bytes | read: wall s | read: server CPU s | CPU µs a decision | "
              "GET /api/games meanwhile: slowest ms | ms a step forward | ms a jump | "
              "server MB after |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        rng = np.random.default_rng(0)
        for length in lengths:
            data = long_lohi(length)
            lengths_of = [len(e["actions"]) for e in data["episodes"]]
            total, longest = sum(lengths_of), lengths_of.index(max(lengths_of))
            decisions = lengths_of[longest]  # its longest game is shown
            reading, waits = threading.Event(), []

            def meanwhile(reading: threading.Event = reading, waits: list = waits) -> None:
                while not reading.is_set():
                    begun = time.perf_counter()
                    server.call("GET", "/api/games")
                    waits.append(time.perf_counter() - begun)
                    time.sleep(0.05)

            other = threading.Thread(target=meanwhile)
            start, cpu = time.perf_counter(), server.cpu_seconds()
            other.start()
            status, answer = server.call("POST", "/api/replays", data)
            read, cpu = time.perf_counter() - start, server.cpu_seconds() - cpu
            reading.set()
            other.join()
            assert status == 200, answer
            path = f"/api/sessions/{answer['id']}?episode={longest}&step="
            start = time.perf_counter()
            middle = decisions // 2
            for step in range(middle, middle + FORWARD):
                status, shown = server.call("GET", f"{path}{step}")
                assert status == 200 and shown["step"] == step, shown
            forward = (time.perf_counter() - start) / FORWARD
            start = time.perf_counter()
            for step in rng.integers(0, decisions + 1, JUMPS).tolist():
                status, shown = server.call("GET", f"{path}{step}")
                assert status == 200 and shown["step"] == step, shown
            jump = (time.perf_counter() - start) / JUMPS
            print(f"| {total:,} ({len(lengths_of)} games) | {len(json.dumps(data)):,} | "
                  f"{read:.1f} | {cpu:.1f} | {1e6 * cpu / total:.0f} | "
                  f"{1e3 * max(waits):.0f} | {1e3 * forward:.1f} | "
                  f"{1e3 * jump:.0f} | {server.memory_mb():.0f} |", flush=True)
        data = long_lohi(MAX_DECISIONS + 1)
        start = time.perf_counter()
        status, answer = server.call("POST", "/api/replays", data)
        print(f"\n{MAX_DECISIONS + 1:,} decisions: {status} in "
              f"{time.perf_counter() - start:.2f} s: {answer['error']}")
    finally:
        server.stop()


def bench_load(clients: int, seconds: float, max_games: int) -> None:
    server = Server(max_games)
    moves, matches, errors = [0], [0], []
    stop = time.monotonic() + seconds
    names = games.names()

    def client(number: int) -> None:
        rng = np.random.default_rng(number)
        while time.monotonic() < stop:
            game = names[int(rng.integers(len(names)))]
            mode = ("play", "watch")[int(rng.integers(2))]
            status, answer = server.call("POST", "/api/matches",
                                         {"game": game, "mode": mode, "agents": "random"})
            if status != 200:
                errors.append(answer)
                return
            key, shown = answer["id"], answer["view"]
            matches[0] += 1
            while not (shown["over"] and shown["match_over"]) and time.monotonic() < stop:
                if shown.get("waiting_for") == "person":
                    legal = shown["table"]["legal"]
                    body = {"action": legal[int(rng.integers(len(legal)))]["id"],
                            "version": shown["version"]}
                    status, shown = server.call("POST", f"/api/sessions/{key}/act", body)
                else:
                    status, shown = server.call("POST", f"/api/sessions/{key}/advance",
                                                {"version": shown["version"]})
                if status != 200:
                    errors.append(shown)
                    return
                moves[0] += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    try:
        print(f"{clients} clients for {seconds:g} s, at most {max_games} games held")
        print("| s | matches | moves | server MB |")
        print("|---:|---:|---:|---:|")
        print(f"| 0 | 0 | 0 | {server.memory_mb():.0f} |")
        started = time.monotonic()
        for thread in threads:
            thread.start()
        while any(t.is_alive() for t in threads):
            time.sleep(min(10.0, seconds / 6))
            print(f"| {time.monotonic() - started:.0f} | {matches[0]:,} | {moves[0]:,} | "
                  f"{server.memory_mb():.0f} |")
        for thread in threads:
            thread.join()
        print(f"\nerrors: {len(errors)}" + (f" (first: {errors[0]})" if errors else ""))
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    replay = sub.add_parser("replay", help="long replays read and stepped through")
    replay.add_argument("--lengths", type=int, nargs="+",
                        default=[12_500, 25_000, 50_000, 100_000])
    load = sub.add_parser("load", help="many clients playing at once")
    load.add_argument("--clients", type=int, default=8)
    load.add_argument("--seconds", type=float, default=60)
    load.add_argument("--max-games", type=int, default=64)
    args = parser.parse_args()
    if args.what == "replay":
        bench_replay(args.lengths)
    else:
        bench_load(args.clients, args.seconds, args.max_games)


if __name__ == "__main__":
    main()
