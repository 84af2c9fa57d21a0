"""lm-evaluation-harness runs the plan, pfungst analyses the logs.

:func:`export_lm_eval` writes a stress run's first pass as an lm-eval task folder (``pfungst export lm-eval``);
:func:`stress_from_logs` reads lm-eval's ``--log_samples`` back into outcomes and every stress figure they allow
(``pfungst stress --from-logs``). Neither imports lm-eval: the folder is YAML and JSON Lines, the logs are JSON.
"""

from __future__ import annotations

from pathlib import Path

from pfungst.data.benchmark import Benchmark
from pfungst.stress.lm_eval.export import ExportResult, task_name, write_tasks
from pfungst.stress.lm_eval.from_logs import stress_from_logs
from pfungst.stress.lm_eval.plan import EXPORT_PERTURBATIONS, EXPORTABLE_RULES, harness_plan
from pfungst.stress.stress_config import StressConfig

__all__ = [
    "EXPORTABLE_RULES",
    "EXPORT_PERTURBATIONS",
    "ExportResult",
    "export_lm_eval",
    "stress_from_logs",
    "task_name",
]


def export_lm_eval(
    benchmark: Benchmark,
    folder: str | Path,
    config: StressConfig | None = None,
    *,
    name: str | None = None,
    bos_text: str = "",
) -> ExportResult:
    """Write the first pass of a stress run of ``config`` on ``benchmark`` as lm-eval tasks in ``folder``.

    Args:
        benchmark: The items (``config.run.limit`` and ``config.sample`` apply).
        folder: A new or empty folder (lm-eval's ``--include_path``).
        config: The stress settings (default: :data:`EXPORT_PERTURBATIONS` under the letter rule).
        name: The group's name ``pfungst_<name>`` (default: the benchmark's).
        bos_text: Text put before every prompt, as the OpenAI-compatible backend's ``bos_text`` does (SmolLM2
            behind llama-cpp-python's server: ``"<|im_start|>"``).

    Raises:
        ConfigError: a perturbation or rule that cannot be exported, or a folder holding other files.

    Example:
        >>> import tempfile
        >>> from pfungst.data.item import Item
        >>> items = (Item("q1", "2 + 2 =", ("3", "4", "5"), 1), Item("q2", "Sky?", ("blue", "red", "green"), 0))
        >>> config = StressConfig(perturbations=("cyclic",), rules=("letter",))
        >>> result = export_lm_eval(Benchmark("toy", items), tempfile.mkdtemp(), config)
        >>> result.group, dict(result.tasks)
        ('pfungst_toy', {'pfungst_toy_identity': 2, 'pfungst_toy_cyclic': 6})
    """
    config = config or StressConfig(perturbations=EXPORT_PERTURBATIONS)
    return write_tasks(harness_plan(benchmark, config, bos_text=bos_text), folder, name)
