"""VTT Rules Sidecar: rules automation for Foundry VTT worlds running D&D 5e."""

__version__ = "0.1.0"
