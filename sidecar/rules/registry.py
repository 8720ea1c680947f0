"""Importing this module registers every engine's handlers, GM actions, effects and content."""

from sidecar.rules import core_actions, effects, scene  # noqa: F401
from sidecar.rules import afflictions  # noqa: F401
from sidecar.rules import objects, traps, traps_actions, traps_sphere  # noqa: F401
from sidecar.rules import chase  # noqa: F401
