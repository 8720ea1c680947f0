"""Rules engines (pure). Import ``sidecar.rules.registry`` to register all of them."""
