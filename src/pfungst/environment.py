"""What a result needs to be reproduced: package versions, the git revision, the platform, the time.

Every result object records :func:`environment` in its ``to_dict()`` so that a JSON report says what made it.
"""

from __future__ import annotations

import platform
import subprocess
from datetime import datetime, timezone
from functools import cache, lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["environment", "installed_version"]

_PACKAGES = (
    "pfungst",
    "numpy",
    "scipy",
    "pandas",
    "scikit-learn",
    "tiktoken",
    "textstat",
    "llama-cpp-python",
    "transformers",
    "torch",
    "httpx",
    "girth",
    "cleanlab",
)


@cache
def installed_version(package: str) -> str | None:
    """The installed version of ``package`` (None: not installed), looked up once per process: each lookup scans
    every folder of ``sys.path``.

    Example:
        >>> installed_version("pfungst") is not None, installed_version("no-such-package-here")
        (True, None)
    """
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


@lru_cache(maxsize=1)
def _git_revision() -> str:
    here = Path(__file__).resolve().parent
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return result.stdout.strip() if result.returncode == 0 else ""


def environment() -> dict[str, Any]:
    """Versions of pfungst and the packages it computes with (installed ones only), git revision, platform, time.

    Example:
        >>> info = environment()
        >>> sorted(info)
        ['created', 'git_revision', 'packages', 'platform', 'python']
    """
    packages = {name: version for name in _PACKAGES if (version := installed_version(name)) is not None}
    return {
        "packages": packages,
        "git_revision": _git_revision(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
