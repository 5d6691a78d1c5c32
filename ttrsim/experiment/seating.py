"""Seatings, seed blocks and the game-number layout of an experiment.

Games come in *blocks*. A block holds one game for every seating of the
experiment's design, and every game of a block plays the same game seed (the
same deck, ticket and passenger order: paired games, common random numbers).
The designs:

============  =======================================================  ===============
seating       seatings in a block                                       block size
============  =======================================================  ===============
fixed         the line-up as listed                                     1
rotate        the line-up rotated through every seat: seating k puts    P
              line-up entry i in seat (i + k) mod P
permute       every ordering of the line-up (lexicographic)             P!
round_robin   every P-subset of the pool (lexicographic), each rotated  C(N, P) * P
============  =======================================================  ===============

Game number ``n`` of a sweep point is game ``n % block_size`` (its seating) of
block ``n // block_size``; its seed is :func:`block_seed` (experiment seed,
block), a SplitMix64 hash on Python ints (never ``hash()``), so a game depends
only on the experiment seed and its number, never on workers, chunks or
backend. The seed is the same for every sweep point (common random numbers
across the grid too). Game ids are unique in a results folder:
``game = point * stride + n`` (:func:`game_stride`: room for a sweep to grow).

>>> design("rotate", 3, 3)
((0, 1, 2), (2, 0, 1), (1, 2, 0))
>>> len(design("round_robin", 4, 3))      # C(4, 3) tables x 3 rotations
12
>>> block_seed(1, 0) == int(block_seeds(1, np.array([0]))[0])
True
>>> game_stride(2000, 1), game_stride(2000, 4), game_stride(10_000, 4)
(2000, 100000, 100000)
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

SEATINGS = ("rotate", "fixed", "permute", "round_robin")
MAX_GAME_IDS = 2 ** 32 - 1       # game ids are uint32
M64 = (1 << 64) - 1
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def design(seating: str, n_entrants: int, players: int) -> tuple[tuple[int, ...], ...]:
    """The seatings of one block: per seating, the entrant index at each seat."""
    if seating == "fixed":
        return (tuple(range(players)),)
    if seating == "rotate":
        return tuple(_rotations(tuple(range(players))))
    if seating == "permute":
        return tuple(itertools.permutations(range(players)))
    if seating == "round_robin":
        out = []
        for table in itertools.combinations(range(n_entrants), players):
            out.extend(_rotations(table))
        return tuple(out)
    raise ValueError(f"unknown seating '{seating}'")


def _rotations(table: tuple[int, ...]):
    """Rotation k puts table[i] in seat (i + k) mod P."""
    p = len(table)
    for k in range(p):
        seats = [0] * p
        for i, e in enumerate(table):
            seats[(i + k) % p] = e
        yield tuple(seats)


def splitmix64(x: int) -> int:
    """SplitMix64 output for state ``x`` (Python ints, wraps at 64 bits)."""
    z = (x + _GOLDEN) & M64
    z = ((z ^ (z >> 30)) * _MIX1) & M64
    z = ((z ^ (z >> 27)) * _MIX2) & M64
    return z ^ (z >> 31)


def block_seed(seed: int, block: int) -> int:
    """The engine seed (int64 >= 0) of every game of ``block``."""
    return splitmix64(splitmix64(seed) ^ block) >> 1


def block_seeds(seed: int, blocks: np.ndarray) -> np.ndarray:
    """:func:`block_seed` for an array of blocks (numpy uint64 arithmetic wraps
    exactly like the masked Python ints); int64."""
    key = np.uint64(splitmix64(seed))
    z = np.asarray(blocks, np.uint64) ^ key
    with np.errstate(over="ignore"):
        z = z + np.uint64(_GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(1)).astype(np.int64)


@dataclass(frozen=True)
class Chunk:
    """Games ``[lo, hi)`` (game numbers within sweep point ``point``); ``index``
    counts the chunks of the point, ``key`` names its part files."""
    point: int
    index: int
    lo: int
    hi: int

    @property
    def key(self) -> str:
        return f"{self.point:04d}-{self.index:06d}"

    @property
    def games(self) -> int:
        return self.hi - self.lo


def chunk_games(chunk_size: int, block_size: int) -> int:
    """Games per chunk: ``chunk_size`` rounded to whole blocks (at least one)."""
    return max(1, round(chunk_size / block_size)) * block_size


def chunks_of_point(point: int, games: int, per_chunk: int) -> list[Chunk]:
    return [Chunk(point, k, lo, min(games, lo + per_chunk)) for k, lo in enumerate(range(0, games, per_chunk))]


def game_stride(games: int, points: int) -> int:
    """The game-id stride of a new results folder (ids of point p are ``p *
    stride + n``). One point: its games (its ids are its game numbers, so it
    can grow to any size; a folder records the stride of its latest run).
    Several: the smallest power of ten at least ten times the games, so that
    a sweep can grow at least tenfold; smaller powers of ten (at least the
    games) when the ids would exceed uint32."""
    if points <= 1:
        return games
    stride = 10
    while stride < 10 * games:
        stride *= 10
    while stride > games and points * stride > MAX_GAME_IDS:
        stride //= 10
    return max(stride, games)


def game_arrays(seed: int, block_size: int, lo: int, hi: int):
    """For game numbers ``lo..hi-1``: (blocks, seating indices, seeds)."""
    n = np.arange(lo, hi, dtype=np.int64)
    blocks = n // block_size
    return blocks, (n % block_size).astype(np.int64), block_seeds(seed, blocks)


def locate(game_id: int, stride: int, block_size: int, seed: int) -> dict:
    """Game id -> its sweep point, number, block, seating and engine seed."""
    point, n = divmod(int(game_id), stride)
    block, seating = divmod(n, block_size)
    return {"point": point, "number": n, "block": block, "seating": seating, "seed": block_seed(seed, block)}
