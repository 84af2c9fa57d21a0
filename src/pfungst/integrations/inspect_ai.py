"""The inspect_ai extension: any multiple-choice task in pfungst's arrangements, with arrangement metrics in its log.

inspect_ai loads this module through the ``inspect_ai`` entry point ``pfungst`` (pyproject.toml), so its task,
scorer and metrics are known to inspect as ``pfungst/<name>``. Install with ``pip install 'pfungst[inspect]'``.

- :func:`arrange_dataset` expands every sample into its arrangements (cyclic rotations, all or drawn permutations,
  the gold moved to each slot); each arranged sample records in its metadata the original item id, the perturbation
  and variant, the order shown and the gold's original index (:mod:`pfungst.integrations.inspect_samples`).
- :func:`arranged_task` does that to a whole task and scores it with :func:`pfungst_choice`.
- :func:`pfungst_choice` scores like inspect's ``choice`` (after the ``multiple_choice`` solver) and reports
  ``accuracy``, ``stderr`` and pfungst's figures: accuracy by gold position (``position_1``, ...), ``rstd``,
  ``circular_accuracy_<perturbation>`` and ``consistency_<perturbation>``
  (:mod:`pfungst.integrations.inspect_figures`, the same code that analyses the log afterwards).
- ``pfungst/arrangements`` (:func:`arrangements`) is a ready task over any benchmark file pfungst reads:
  ``inspect eval pfungst/arrangements -T data=arc.jsonl -T perturbations=cyclic --model ...``.

Arranged samples must not be shuffled again by inspect (``shuffle_choices``): the arrangements are the shuffle, and
the recorded order would no longer be the one shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pfungst.errors import MissingDependency

try:
    from inspect_ai import Task, task, task_with
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.scorer import (
        CORRECT,
        INCORRECT,
        Metric,
        SampleScore,
        Score,
        Scorer,
        Target,
        accuracy,
        metric,
        scorer,
        stderr,
    )
    from inspect_ai.solver import TaskState, multiple_choice
except ModuleNotFoundError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependency(f"the inspect_ai integration needs '{exc.name}': pip install 'pfungst[inspect]'") from exc

from pfungst.evaluate.outcome import Outcome
from pfungst.integrations.inspect_figures import arrangement_figures, position_values
from pfungst.integrations.inspect_samples import (
    METADATA_KEY,
    arrange,
    item_from_sample,
    letter,
    outcome_from_metadata,
    position_of_letter,
)

__all__ = [
    "arrange_dataset",
    "arranged_task",
    "arrangements",
    "circular_accuracy",
    "consistency",
    "pfungst_choice",
    "position_accuracy",
    "rstd",
]


def _perturbation_names(perturbations: str | Sequence[str]) -> list[str]:
    names = perturbations.split(",") if isinstance(perturbations, str) else list(perturbations)
    return [name.strip() for name in names if name.strip()]


def arrange_dataset(
    dataset: Iterable[Sample],
    perturbations: str | Sequence[str] = ("cyclic",),
    *,
    seed: int = 0,
    permutations: int | None = None,
    name: str | None = None,
) -> MemoryDataset:
    """Every multiple-choice sample of ``dataset`` in every arrangement of each perturbation.

    Args:
        dataset: Samples with ``choices`` and a one-letter ``target`` (any inspect dataset).
        perturbations: Names (``identity``, ``cyclic``, ``permutations``, ``answer-moved``) or one comma-separated
            string; default ``cyclic``.
        seed: Seed of drawn permutations (per item, independent of order).
        permutations: Orders drawn per item for ``permutations``; None for all ``n!``.
        name: The dataset's name (default: the original's name, if it has one).

    Raises:
        ConfigError: an unknown perturbation.
        DataError: a sample without choices or with a target that is not one option letter.
    """
    names = _perturbation_names(perturbations)
    samples: list[Sample] = []
    for index, sample in enumerate(dataset):
        sample_id = sample.id if sample.id is not None else index + 1
        text = sample.input if isinstance(sample.input, str) else str(sample.input)
        item = item_from_sample(sample_id, text, sample.choices or [], sample.target)
        for arranged in arrange(item, names, seed=seed, permutations=permutations, metadata=sample.metadata):
            samples.append(
                sample.model_copy(
                    update={
                        "id": arranged.id,
                        "choices": list(arranged.choices),
                        "target": arranged.target,
                        "metadata": arranged.metadata,
                    }
                )
            )
    return MemoryDataset(samples, name=name if name is not None else getattr(dataset, "name", None))


def arranged_task(
    original: Task,
    perturbations: str | Sequence[str] = ("cyclic",),
    *,
    seed: int = 0,
    permutations: int | None = None,
) -> Task:
    """``original`` with its dataset expanded by :func:`arrange_dataset` and scored by :func:`pfungst_choice`.

    The task keeps its solver (it must show the choices in the order the sample gives them, as
    ``multiple_choice`` does). inspect's ``task_with`` changes the task in place and returns it.
    """
    dataset = arrange_dataset(original.dataset, perturbations, seed=seed, permutations=permutations)
    return task_with(original, dataset=dataset, scorer=pfungst_choice())


def _chosen_position(score: Score) -> int:
    """The chosen position among the sample's choices: from pfungst's score metadata, else the answer letter (as
    inspect's ``choice`` scorer writes it); -1 for none or several."""
    record = (score.metadata or {}).get(METADATA_KEY)
    if isinstance(record, dict) and isinstance(record.get("chosen_position"), int):
        return int(record["chosen_position"])
    return position_of_letter(score.answer or "")


def _outcomes(scores: list[SampleScore]) -> list[Outcome]:
    return [
        outcome_from_metadata(
            sample.sample_metadata, _chosen_position(sample.score), where=f"sample {sample.sample_id!r}"
        )
        for sample in scores
    ]


@metric
def position_accuracy() -> Metric:
    """Accuracy where the gold was shown at each position: ``position_1``, ``position_2``, ..."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        figures = arrangement_figures(_outcomes(scores), n_bootstrap=0)
        return {name: value for name, value in position_values(figures.positions).items()}

    return compute


@metric
def rstd() -> Metric:
    """RStd: the standard deviation of the per-position accuracies x 100 (0: no position bias)."""

    def compute(scores: list[SampleScore]) -> float:
        return arrangement_figures(_outcomes(scores), n_bootstrap=0).positions.rstd.value

    return compute


@metric
def circular_accuracy() -> Metric:
    """Share of items right in every arrangement, per perturbation: ``circular_accuracy_cyclic``, ..."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        figures = arrangement_figures(_outcomes(scores), n_bootstrap=0)
        return {f"circular_accuracy_{name}": value.circular.value for name, value in figures.circular.items()}

    return compute


@metric
def consistency() -> Metric:
    """Share of items given the same original option in every arrangement, per perturbation:
    ``consistency_cyclic``, ..."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        figures = arrangement_figures(_outcomes(scores), n_bootstrap=0)
        return {f"consistency_{name}": value.consistency.value for name, value in figures.circular.items()}

    return compute


@scorer(metrics=[accuracy(), stderr(), position_accuracy(), rstd(), circular_accuracy(), consistency()])
def pfungst_choice() -> Scorer:
    """Right when the single option marked by the ``multiple_choice`` solver is the gold; records the chosen
    position and original option in the score's metadata (``pfungst``)."""

    async def score(state: TaskState, target: Target) -> Score:
        marked = [choice for choice in state.choices if choice.correct is True]
        position = marked[0].original_position if len(marked) == 1 else -1
        outcome = outcome_from_metadata(
            state.metadata, position, where=f"sample {state.sample_id!r}", text=state.output.completion
        )
        return Score(
            value=CORRECT if outcome.correct else INCORRECT,
            answer=outcome.chosen_label,
            explanation=state.output.completion,
            metadata={
                METADATA_KEY: {
                    "chosen_position": outcome.chosen_position,
                    "chosen": outcome.chosen,
                    "status": outcome.status,
                }
            },
        )

    return score


@task
def arrangements(
    data: str,
    perturbations: str | list[str] = "cyclic",
    seed: int = 0,
    permutations: int | None = None,
    limit: int | None = None,
    reader: str | None = None,
    template: str | None = None,
) -> Task:
    """A benchmark file that pfungst reads, each item in every arrangement, through ``multiple_choice``.

    Args:
        data: The benchmark (any file or folder ``pfungst load`` reads).
        perturbations: Comma-separated names: ``identity``, ``cyclic``, ``permutations``, ``answer-moved``.
        seed: Seed of drawn permutations.
        permutations: Orders drawn per item for ``permutations`` (None: all).
        limit: Use the first ``limit`` items (inspect's own ``--limit`` counts arranged samples, which would cut
            an item's arrangements short).
        reader: The pfungst reader name; detected when None.
        template: A ``multiple_choice`` template (``{question}``, ``{choices}``, ``{letters}``); inspect's default
            single-answer template when None.
    """
    from pfungst.data.loading import load

    benchmark = load(data, reader)
    items = list(benchmark)[:limit] if limit is not None else list(benchmark)
    samples = [
        Sample(input=item.text, choices=list(item.options), target=letter(item.gold), id=item.id) for item in items
    ]
    dataset = arrange_dataset(samples, perturbations, seed=seed, permutations=permutations, name=benchmark.name)
    return Task(dataset=dataset, solver=multiple_choice(template=template), scorer=pfungst_choice())
