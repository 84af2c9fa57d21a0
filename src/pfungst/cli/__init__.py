"""The ``pfungst`` command line: parse options, call the Python API, print. Nothing here is CLI-only logic.

One module per group of commands, all registered on one typer app (:mod:`pfungst.cli.common`). Exit codes: 0 ok;
2 user error (one message, no traceback); 130 interrupted; 1 with a traceback for bugs.
"""

from pfungst.cli import audit_commands, data_commands, model_commands, report_commands  # noqa: F401  (registers)
from pfungst.cli.common import app

__all__ = ["app", "main"]


def main() -> None:
    """Console-script entry point."""
    app()
