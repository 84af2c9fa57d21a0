"""Screen a benchmark's items with several models' outcomes: which keys look wrong, which items nobody solves.

Per dataset (outcomes grouped by their ``dataset``): the wrong-key test of every item
(:mod:`~pfungst.reliance.validity.agreement`) with Benjamini-Hochberg q-values across the dataset's items; the items
no model gets right; 2PL IRT difficulty and discrimination and the item-rest correlation
(:mod:`~pfungst.reliance.validity.irt`); and cleanlab's label-issue score where models gave option probabilities
(:mod:`~pfungst.reliance.validity.label_issues`). An item's key is *suspected* when more than ``majority`` of the
models that answered it agree on one non-gold answer, its q-value is at most ``alpha``, the stronger models do not do
significantly better on it (item-rest correlation not above 0 at one-sided ``alpha``), and the strength-weighted
vote favours the agreed answer over the key (:mod:`~pfungst.reliance.validity.strength`): a wrong key makes the
models that know the answer look worse, whereas a hard item that weak models miss the same way makes them look
better. Suspected items rank first, then every item by that strength-weighted log-odds (the key the strongest models
reject together first), then by the wrong-key p-value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from pfungst.errors import DataError
from pfungst.provenance import Provenance, ResultReference
from pfungst.reliance.outcomes import ModelOutcomes
from pfungst.reliance.validity.agreement import AgreementTest, ChoiceRates, agreement_test
from pfungst.reliance.validity.irt import ItemParameters, item_parameters
from pfungst.reliance.validity.label_issues import LabelIssues, label_issues
from pfungst.reliance.validity.responses import Responses, responses
from pfungst.reliance.validity.result import DatasetValidity, ItemValidity, ValidityResult
from pfungst.reliance.validity.strength import strength_log_odds
from pfungst.reliance.validity_config import ValidityConfig
from pfungst.stats import Estimate, benjamini_hochberg

__all__ = ["ValidityConfig", "validity"]

_METHOD = "Poisson-binomial upper tail of the models agreeing, each at its own choice rate elsewhere (Bonferroni)"


def validity(outcomes: Sequence[ModelOutcomes], config: ValidityConfig | None = None) -> ValidityResult:
    """Rank each dataset's items by how likely their key is wrong, from several models' outcomes.

    Args:
        outcomes: Per-item outcomes (:func:`pfungst.reliance.read_outcomes`) of several models; those that record
            the chosen answer (evals logs, pfungst files, lm-eval samples, a CSV with ``answer`` and ``gold``) feed
            the wrong-key test, all feed the IRT fit.
        config: Settings (:class:`ValidityConfig`); defaults if None.

    Raises:
        DataError: no outcomes.
        ConfigError: an invalid setting; girth or cleanlab missing where needed.

    Example:
        >>> from pfungst.reliance.outcomes import ItemAnswer, ModelOutcomes
        >>> def model(name, answers):
        ...     chosen = {f"q{i}": ItemAnswer(a, "yes" if i else "no") for i, a in enumerate(answers)}
        ...     return ModelOutcomes(name, "toy", {k: a.chosen == a.gold for k, a in chosen.items()}, "", "csv",
        ...                          answers=chosen)
        >>> models = [model(f"m{n}", ["yes"] + ["yes"] * 9) for n in range(8)]
        >>> result = validity(models, ValidityConfig(irt=False))
        >>> top = result.datasets[0].items[0]
        >>> top.item_id, top.key, top.agreed_answer, top.suspected
        ('q0', 'no', 'yes', True)
    """
    config = config or ValidityConfig()
    config.validate()
    if not outcomes:
        raise DataError("no outcomes to screen. Pass --outcomes files from several models.")
    _refuse_duplicates(outcomes)
    groups: dict[str, list[ModelOutcomes]] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.dataset, []).append(outcome)
    screens, notes = [], []
    for dataset, members in groups.items():
        screen = _screen(responses(dataset, members), config)
        screens.append(screen)
        notes += _warnings(screen)
    files = dict.fromkeys((o.source, o.format) for o in outcomes)
    inputs = tuple(ResultReference.of_file(source, kind) for source, kind in files)
    return ValidityResult(tuple(screens), tuple(notes), Provenance.current(asdict(config), None, derived_from=inputs))


@dataclass(frozen=True)
class _Evidence:
    """Everything computed about a dataset's items, in item order, before they are ranked."""

    tests: list[AgreementTest]
    qvalues: tuple[float, ...]
    parameters: ItemParameters
    issues: LabelIssues | None
    n_answered: np.ndarray
    log_odds: np.ndarray
    """Strength-weighted log-odds that the agreed answer rather than the key is right, per item."""


def _screen(table: Responses, config: ValidityConfig) -> DatasetValidity:
    tests = _agreement_tests(table)
    evidence = _Evidence(
        tests=tests,
        qvalues=benjamini_hochberg([t.pvalue for t in tests], config.alpha).qvalues if tests else (),
        parameters=item_parameters(table.correct, config.irt_method if config.irt else None),
        issues=label_issues(table.probabilities, table.keys) if config.label_issues else None,
        n_answered=table.answered.sum(axis=1),
        log_odds=strength_log_odds(table, np.array([t.answer for t in tests], dtype=int)),
    )
    items = sorted((_item(table, i, evidence, config) for i in range(len(table.item_ids))), key=_rank_key)
    ranked = [replace(item, rank=number) for number, item in enumerate(items, start=1)]
    all_wrong = np.nanmax(np.nan_to_num(table.correct, nan=-1.0), axis=1) == 0
    issues = evidence.issues
    return DatasetValidity(
        dataset=table.dataset,
        models=table.models,
        labels=table.labels,
        n_items=len(table.item_ids),
        n_with_answers=int((evidence.n_answered > 0).sum()),
        n_suspected=sum(item.suspected for item in ranked),
        no_model_right=tuple(item for item, wrong in zip(table.item_ids, all_wrong, strict=True) if wrong),
        n_key_conflicts=table.n_key_conflicts,
        irt_note=evidence.parameters.note,
        label_issue_note=issues.note if issues else "not asked (label_issues=False)",
        n_label_issues=int(issues.flagged.sum()) if issues else 0,
        items=tuple(ranked),
    )


def _item(table: Responses, i: int, evidence: _Evidence, config: ValidityConfig) -> ItemValidity:
    """Item ``i`` with its evidence, unranked (rank 0)."""
    test, n, parameters, issues = evidence.tests[i], int(evidence.n_answered[i]), evidence.parameters, evidence.issues
    share = test.n_agreed / n if n else math.nan
    estimate = Estimate(
        value=share, method=_METHOD, n=n, pvalue=test.pvalue, baseline=test.expected / n if n else math.nan
    )
    qvalue = float(evidence.qvalues[i])
    stronger_do_better = parameters.item_rest_pvalue[i] <= config.alpha
    log_odds = float(evidence.log_odds[i])
    agreed = bool(n and share > config.majority and qvalue <= config.alpha)
    return ItemValidity(
        rank=0,
        item_id=table.item_ids[i],
        text=table.texts[i],
        key=table.labels[table.keys[i]] if table.keys[i] >= 0 else "",
        agreed_answer=table.labels[test.answer] if test.answer >= 0 else "",
        n_models=n,
        n_correct=int(((table.choices[i] == table.keys[i]) & table.answered[i]).sum()),
        n_agreed=test.n_agreed,
        wrong_key=estimate,
        qvalue=qvalue,
        suspected=agreed and not stronger_do_better and log_odds > 0,
        strength_log_odds=log_odds,
        difficulty=float(parameters.difficulty[i]),
        discrimination=float(parameters.discrimination[i]),
        item_rest=float(parameters.item_rest[i]),
        item_rest_pvalue=float(parameters.item_rest_pvalue[i]),
        label_quality=float(issues.quality[i]) if issues else math.nan,
        label_issue=bool(issues.flagged[i]) if issues else False,
    )


def _agreement_tests(table: Responses) -> list[AgreementTest]:
    rates = ChoiceRates.count(table.choices, table.keys, table.answered, len(table.labels))
    none = AgreementTest(answer=-1, n_agreed=0, expected=0.0, pvalue=1.0, n_tested=0)
    return [
        agreement_test(table.choices[i], int(table.keys[i]), table.answered[i], rates) if table.keys[i] >= 0 else none
        for i in range(len(table.item_ids))
    ]


def _rank_key(item: ItemValidity) -> tuple[bool, float, float, int, float, str]:
    rest = item.item_rest if not math.isnan(item.item_rest) else 0.0
    return (not item.suspected, -item.strength_log_odds, item.wrong_key.pvalue, -item.n_agreed, rest, item.item_id)


def _refuse_duplicates(outcomes: Sequence[ModelOutcomes]) -> None:
    """One model's outcomes given twice (the same source, or the same answers under the same name) would count that
    model twice in every agreement test."""
    seen: dict[tuple[object, ...], ModelOutcomes] = {}
    for outcome in outcomes:
        answers = frozenset((item, (a.chosen, a.gold)) for item, a in outcome.answers.items())
        keys = (
            ("source", outcome.source, outcome.model, outcome.dataset, outcome.selection),
            ("content", outcome.model, outcome.dataset, frozenset(outcome.correct.items()), answers),
        )
        for key in keys:
            if key in seen:
                first = seen[key]
                raise DataError(
                    f"{outcome.source}: the outcomes of {outcome.model!r} on {outcome.dataset!r} are the same as those "
                    f"read from {first.source}; counting them twice would double that model's vote. Pass each once."
                )
            seen[key] = outcome


def _warnings(screen: DatasetValidity) -> list[str]:
    found = []
    if len(screen.models) < 5:
        found.append(f"{screen.dataset}: only {len(screen.models)} model(s); agreement says little with so few")
    if screen.n_with_answers == 0:
        found.append(
            f"{screen.dataset}: no outcome records the chosen answer, so no wrong-key test "
            "(use evals logs, pfungst score/stress files, lm-eval samples, or a CSV with answer and gold columns)"
        )
    if screen.n_key_conflicts:
        found.append(f"{screen.dataset}: {screen.n_key_conflicts} item(s) keyed differently by different sources")
    return found
