"""What the item validity screen found: per dataset, every item ranked by how likely its key is wrong.

Schema changes that alter a field's meaning bump ``SCHEMA_VERSIONS["validity"]``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pandas as pd

from pfungst.blocks import Section
from pfungst.provenance import Provenance
from pfungst.reliance.validity.sections import validity_overview, validity_sections
from pfungst.results import Overview
from pfungst.schema import SCHEMA_VERSIONS, Fields, read_dataclass
from pfungst.serialization import to_jsonable, write_json
from pfungst.stats import Estimate

if TYPE_CHECKING:
    from pfungst.audit.item_flags import FlagColumn

__all__ = ["DatasetValidity", "ItemValidity", "ValidityResult"]

SCHEMA_VERSION = SCHEMA_VERSIONS["validity"]


@dataclass(frozen=True)
class ItemValidity:
    """One item: its key, the answer the models agree on instead, and the evidence that its key is wrong."""

    rank: int
    """1 for the item whose key is most likely wrong: suspected items first, then by :attr:`strength_log_odds`
    (highest first), then by wrong-key p-value (ties: more models agreeing, then lower item-rest correlation)."""
    item_id: str
    text: str
    """The item's text as the outcomes give it (``""`` where none did)."""
    key: str
    """The keyed (gold) label."""
    agreed_answer: str
    """The non-gold label the models agree on most beyond their habits; ``""`` where no model chose one."""
    n_models: int
    """Models with an answer record for the item."""
    n_correct: int
    """Of those, how many chose the key."""
    n_agreed: int
    """Of those, how many chose ``agreed_answer``."""
    wrong_key: Estimate
    """``value``: the share of models choosing ``agreed_answer``; ``baseline``: the share expected if the key were
    right (from each model's choice rates elsewhere); ``pvalue``: the Poisson-binomial upper tail, Bonferroni over
    the non-gold answers tested."""
    qvalue: float
    """Benjamini-Hochberg q-value of ``wrong_key.pvalue`` across the dataset's items."""
    suspected: bool
    """A majority of the models agree on ``agreed_answer``, ``qvalue <= alpha``, the item-rest correlation is not
    significantly positive (``item_rest_pvalue > alpha``), and :attr:`strength_log_odds` is above 0."""
    strength_log_odds: float
    """Log-odds that ``agreed_answer`` rather than the key is right when each model's vote is weighted by its
    accuracy on the other items (:mod:`pfungst.reliance.validity.strength`): high when the strongest models reject
    the key together (a wrong key), negative when they keep it and weaker ones do not (a hard item). 0 without an
    agreed answer."""
    difficulty: float
    """2PL IRT difficulty ``b`` (ability scale; higher is harder); NaN where not fitted."""
    discrimination: float
    """2PL IRT discrimination ``a``; a negative value (stronger models miss it more) is a classic sign of a
    wrong key. NaN where not fitted."""
    item_rest: float
    """Item-rest correlation: over models, correctness on this item against accuracy on the others; negative is
    the textbook mark of a wrong key. NaN where undefined."""
    item_rest_pvalue: float
    """One-sided p-value that the item-rest correlation is above 0 (stronger models do better on the key)."""
    label_quality: float
    """cleanlab label quality of the key in [0, 1] (low: the key looks wrong); NaN without probabilities."""
    label_issue: bool
    """cleanlab's ``find_label_issues`` flags the key."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "rank": self.rank,
            "item_id": self.item_id,
            "text": self.text,
            "key": self.key,
            "agreed_answer": self.agreed_answer,
            "n_models": self.n_models,
            "n_correct": self.n_correct,
            "n_agreed": self.n_agreed,
            "wrong_key": self.wrong_key.to_dict(),
            "qvalue": to_jsonable(self.qvalue),
            "suspected": self.suspected,
            "strength_log_odds": to_jsonable(self.strength_log_odds),
            "difficulty": to_jsonable(self.difficulty),
            "discrimination": to_jsonable(self.discrimination),
            "item_rest": to_jsonable(self.item_rest),
            "item_rest_pvalue": to_jsonable(self.item_rest_pvalue),
            "label_quality": to_jsonable(self.label_quality),
            "label_issue": self.label_issue,
        }


@dataclass(frozen=True)
class DatasetValidity:
    """The screen of one dataset answered by several models."""

    dataset: str
    models: tuple[str, ...]
    labels: tuple[str, ...]
    """Every label seen as a key or an answer."""
    n_items: int
    n_with_answers: int
    """Items with at least one model's chosen answer (the wrong-key test needs them)."""
    n_suspected: int
    """Items whose key is suspected wrong (:attr:`ItemValidity.suspected`)."""
    no_model_right: tuple[str, ...]
    """Ids of the items that every model with an outcome got wrong."""
    n_key_conflicts: int
    """Items whose key differs between the sources (the first was used)."""
    irt_note: str
    """How the 2PL model was fitted (library, method, models and items used), or why it was not."""
    label_issue_note: str
    """What cleanlab scored, or why nothing."""
    n_label_issues: int
    items: tuple[ItemValidity, ...]
    """Every item, ranked (:attr:`ItemValidity.rank`)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys."""
        return {
            "dataset": self.dataset,
            "models": list(self.models),
            "labels": list(self.labels),
            "n_items": self.n_items,
            "n_with_answers": self.n_with_answers,
            "n_suspected": self.n_suspected,
            "no_model_right": list(self.no_model_right),
            "n_key_conflicts": self.n_key_conflicts,
            "irt_note": self.irt_note,
            "label_issue_note": self.label_issue_note,
            "n_label_issues": self.n_label_issues,
            "items": [item.to_dict() for item in self.items],
        }


@dataclass(frozen=True, eq=False)
class ValidityResult:
    """Item validity screen of one or more datasets from several models' outcomes."""

    datasets: tuple[DatasetValidity, ...]
    """One screen per dataset, in the order first seen."""
    warnings: tuple[str, ...]
    """What limits the reading (few models, no chosen answers, IRT not fitted)."""
    provenance: Provenance
    """Every setting of the screen (no seed: it draws nothing at random), the software, and the outcome files read
    (``derived_from``, each with its hash)."""
    schema_version: str = SCHEMA_VERSION
    KIND: ClassVar[str] = "validity"
    """The kind of result (its ``schema_version`` is ``SCHEMA_VERSIONS[KIND]``)."""
    SCHEMA_VERSION: ClassVar[str] = SCHEMA_VERSION
    """The ``schema_version`` its JSON carries."""
    REPORT_PART: ClassVar[str] = "analysis"
    """Its chapter's place in a report (:data:`~pfungst.results.REPORT_PARTS`)."""

    def sections(self) -> tuple[Section, ...]:
        """Its chapter: one part per dataset screened, then the warnings (computes nothing)."""
        return validity_sections(self)

    def overview(self) -> Overview:
        """One board row per dataset and the headline: how many keys are suspected wrong."""
        return validity_overview(self)

    def summary_lines(self) -> tuple[str, ...]:
        """Its short answer, what ``pfungst validity`` prints by default: per dataset the count of suspected wrong
        keys, then each suspected item (the console cuts the list to one screen) with the answer the models agree on.
        """
        lines = [validity_overview(self).headline]
        for screen in self.datasets:
            lines.append(
                f"{screen.dataset or 'dataset'}: {screen.n_suspected} of {screen.n_items} keys suspected wrong by "
                f"{len(screen.models)} models (BH at {self.provenance.settings.get('alpha', 0.05)})."
            )
            lines += [
                f"#{item.rank} {item.item_id}: key {item.key!r}, {item.n_agreed} of {item.n_models} models answer "
                f"{item.agreed_answer!r} (q = {item.qvalue:.3g}): {item.text}"
                for item in screen.items
                if item.suspected
            ]
        return tuple(lines)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str = "<dict>") -> ValidityResult:
        """Read :meth:`to_dict` back, checking every value's type.

        Raises:
            ReaderError: a value of the wrong type, a missing key or another schema, naming ``source`` and the field.
        """
        fields = Fields(data, source)
        fields.check_schema(SCHEMA_VERSION)
        return cls(
            datasets=tuple(read_dataclass(DatasetValidity, entry) for entry in fields.records("datasets")),
            warnings=fields.typed("warnings", tuple[str, ...]) if fields.has("warnings") else (),
            provenance=Provenance.from_fields(fields.sub("provenance")),
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per (dataset, item), ranked within each dataset."""
        rows = []
        for screen in self.datasets:
            for item in screen.items:
                rows.append(
                    {
                        "dataset": screen.dataset,
                        **{k: v for k, v in item.to_dict().items() if k != "wrong_key"},
                        "agreed_share": item.wrong_key.value,
                        "expected_share": item.wrong_key.baseline,
                        "pvalue": item.wrong_key.pvalue,
                    }
                )
        return pd.DataFrame(rows)

    def suspected(self) -> tuple[ItemValidity, ...]:
        """The items whose key is suspected wrong, over all datasets, in rank order within each."""
        return tuple(item for screen in self.datasets for item in screen.items if item.suspected)

    def wrong_key_flags(self, item_ids: Sequence[str]) -> FlagColumn:
        """The suspected keys as the ``wrong-key`` flag on an audit's ``item_ids``
        (:func:`~pfungst.reliance.validity.flags.wrong_key_flags`).

        Raises:
            ConfigError: the screen names none of ``item_ids``.
        """
        from pfungst.reliance.validity.flags import wrong_key_flags

        return wrong_key_flags(self, item_ids)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict with stable keys (NaN becomes None)."""
        return {
            "schema_version": self.schema_version,
            "kind": self.KIND,
            "datasets": [screen.to_dict() for screen in self.datasets],
            "warnings": list(self.warnings),
            "provenance": self.provenance.to_dict(),
        }

    def save_json(self, path: str | Path) -> Path:
        """Write :meth:`to_dict` as JSON to ``path`` (atomically, folders created) and return it."""
        return write_json(path, self.to_dict())

    def __repr__(self) -> str:
        parts = ", ".join(f"{s.dataset}: {s.n_suspected} of {s.n_items} suspected" for s in self.datasets)
        return f"ValidityResult({parts})"
