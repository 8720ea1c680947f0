"""Importing this module registers every engine's handlers, GM actions, effects and content."""

from sidecar.rules import (  # noqa: F401
    afflictions,
    chase,
    core_actions,
    effects,
    objects,
    scene,
    traps,
    traps_actions,
    traps_sphere,
)
