"""What a result needs to be reproduced: package versions, the git revision, the platform, the time.

Every result records :func:`environment` in its :class:`~pfungst.provenance.Provenance`, so that a result file says
what made it.
"""

from __future__ import annotations

import platform
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache, lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["Environment", "environment", "installed_version"]

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


@dataclass(frozen=True)
class Environment:
    """The software and machine that computed a result."""

    packages: dict[str, str] = field(default_factory=dict)
    """Installed version of pfungst and of each package it computes with (those not installed are left out)."""
    git_revision: str = ""
    """The commit of pfungst's source tree, when it runs from a git checkout; empty otherwise."""
    python: str = ""
    """Python's version (``3.12.4``)."""
    platform: str = ""
    """The operating system and machine (:func:`platform.platform`)."""
    created: str = ""
    """When the result was made: UTC, ISO 8601 to the second."""

    @property
    def pfungst(self) -> str:
        """The version of pfungst that made the result (``?`` where it is not recorded)."""
        return self.packages.get("pfungst", "?")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "packages": dict(self.packages),
            "git_revision": self.git_revision,
            "python": self.python,
            "platform": self.platform,
            "created": self.created,
        }


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


def environment() -> Environment:
    """This process's environment: versions of pfungst and the packages it computes with (installed ones only), git
    revision, platform, and the time now.

    Example:
        >>> sorted(environment().to_dict())
        ['created', 'git_revision', 'packages', 'platform', 'python']
    """
    packages = {name: version for name in _PACKAGES if (version := installed_version(name)) is not None}
    return Environment(
        packages=packages,
        git_revision=_git_revision(),
        python=platform.python_version(),
        platform=platform.platform(),
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )
