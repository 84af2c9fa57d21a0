"""The paper's code as the baseline of a timing: run in the same run as pfungst where it is set up here, issue 10's
figures (measured on another machine) where it is not.

The paper's code runs in its own environment (``paper_code.py`` says how to set it up) as a child process, one
dataset per call, so that a benchmark can interleave it with its own arms dataset by dataset. Its seconds are those
the child measures around the notebook's per-dataset cells (imports and the one-time GPT-2 tokenizer load excluded,
as a benchmark excludes pfungst's); its CPU seconds count all its threads (XGBoost and BLAS use both cores).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ISSUE10_SECONDS = {"neubaroco": 14, "moral_permissibility": 25, "causal_judgment": 39, "commonsense_qa_2": 82}
"""The paper's code's seconds per dataset as issue 10 reported them (2 cores, another machine, how timed unknown):
the baseline only where the code cannot run here."""
PACCHIARDI = tuple(ISSUE10_SECONDS)
"""The four evals datasets the paper's code is timed on (the ones with shipped model logs)."""
RUNNER = Path(__file__).resolve().parent / "paper_code.py"


@dataclass(frozen=True)
class PaperTime:
    """The paper's code's seconds on one dataset, and where they come from."""

    wall: float
    cpu: float
    measured: bool
    """True: timed in this run; False: issue 10's figure (one number for wall and CPU)."""
    versions: str = ""
    """The timed libraries' versions (measured runs)."""


def add_paper_options(parser: argparse.ArgumentParser) -> None:
    """``--paper-code DIR`` and ``--paper-python PATH``: where the paper's repository and environment are."""
    parser.add_argument(
        "--paper-code",
        type=Path,
        help="A checkout of Kinds-of-Intelligence-CFI/benchmark-ground-truth-predictability: time the paper's code "
        "in this run (needs --paper-python); without it, issue 10's seconds, measured elsewhere, are the baseline.",
    )
    parser.add_argument(
        "--paper-python", type=Path, help="The Python of the paper's pinned environment (see paper_code.py)."
    )


class PaperCode:
    """Times the paper's code on one dataset per call, or hands back issue 10's figure when it is not set up."""

    def __init__(self, repo: Path | None, python: Path | None) -> None:
        if (repo is None) != (python is None):
            raise SystemExit("--paper-code and --paper-python go together (the repository and its environment)")
        if repo is not None and not (repo / "experiments").is_dir():
            raise SystemExit(f"--paper-code {repo}: no experiments/ folder; is it the paper's repository?")
        self.repo, self.python = repo, python

    @property
    def measured(self) -> bool:
        """Whether the paper's code runs in this run."""
        return self.repo is not None

    def describe(self, timed: PaperTime | None = None) -> str:
        """What the baseline is, for a report line (with the versions of a measured run)."""
        if self.measured:
            found = f": {timed.versions}" if timed is not None and timed.versions else ""
            return f"the paper's code (notebook 1's cells, XGBoost included) timed in this run{found}"
        return "issue 10's seconds for the paper's code (measured on another machine; pass --paper-code to time it)"

    def time(self, dataset: str) -> PaperTime:
        """The paper's code's seconds on ``dataset``."""
        if not self.measured:
            seconds = float(ISSUE10_SECONDS[dataset])
            return PaperTime(seconds, seconds, measured=False)
        command = [str(self.python), str(RUNNER), str(self.repo), dataset]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.stderr.write(done.stderr[-4000:])
            raise SystemExit(f"the paper's code failed on {dataset} (exit {done.returncode}); its log is above")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        return PaperTime(figures["wall"], figures["cpu"], measured=True, versions=figures.get("versions", ""))
