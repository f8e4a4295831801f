"""The bundled YAML files, installed as ``hilo_env.configs``: rule presets in ``rules/`` and
training runs in ``train/`` (``hilo train smoke`` finds ``train/smoke.yaml`` by name)."""
