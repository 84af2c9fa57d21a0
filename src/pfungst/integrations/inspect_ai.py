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
- :func:`pfungst_answer` is a solver that reads the reply with pfungst's answer parser (``B``, ``B. text``, ``the
  answer is B``) where inspect's ``multiple_choice`` needs ``ANSWER: B``.
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
    from inspect_ai.solver import Generate, Solver, TaskState, multiple_choice, solver
except ModuleNotFoundError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependency(f"the inspect_ai integration needs '{exc.name}': pip install 'pfungst[inspect]'") from exc

from pfungst.errors import ConfigError
from pfungst.evaluate.outcome import Outcome
from pfungst.evaluate.scoring.answer_parser import parse_answer
from pfungst.integrations.inspect_figures import arrangement_figures
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
    "pfungst_answer",
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
        return _values(scores, "position_")

    return compute


@metric
def rstd() -> Metric:
    """RStd: the standard deviation of the per-position accuracies x 100 (0: no position bias)."""

    def compute(scores: list[SampleScore]) -> float:
        return arrangement_figures(_outcomes(scores), n_bootstrap=0).positions.rstd.value

    return compute


def _values(scores: list[SampleScore], prefix: str) -> dict[str, float | None]:
    values = arrangement_figures(_outcomes(scores), n_bootstrap=0).values()
    return {name: value for name, value in values.items() if name.startswith(prefix)}


@metric
def circular_accuracy() -> Metric:
    """Share of items right in every arrangement, per perturbation: ``circular_accuracy_cyclic``, ... (NaN while
    an item's original order has not been scored yet)."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        return _values(scores, "circular_accuracy_")

    return compute


@metric
def consistency() -> Metric:
    """Share of items given the same original option in every arrangement, per perturbation:
    ``consistency_cyclic``, ..."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        return _values(scores, "consistency_")

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


ANSWER_TEMPLATE = "{question}\n{choices}\nAnswer:"
"""The default prompt of :func:`pfungst_answer`: pfungst's ``mmlu`` layout (``A. option`` lines, then ``Answer:``)."""


@solver
def pfungst_answer(template: str = ANSWER_TEMPLATE, max_tokens: int | None = None) -> Solver:
    """Ask for the option's letter and read the answer with pfungst's answer parser, not only ``ANSWER: X``.

    inspect's ``multiple_choice`` needs the model to write ``ANSWER: B``; a small model that answers ``B`` or
    ``B. Paris`` counts as unanswered there. This solver shows the options as ``A. text`` lines in the sample's
    order, generates, and marks the option that :func:`~pfungst.evaluate.scoring.answer_parser.parse_answer` reads
    (an explicit answer, a bare label line or an option's text; echoed option lists and refusals mark none), so
    :func:`pfungst_choice` scores it like any other.

    Args:
        template: The prompt, with ``{question}`` and ``{choices}`` (and optionally ``{letters}``: ``A,B,C``).
        max_tokens: Tokens to generate (the run's setting when None).

    Raises:
        ConfigError: the template lacks ``{question}`` or ``{choices}``.
    """
    if "{question}" not in template or "{choices}" not in template:
        raise ConfigError(f"pfungst_answer: the template needs {{question}} and {{choices}}, got {template!r}")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        labels = [letter(position) for position in range(len(state.choices))]
        options = [str(choice.value) for choice in state.choices]
        shown = "\n".join(f"{label}. {option}" for label, option in zip(labels, options, strict=True))
        state.user_prompt.text = template.format(
            question=state.user_prompt.text, choices=shown, letters=",".join(labels)
        )
        state = await generate(state, max_tokens=max_tokens)
        parsed = parse_answer(state.output.completion, labels, options)
        for position in range(len(state.choices)):
            state.choices.mark_choice(position, parsed.status == "ok" and position == parsed.position)
        return state

    return solve


@task
def arrangements(
    data: str,
    perturbations: str | list[str] = "cyclic",
    seed: int = 0,
    permutations: int | None = None,
    limit: int | None = None,
    reader: str | None = None,
    template: str | None = None,
    solver: str = "multiple_choice",
    max_tokens: int | None = None,
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
        template: The solver's prompt (``{question}``, ``{choices}``, ``{letters}``); the solver's default when None.
        solver: ``multiple_choice`` (inspect's; the model must write ``ANSWER: X``) or ``pfungst_answer`` (pfungst's
            answer parser reads ``B``, ``B. text``, ``the answer is B``).
        max_tokens: Tokens to generate per answer (the run's ``--max-tokens`` when None).

    Raises:
        ConfigError: an unknown solver.
    """
    from pfungst.data.loading import load  # the readers load only when the task is built

    benchmark = load(data, reader)
    items = list(benchmark)[:limit] if limit is not None else list(benchmark)
    samples = [
        Sample(input=item.text, choices=list(item.options), target=letter(item.gold), id=item.id) for item in items
    ]
    dataset = arrange_dataset(samples, perturbations, seed=seed, permutations=permutations, name=benchmark.name)
    if solver not in ("multiple_choice", "pfungst_answer"):
        raise ConfigError(f"unknown solver {solver!r}. Available: multiple_choice, pfungst_answer")
    chosen = (
        multiple_choice(template=template, max_tokens=max_tokens)
        if solver == "multiple_choice"
        else pfungst_answer(template or ANSWER_TEMPLATE, max_tokens)
    )
    return Task(dataset=dataset, solver=chosen, scorer=pfungst_choice())
