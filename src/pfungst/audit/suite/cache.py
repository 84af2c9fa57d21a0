"""Resume a suite: each benchmark's entry is kept beside its audit, keyed by (data SHA-256, settings, version).

The key holds everything that changes an audit's answer: the bytes of the data file, every audit setting (seed,
folds, resamples, feature sets, threshold, ...), the reader options and the pfungst version; and nothing that does
not (``n_jobs``, ``cluster``, ``parallel``, progress). A rerun after an interruption finds every finished
benchmark's entry under its key and audits only what is missing; a changed file (or setting) has another key and is
audited again. Entries are written atomically after the audit JSON they point at, so a run killed mid-write leaves
no entry without its audit.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pfungst.audit.suite.entry import SkippedSource, SuiteEntry, read_entry
from pfungst.errors import PfungstError
from pfungst.schema import Fields
from pfungst.serialization import to_jsonable, write_json

__all__ = ["ENTRY_SCHEMA", "SuiteCache", "cache_key"]

ENTRY_SCHEMA = "pfungst.suite-entry/2"
"""The ``schema_version`` of a cached entry file; another value is a cache miss."""

_NOT_IN_KEY = ("n_jobs", "cluster", "parallel")
"""Settings that change how fast an audit runs, not what it finds."""


def cache_key(data_sha256: str, settings: Mapping[str, Any], version: str) -> str:
    """SHA-256 over the data hash, the settings that change the answer (sorted) and the pfungst version.

    Example:
        >>> data = "ab" * 32
        >>> a = cache_key(data, {"seed": 0, "n_jobs": 1}, "0.1.0")
        >>> a == cache_key(data, {"seed": 0, "n_jobs": 4}, "0.1.0"), a == cache_key(data, {"seed": 1}, "0.1.0")
        (True, False)
    """
    kept = {k: v for k, v in settings.items() if k not in _NOT_IN_KEY}
    text = json.dumps({"data": data_sha256, "settings": to_jsonable(kept), "pfungst": version}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


class SuiteCache:
    """Entry files ``<slug>.entry.json`` next to audit files ``<slug>.audit.json`` in one folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def audit_path(self, slug: str) -> Path:
        return self.folder / f"{slug}.audit.json"

    def entry_path(self, slug: str) -> Path:
        return self.folder / f"{slug}.entry.json"

    def lookup(self, slug: str, key: str) -> SuiteEntry | SkippedSource | None:
        """The cached entry for ``slug`` when it was made under ``key`` (and its audit file is there); else None.

        An unreadable or foreign entry file is a miss, not an error: the benchmark is simply audited again.
        """
        path = self.entry_path(slug)
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            fields = Fields(data, str(path))
            if fields.string("schema_version") != ENTRY_SCHEMA or fields.string("key") != key:
                return None
            entry = read_entry(fields.sub("entry"))
        except (PfungstError, ValueError):
            return None
        if isinstance(entry, SuiteEntry) and not (self.folder.parent / entry.audit_json).is_file():
            return None
        return entry

    def store(self, slug: str, entry: SuiteEntry | SkippedSource) -> Path:
        """Write ``entry`` under its key (atomically); returns the path."""
        return write_json(
            self.entry_path(slug), {"schema_version": ENTRY_SCHEMA, "key": entry.key, "entry": entry.to_dict()}
        )
