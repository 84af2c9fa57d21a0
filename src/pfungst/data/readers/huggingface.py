"""Hugging Face ``datasets``: a saved dataset directory, a folder of local data files, or a hub name (online).

Rows go through the same :class:`~pfungst.data.mapping.ColumnMapping` as the generic table readers, so
``question=``, ``options=``, ``answer=`` and the rest work here too; ``split`` and ``config`` pick the part of the
dataset. Line numbers in messages are record numbers (1-based row index within the split). Needs the optional
extra: ``pip install 'pfungst[datasets]'``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pfungst.data.benchmark import Benchmark
from pfungst.data.builder import ReadOptions
from pfungst.data.mapping import MAPPING_KEYS, ColumnMapping
from pfungst.data.readers.table import read_mapped
from pfungst.data.records import Record
from pfungst.errors import ConfigError, DataError, MissingDependency

__all__ = ["HuggingFaceReader"]

_SAVED_MARKERS = ("dataset_info.json", "dataset_dict.json", "state.json")
_PREFERRED_SPLITS = ("test", "validation", "dev", "train")


def _datasets() -> Any:
    try:
        return importlib.import_module("datasets")
    except ImportError as error:
        raise MissingDependency("The 'huggingface' reader needs: pip install 'pfungst[datasets]'") from error


class HuggingFaceReader:
    """Datasets saved with ``save_to_disk``, local data-file folders, or hub names, with a column mapping."""

    name = "huggingface"
    description = "Hugging Face datasets: save_to_disk folder, local data files, or a hub name (split=, config=)"

    def sniff(self, path: Path) -> bool:
        return path.is_dir() and any((path / marker).is_file() for marker in _SAVED_MARKERS)

    def read(self, path: Path, options: ReadOptions) -> Benchmark:
        options.check_keys(self.name, [*MAPPING_KEYS, "split", "config"])
        split, config = options.setting("split", ""), options.setting("config", "")
        mapping_only = ReadOptions(
            on_error=options.on_error,
            strict=options.strict,
            name=options.name,
            mapping={k: v for k, v in options.mapping.items() if k not in ("split", "config")},
        )
        ColumnMapping.from_settings(mapping_only.mapping)  # refused before the dataset is opened
        dataset = _select_split(_open(path, config), split, path)
        default_name = path.name if path.exists() else str(path).replace("/", "__")
        return read_mapped(path, _records(dataset), mapping_only, self.name, default_name)


def _open(path: Path, config: str) -> Any:
    datasets = _datasets()
    if path.is_dir() and any((path / marker).is_file() for marker in _SAVED_MARKERS):
        return datasets.load_from_disk(str(path))
    try:
        # A local folder of data files, or a hub name (needs the network).
        return datasets.load_dataset(str(path), config or None)
    except FileNotFoundError as error:
        raise DataError(f"{path}: not a local dataset folder, and the hub could not provide it ({error})") from error
    except ConnectionError as error:
        raise DataError(
            f"{path}: the Hugging Face hub cannot be reached ({error}). Save the dataset locally "
            "with save_to_disk and pass its folder"
        ) from error
    except EOFError as error:  # a truncated .gz/.bz2/.xz data file: the stream ends before its end marker
        raise DataError(
            f"{path}: a data file of the dataset ends early ({error}): it is truncated or was not fully downloaded. "
            "Download or save the dataset again"
        ) from None


def _select_split(dataset: Any, split: str, path: Path) -> Any:
    if not hasattr(dataset, "keys"):  # a single Dataset, saved without splits
        if split:
            raise ConfigError(f"{path}: the dataset has no splits, so split={split!r} cannot be applied")
        return dataset
    splits = list(dataset.keys())
    if split:
        if split not in splits:
            raise ConfigError(f"{path}: no split {split!r}. Available: {', '.join(splits)}")
        return dataset[split]
    chosen = next((s for s in _PREFERRED_SPLITS if s in splits), None)
    if chosen is None and len(splits) == 1:
        chosen = splits[0]
    if chosen is None:
        raise ConfigError(f"{path}: several splits ({', '.join(splits)}); choose one with split=NAME")
    return dataset[chosen]


def _records(dataset: Any) -> Iterator[Record]:
    for number, row in enumerate(dataset, start=1):
        yield Record(number, dict(row))
