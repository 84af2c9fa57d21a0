"""Collection settings for the whole checkout.

The doctests of a module that needs an optional extra are collected only where the extra is installed (its tests
under ``tests/`` skip with a reason instead); ``make test`` and CI install every extra, so there they all run.
"""

from __future__ import annotations

import importlib.util

collect_ignore = [] if importlib.util.find_spec("inspect_ai") else ["src/pfungst/integrations/inspect_ai.py"]
# Plugin fixtures are installed and loaded by the tests that need them; some exit the process at import on purpose.
collect_ignore_glob = ["tests/fixtures/*"]
