"""Python strategies that misbehave on purpose (tests/test_experiment_faults.py).

``Hostile(mode, after)`` plays its first legal action until its game's
``after``-th decision, then, while the module's ``FIXED`` is False, does what
``mode`` says: ``raise`` (a ValueError), ``none``, ``text``, ``float``,
``big`` (returns such a value), ``exit`` (``sys.exit(3)``), ``sleep`` (never
returns). ``SlowInit`` never finishes its constructor; ``Unseeded`` picks a
legal action with an unseeded generator; ``Chatty`` plays its first legal
action and talks on stdout: ``print`` in its constructor and every decision,
and a raw write to file descriptor 1 at its first decision."""
import os
import random
import sys
import time

FIXED = False


class Hostile:
    def __init__(self, mode: str = "raise", after: int = 5):
        self.mode, self.after, self.calls = mode, after, 0

    def choose(self, observation, legal_actions):
        self.calls += 1
        if FIXED or self.calls <= self.after:
            return legal_actions[0]
        if self.mode == "raise":
            return self.fail(observation)
        if self.mode == "exit":
            sys.exit(3)
        if self.mode == "sleep":
            time.sleep(3600)
        return {"none": None, "text": "claim", "float": 1.5, "big": 10 ** 6}[self.mode]

    def fail(self, observation):
        raise ValueError(f"no plan at turn {observation['turn']}")


class SlowInit:
    def __init__(self):
        time.sleep(3600)

    def choose(self, observation, legal_actions):
        return legal_actions[0]


class Unseeded:
    def choose(self, observation, legal_actions):
        return random.choice(legal_actions)


class Chatty:
    def __init__(self):
        print("chatty: built")
        self.calls = 0

    def choose(self, observation, legal_actions):
        self.calls += 1
        print(f"chatty: turn {observation['turn']}")
        if self.calls == 1:
            os.write(1, b"chatty: raw\n")
        return legal_actions[0]
