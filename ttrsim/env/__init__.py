"""Environments for game-AI research (``docs/env.md``): the observation and
action tensors (:mod:`ttrsim.env.encoding`), the vectorised batch env
(:class:`VectorEnv`), the PettingZoo AEC env (:func:`aec_env`, and by
preset :mod:`ttrsim.env.pettingzoo`), the Gymnasium single-agent env
(:func:`gym_env`) and its compiled batch, a ``gymnasium.vector.VectorEnv``
(:func:`gym_vector_env`), and :class:`PolicyStrategy`, which seats a trained
policy in a game or an experiment.

PettingZoo and Gymnasium are optional (``pip install 'ttrsim[env]'``); the
tensors, the batch env and the policy seat need neither. With Gymnasium
installed, importing this package registers one id per preset and player
count (``ttrsim/USA-4p-v1``, ...: :mod:`ttrsim.env.registration`).

>>> env = VectorEnv("usa", players=2, n_envs=4)
>>> obs, mask = env.reset([0, 1, 2, 3])
>>> obs.shape[1] == env.layout.obs_size and bool((mask.sum(axis=1) > 0).all())
True
"""
from .encoding import OBS_VERSION, Layout
from .policy import PolicyStrategy
from .vector import VectorEnv, random_actions

__all__ = ["OBS_VERSION", "Layout", "PolicyStrategy", "VectorEnv", "aec_env", "gym_env", "gym_vector_env",
           "random_actions"]


def _optional(module: str, what: str):
    import importlib

    try:
        return importlib.import_module(f"ttrsim.env.{module}")
    except ImportError as e:
        raise ImportError(f"{what} needs the optional packages pettingzoo and gymnasium ({e}); "
                          "install them with: pip install 'ttrsim[env]'") from None


def aec_env(rules="usa", players: int = 4, reward: str = "win", render_mode: str | None = None,
            overrides: dict | None = None):
    """The PettingZoo AEC env of ``rules`` for ``players`` seats (:mod:`ttrsim.env.aec`)."""
    return _optional("aec", "ttrsim.env.aec_env").TicketToRideAEC(rules, players, reward, render_mode, overrides)


def gym_env(rules="usa", players: int = 4, seat: int = 0, opponents="random", reward: str = "win",
            illegal_reward: float = -1.0, render_mode: str | None = None, overrides: dict | None = None):
    """The Gymnasium env with the learner in ``seat`` and built-in ``opponents`` (:mod:`ttrsim.env.single`)."""
    return _optional("single", "ttrsim.env.gym_env").TicketToRideEnv(rules, players, seat, opponents, reward,
                                                                     illegal_reward, render_mode, overrides)


def gym_vector_env(num_envs: int = 256, rules="usa", players: int = 4, seat: int = 0, opponents="random",
                   reward: str = "win", illegal_reward: float = -1.0, overrides: dict | None = None,
                   copy: bool = True):
    """``num_envs`` Gymnasium envs stepped by one compiled call, a
    ``gymnasium.vector.VectorEnv`` with same-step autoreset (:mod:`ttrsim.env.gym_vector`)."""
    return _optional("gym_vector", "ttrsim.env.gym_vector_env").TicketToRideVectorEnv(
        num_envs, rules, players, seat, opponents, reward, illegal_reward, None, overrides, copy)


def _register() -> None:
    try:
        import gymnasium  # noqa: F401
    except ImportError:                 # the ids need Gymnasium; the rest of the package does not
        return
    from .registration import register_envs

    register_envs()


_register()
