"""Named feature sets: the paper's 13 text feature sets, and the option-level set for per-item choices.

A :class:`FeatureSet` makes a fresh, unfitted scikit-learn transformer; the probe fits it on training folds only.
Text feature sets transform a sequence of strings (one per item); the option-level set transforms an
:class:`~pfungst.audit.features.options.OptionTable` (one row per item and option).

Names: ``{1,2}-grams_{tf,tfidf,presence}[_gpt2]`` and ``readability``. "2-grams" means 1- and 2-grams together,
as in Pacchiardi et al. 2024; ``paper_name`` gives their name for each set (``simple_frequency`` is their TF).

Each feature set declares what it sees (``sees_question``, ``sees_options``, ``sees_position``), its ``level`` and
the benchmark kinds it is a default for (``default_for``); the audit reads these declarations (which input an
option-level set gets, which probes are blind to positions, what input a verdict's evidence needed), never a name.

An installed package adds a feature set with an entry point in the group ``pfungst.feature_sets`` naming either a
:class:`FeatureSet` (any level, with parameters, a description and its declarations) or a scikit-learn transformer
class, which is taken as an item-level text feature set that sees the question only, built with no arguments and
described by its docstring's first line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from sklearn.base import TransformerMixin

from pfungst.data.option_kind import OptionKind
from pfungst.errors import ConfigError
from pfungst.registry import Registry, resolve_target

__all__ = [
    "FEATURE_SETS",
    "PAPER_FEATURE_SETS",
    "EvidenceInput",
    "FeatureSet",
    "builtin_defaults",
    "get_feature_set",
    "position_blind_sets",
]

Level = Literal["item", "option"]
EvidenceInput = Literal["options", "partial", "full", "position"]
"""What input a finding needed: ``options`` alone (no question), ``partial`` input (named fields), the ``full``
input, or the ``position`` of the gold option in the file."""


@dataclass(frozen=True)
class FeatureSet:
    """A named recipe for a scikit-learn transformer of surface features."""

    name: str
    """Registry name, e.g. ``1-grams_tf_gpt2``."""
    paper_name: str
    """Pacchiardi et al.'s name for the same set (empty if theirs has none)."""
    level: Level
    """``item``: one row per item (a string each); ``option``: one row per (item, option)."""
    factory: str
    """``module:Class`` of the transformer."""
    params: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments for the transformer."""
    description: str = ""
    sees_question: bool = True
    """It reads the item's text (the question, or the named fields of a partial-input audit)."""
    sees_options: bool = False
    """It reads the text of each option (per-item choices)."""
    sees_position: bool = False
    """It reads where each option sits in the file (a position column). An item-level set on per-item choices
    predicts the gold *position*, so it learns the usual slot whatever it declares (see :attr:`position_blind`)."""
    default_for: tuple[OptionKind, ...] = ()
    """The benchmark kinds whose default audit probes it (``shared_labels``, ``per_item``)."""

    @property
    def position_blind(self) -> bool:
        """True when a probe over it cannot prefer a slot on per-item choices: option level, no position column."""
        return self.level == "option" and not self.sees_position

    @property
    def sees(self) -> str:
        """Its level and what it sees, in words: ``option level; sees question, options, position``."""
        seen = [part for part, on in zip(("question", "options", "position"), self._sight(), strict=True) if on]
        return f"{self.level} level; sees {', '.join(seen) or 'nothing of the item'}"

    def _sight(self) -> tuple[bool, bool, bool]:
        return self.sees_question, self.sees_options, self.sees_position

    def evidence_input(self, fields: tuple[str, ...] = (), per_item: bool = False) -> EvidenceInput:
        """The input a finding of this set needed: ``partial`` when the item text is built from named ``fields``.

        Example:
            >>> get_feature_set("options_1-grams_presence").evidence_input()
            'options'
            >>> get_feature_set("1-grams_presence").evidence_input(("hypothesis",))
            'partial'
        """
        if self.sees_question:
            return "partial" if fields else "full"
        if self.sees_options:
            return "options"
        return "position" if per_item and not self.position_blind else "full"

    def make(self, **overrides: Any) -> TransformerMixin:
        """A fresh, unfitted transformer (``overrides`` such as ``paper_compatible=True``, ``min_df=2``)."""
        cls = resolve_target(self.factory)
        transformer: TransformerMixin = cls(**{**self.params, **overrides})
        return transformer

    def spec(self) -> dict[str, Any]:
        """``{"name", "params"}`` for provenance."""
        return {"name": self.name, "params": dict(self.params)}


_ITEM_DEFAULT: tuple[OptionKind, ...] = (OptionKind.SHARED_LABELS, OptionKind.PER_ITEM)


def _ngram_sets() -> dict[str, FeatureSet]:
    sets = {}
    paper_weighting = {"tf": "simple_frequency", "tfidf": "tfidf", "presence": "presence"}
    for n in (1, 2):
        for weighting in ("tf", "tfidf", "presence"):
            for level in ("word", "gpt2"):
                suffix = "_gpt2" if level == "gpt2" else ""
                name = f"{n}-grams_{weighting}{suffix}"
                grams = "1-grams" if n == 1 else "1- and 2-grams"
                sets[name] = FeatureSet(
                    name=name,
                    paper_name=f"{n}-grams_{paper_weighting[weighting]}{suffix}",
                    level="item",
                    factory="pfungst.audit.features.ngrams:NgramFeatures",
                    params={"level": level, "ngram_range": (1, n), "weighting": weighting},
                    description=f"{grams} of {'GPT-2 tokens' if level == 'gpt2' else 'words'}, {weighting}",
                    default_for=_ITEM_DEFAULT if name == "1-grams_presence" else (OptionKind.SHARED_LABELS,),
                )
    return sets


_BUILTIN: dict[str, FeatureSet] = {
    **_ngram_sets(),
    "readability": FeatureSet(
        name="readability",
        paper_name="readability_diversity_metrics",
        level="item",
        factory="pfungst.audit.features.readability:ReadabilityFeatures",
        description="Flesch reading ease, Gunning fog, SMOG, Yule's K, FORCAST, type-token ratio, "
        "mean sentence length, word count",
        default_for=(OptionKind.SHARED_LABELS,),
    ),
    "options": FeatureSet(
        name="options",
        paper_name="",
        level="option",
        factory="pfungst.audit.features.options:OptionFeatures",
        description="option length (characters, words, GPT-2 tokens), length rank, longest / shortest, position, "
        "overlap with the question, negation words, 'all / none of the above'",
        sees_options=True,
        sees_position=True,
        default_for=(OptionKind.PER_ITEM,),
    ),
    "options_no_position": FeatureSet(
        name="options_no_position",
        paper_name="",
        level="option",
        factory="pfungst.audit.features.options:OptionFeatures",
        params={"positions": False},
        description="the options set without the position columns: a content probe that cannot see where the "
        "gold option sits in the file",
        sees_question=False,
        sees_options=True,
        default_for=(OptionKind.PER_ITEM,),
    ),
    "options_1-grams_presence": FeatureSet(
        name="options_1-grams_presence",
        paper_name="",
        level="option",
        factory="pfungst.audit.features.options:OptionNgramFeatures",
        params={"ngram_range": (1, 1)},
        description="choices-only baseline: word 1-grams of each option's text, without the question",
        sees_question=False,
        sees_options=True,
        default_for=(OptionKind.PER_ITEM,),
    ),
}

FEATURE_SETS: Registry[FeatureSet | type[TransformerMixin]] = Registry(
    "feature set", _BUILTIN, group="pfungst.feature_sets"
)
"""Feature set name -> :class:`FeatureSet`; installed packages add theirs through ``pfungst.feature_sets``."""

PAPER_FEATURE_SETS: tuple[str, ...] = tuple(name for name, feature_set in _BUILTIN.items() if feature_set.paper_name)
"""The 13 feature sets of Pacchiardi et al. 2024, in registry order."""


def builtin_defaults(option_kind: OptionKind) -> tuple[str, ...]:
    """The built-in sets that declare ``option_kind`` in ``default_for``: option-level sets first, in registry order."""
    chosen = [feature_set for feature_set in _BUILTIN.values() if option_kind in feature_set.default_for]
    return tuple(feature_set.name for feature_set in sorted(chosen, key=lambda f: f.level == "item"))


def position_blind_sets() -> tuple[str, ...]:
    """The built-in sets that declare no position column at option level (see :attr:`FeatureSet.position_blind`)."""
    return tuple(name for name, feature_set in _BUILTIN.items() if feature_set.position_blind)


def get_feature_set(name: str) -> FeatureSet:
    """The feature set registered as ``name`` (unknown names list close matches and all names).

    Raises:
        ConfigError: an unknown name, or a plugin entry point that names neither a feature set nor a class.
        MissingDependency: a plugin's module needs a package that is not installed.
    """
    found = FEATURE_SETS.resolve(name)
    if isinstance(found, FeatureSet):
        return found
    target = FEATURE_SETS[name]
    if isinstance(found, type) and isinstance(target, str):
        summary = (found.__doc__ or "").strip().split("\n")[0]
        return FeatureSet(name=name, paper_name="", level="item", factory=target, description=summary)
    raise ConfigError(f"feature set '{name}' ({target}) is neither a FeatureSet nor a transformer class")
