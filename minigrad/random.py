"""Seeded random numbers: ``mg.manual_seed`` and ``mg.Generator``.

Random numbers are always drawn on the host by NumPy's PCG64 generator and then
copied to the tensor's device, so a seed gives the same numbers on CPU and GPU.
"""

from __future__ import annotations

from typing import Any, cast

import numpy

from minigrad.backend import Device

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "generator_argument"]


class Generator:
    """A source of random numbers with its own seed, as ``torch.Generator``.

    ``Generator().manual_seed(0)`` returns the generator itself, so it can be passed
    straight to ``DataLoader(..., generator=...)`` or ``mg.randn(..., generator=...)``.
    """

    def __init__(self, device: Any = "cpu"):
        self.device = Device(device)  # where the numbers go; they are drawn on the host either way
        self._seed = 67280421310721  # PyTorch's default seed, for familiarity
        self.rng = numpy.random.Generator(numpy.random.PCG64(self._seed))

    def manual_seed(self, seed: int) -> Generator:
        """Reset the generator to a known state; returns ``self``."""
        if not isinstance(seed, (int, numpy.integer)) or isinstance(seed, bool):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not -2**63 <= seed < 2**64:
            raise ValueError(f"Overflow when unpacking long long: the seed {seed} is outside [-2**63, 2**64)")
        seed = int(seed) % 2**64  # a negative seed wraps around as PyTorch's (a uint64)
        self._seed = seed
        self.rng = numpy.random.Generator(numpy.random.PCG64(seed))
        return self

    def seed(self) -> int:
        """Seed from the operating system's entropy; returns the new seed."""
        entropy = cast(int, numpy.random.SeedSequence().entropy)  # an int when drawn from the OS
        new_seed = entropy % (2**63)
        self.manual_seed(new_seed)
        return new_seed

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> dict:
        """The generator's full state, as a plain dict (storable with ``mg.save``)."""
        return {"seed": self._seed, "bit_generator": self.rng.bit_generator.state}

    def set_state(self, state: dict) -> Generator:
        self._seed = int(state["seed"])
        self.rng.bit_generator.state = state["bit_generator"]
        return self


default_generator = Generator()


def generator_argument(generator: Any, function: str) -> Generator:
    """``generator=``: a Generator, or the default one when None; anything else is PyTorch's TypeError."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"{function}(): argument 'generator' must be torch.Generator, not "
                        f"{type(generator).__name__}")
    return generator


def manual_seed(seed: int) -> Generator:
    """Seed the global generator, as ``torch.manual_seed``; returns it."""
    return default_generator.manual_seed(int(seed))  # as PyTorch: anything int() accepts


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> dict:
    return default_generator.get_state()


def set_rng_state(state: dict) -> None:
    default_generator.set_state(state)
