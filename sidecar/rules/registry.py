"""Importing this module registers every engine's handlers, GM actions, effects and content."""

from sidecar.rules import core_actions, effects, scene  # noqa: F401
