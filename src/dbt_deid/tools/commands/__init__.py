"""CLI sub-commands: every module here defines ``register(subparsers)``."""
