"""``audit_suite``: audit many benchmarks in one run, one JSON each plus a ranked suite JSON, resumable.

For each source (:func:`~pfungst.audit.suite.sources.survey`, which also lists every other path seen and why it is
no benchmark): hash the file, look its entry up in the cache
(:class:`~pfungst.audit.suite.cache.SuiteCache`), otherwise load it, audit it with the suite's settings, split its
verdict into content and position (the result's ``position_content``), and write its audit JSON and
its entry. A source that cannot be read or audited (a generative BIG-bench task, too few items for the folds) is
kept as skipped with the error's message. Bugs are not swallowed: they stop the run, and a rerun resumes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from pfungst.audit.cluster import cluster_backend
from pfungst.audit.feature_sets import get_feature_set, position_blind_sets
from pfungst.audit.position_content import split
from pfungst.audit.run import AuditConfig, audit
from pfungst.audit.suite.cache import SuiteCache, cache_key
from pfungst.audit.suite.entry import SkippedSource, SuiteEntry
from pfungst.audit.suite.result import SuiteResult
from pfungst.audit.suite.sources import Discovery, Source, file_sha256, survey
from pfungst.audit.suite_config import SuiteConfig
from pfungst.data.benchmark import Benchmark
from pfungst.data.label_sets import detect_label_set
from pfungst.data.loading import load
from pfungst.environment import installed_version
from pfungst.errors import ConfigError, PfungstError
from pfungst.path_checks import check_outputs
from pfungst.provenance import Provenance, ResultReference
from pfungst.schema import SCHEMA_VERSIONS

__all__ = ["SuiteConfig", "audit_suite", "check_suite_outputs"]

Progress = Callable[[str, int, int], None]
"""Called as ``progress(benchmark, done, total)`` before each benchmark and once at the end."""

AUDIT_SCHEMA = SCHEMA_VERSIONS["audit"]
"""The schema of each entry's audit file."""

SUITE_JSON = "suite.json"
"""The suite result's file name in the output folder."""


def audit_suite(
    paths: Sequence[str | Path],
    out_dir: str | Path,
    config: SuiteConfig | None = None,
    *,
    progress: Progress | None = None,
) -> SuiteResult:
    """Audit every benchmark ``paths`` stand for; write one audit JSON each and ``suite.json`` under ``out_dir``.

    Args:
        paths: Benchmark files and folders (a BIG-bench checkout: every ``task.json``; any other folder: every file).
        out_dir: Output folder: ``suite.json`` and ``benchmarks/<name>.audit.json`` / ``.entry.json``. A rerun
            into the same folder reuses every entry whose data, settings and pfungst version are unchanged.
        config: Settings; default :class:`SuiteConfig`.
        progress: Optional callback ``progress(benchmark, done, total)``.

    Raises:
        ConfigError: an invalid setting, or a file the suite would write is one of its inputs (or cannot be written).
        DataError: a path does not exist or a folder holds no file.

    Example:
        >>> import tempfile
        >>> from pfungst.data.synthetic import make_synthetic
        >>> from pfungst.serialization import write_jsonl
        >>> folder = Path(tempfile.mkdtemp())
        >>> _ = write_jsonl(folder / "data" / "position.jsonl", [
        ...     {"question": i.text, "choices": list(i.options), "answer": i.gold}
        ...     for i in make_synthetic("gold-position", 120)])
        >>> quick = AuditConfig(n_bootstrap=50, n_permutations=20, n_repeats=1, cues=False)
        >>> result = audit_suite([folder / "data"], folder / "out", SuiteConfig(audit=quick))
        >>> [(e.name, e.position_flagged, e.content.label) for e in result.entries]
        [('position.jsonl', True, 'no evidence')]
    """
    config = config or SuiteConfig()
    config.validate()
    started = time.perf_counter()
    found = check_suite_outputs(paths, out_dir)
    sources = found.sources
    out = Path(out_dir)
    cache = SuiteCache(out / "benchmarks")
    report = progress or (lambda step, done, total: None)
    version = installed_version("pfungst") or "unknown"

    entries: list[SuiteEntry] = []
    skipped: list[SkippedSource] = []
    reused = 0
    # One cluster for the whole suite (not one per benchmark): every audit's fold jobs go to it.
    with cluster_backend(config.audit.cluster, config.audit.n_jobs):
        each = replace(config, audit=replace(config.audit, cluster=""))
        for done, source in enumerate(sources):
            report(source.name, done, len(sources))
            try:
                sha256 = file_sha256(source.path)
            except OSError as error:  # unreadable (permissions, removed meanwhile): skipped, saying why
                skipped.append(SkippedSource(source.name, str(source.path), "", "", f"{source.path}: {error}"))
                continue
            key = cache_key(sha256, config.key_settings(), version)
            entry = cache.lookup(source.slug, key)
            reused += entry is not None
            if entry is None:
                entry = _audit_one(source, key, each, cache)
                cache.store(source.slug, entry)
            (entries if isinstance(entry, SuiteEntry) else skipped).append(entry)  # type: ignore[arg-type]
    report("ranking", len(sources), len(sources))
    settings = {**config.key_settings(), "alpha": config.alpha, "paths": [str(p) for p in paths]}
    audits = tuple(ResultReference.of_file(out / e.audit_json, "audit", AUDIT_SCHEMA) for e in entries)
    result = SuiteResult.build(
        entries,
        skipped,
        Provenance.current(settings, config.audit.seed, derived_from=audits),
        n_reused=reused,
        seconds=time.perf_counter() - started,
        ignored=found.ignored,
    )
    result.save_json(out / SUITE_JSON)
    return result


def check_suite_outputs(
    paths: Sequence[str | Path],
    out_dir: str | Path,
    outputs: Mapping[str, str | Path | None] | None = None,
    out_name: str = "out_dir",
) -> Discovery:
    """What the suite's paths hold (:func:`~pfungst.audit.suite.sources.survey`), once every file it would write
    (``suite.json``, each benchmark's audit and entry under ``out_dir``, and ``outputs``) is known to be none of
    the benchmark files it reads. Files inside ``out_dir`` are never read as benchmarks, so ``--out`` may lie inside
    a data folder.

    Args:
        paths: The suite's files and folders.
        out_dir: Its output folder.
        outputs: Other output files by option name (``--json``, ``--card``).
        out_name: How messages name the output folder (``--out`` on the command line).

    Raises:
        ConfigError: an output is an input, two outputs clash, or one cannot be written (names the option and path).
        DataError: a path does not exist or a folder holds no file.
    """
    found = survey(paths, output_folder=out_dir)
    out = Path(out_dir)
    cache = SuiteCache(out / "benchmarks")
    sources = found.sources
    files = [out / SUITE_JSON] + [p for s in sources for p in (cache.audit_path(s.slug), cache.entry_path(s.slug))]
    written = {f"{out_name} ({path.relative_to(out).as_posix()})": path for path in files}
    check_outputs(
        [*paths, *(s.path for s in sources)], {**(outputs or {}), **written}, folders={out_name: out}, own=[out]
    )
    return found


def _audit_one(source: Source, key: str, config: SuiteConfig, cache: SuiteCache) -> SuiteEntry | SkippedSource:
    """Load and audit one source; a user-level error (unreadable data, unmeetable setting) makes it skipped."""
    sha256 = file_sha256(source.path)
    started = time.perf_counter()
    try:
        benchmark = load(source.path, config.reader or source.reader, on_error=config.on_error, name=source.name)
        result = audit(benchmark, replace(config.audit, feature_sets=_feature_sets_for(benchmark, config.audit)))
        parts = split(result)
    except PfungstError as error:
        return SkippedSource(source.name, str(source.path), sha256, key, str(error))
    audit_json = cache.audit_path(source.slug)
    result.save_json(audit_json)
    return SuiteEntry.from_result(
        result,
        parts.content,
        parts.position,
        name=source.name,
        source=str(source.path),
        sha256=sha256,
        key=key,
        audit_json=audit_json.relative_to(cache.folder.parent).as_posix(),
        seconds=time.perf_counter() - started,
        top_k=config.top_cues,
    )


def _feature_sets_for(benchmark: Benchmark, config: AuditConfig) -> tuple[str, ...]:
    """The named feature sets that apply to ``benchmark`` (empty: the defaults for its kind).

    One list serves a whole suite of mixed kinds, so option-level sets are left out for shared-label benchmarks
    (those the audit reads as shared labels included: a fixed label set written as per-item options), and a
    per-item benchmark gets the first built-in set blind to positions (``options_no_position``) added when no
    named set declares itself blind to positions (its content verdict needs one).
    """
    names = config.feature_sets
    if not names:
        return ()
    if not detect_label_set(benchmark, config.detect_label_set).benchmark.option_kind.has_positions:
        kept = tuple(name for name in names if get_feature_set(name).level == "item")
        if not kept:
            raise ConfigError(
                f"none of the feature sets {', '.join(names)} applies to '{benchmark.name}', which has a shared "
                "label set: add an item-level one (e.g. --feature-set 1-grams_presence)"
            )
        return kept
    if not any(get_feature_set(name).position_blind for name in names):
        return (*names, position_blind_sets()[0])
    return names
