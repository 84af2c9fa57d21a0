"""Issue 13: every result renders itself in Jupyter (``_repr_html_``) and gives its figures as a frame
(``to_frame()``, one row per figure); the example notebook runs from top to bottom."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pfungst.display import FIGURE_COLUMNS, figures_frame
from pfungst.stress.comparison import StressComparison

NOTEBOOK = Path(__file__).parents[2] / "examples" / "clever-hans-tour.ipynb"
pytestmark = pytest.mark.slow  # runs the demo and executes the example notebook


def _results(demo_objects: dict[str, Any]) -> dict[str, Any]:
    stress = demo_objects["stress"]
    return {
        "summary": demo_objects["summary"],
        "audit": demo_objects["audit"],
        "score": demo_objects["score"],
        "stress": stress[0],
        "comparison": StressComparison(tuple(stress), demo_objects["ranks"]),
        "reliance": demo_objects["reliance"],
    }


@pytest.mark.parametrize("kind", ["summary", "audit", "score", "stress", "comparison", "reliance"])
def test_every_result_shows_its_report_sections_as_html_without_scripts(
    demo_objects: dict[str, Any], kind: str
) -> None:
    html = _results(demo_objects)[kind]._repr_html_()
    assert html.startswith('<div class="pfungst-view">') and html.endswith("</div>")
    assert "<section" in html and "<table" in html
    assert "<script" not in html.lower() and "http://" not in html and "https://" not in html
    ids = re.findall(r' id="([^"]+)"', html)
    assert ids and len(ids) == len(set(ids))


def test_two_results_in_one_notebook_never_share_an_anchor(demo_objects: dict[str, Any]) -> None:
    first, second = demo_objects["audit"]._repr_html_(), demo_objects["audit"]._repr_html_()
    assert not set(re.findall(r' id="([^"]+)"', first)) & set(re.findall(r' id="([^"]+)"', second))


def test_the_audit_frame_has_one_row_per_figure_with_its_interval(demo_objects: dict[str, Any]) -> None:
    audit = demo_objects["audit"]
    frame = audit.to_frame()
    assert tuple(frame.columns) == FIGURE_COLUMNS
    assert frame.name.is_unique
    kappa = frame.set_index("name").loc[f"probes[feature_set={audit.best.feature_set}].kappa"]
    assert kappa.value == pytest.approx(audit.best.kappa.value)
    assert (kappa.low, kappa.high) == pytest.approx((audit.best.kappa.ci.low, audit.best.kappa.ci.high))
    assert kappa.n == audit.best.kappa.n
    assert not frame.name.str.contains("outcomes|environment|settings").any()  # per-item records stay out


def test_the_stress_frame_names_each_variant_and_holds_the_identity_accuracy(demo_objects: dict[str, Any]) -> None:
    stress = demo_objects["stress"][0]
    frame = stress.to_frame().set_index("name")
    identity = [name for name in frame.index if name.startswith("accuracies[perturbation=identity")]
    assert len(identity) == 1
    row = frame.loc[identity[0]]
    assert row.value == pytest.approx(stress.accuracy.value) and row.baseline == pytest.approx(stress.accuracy.baseline)
    assert len(stress.items_frame()) == len(stress.outcomes)  # the per-outcome table kept its rows


def test_a_figure_written_as_null_stays_a_row_and_non_figures_are_left_out() -> None:
    data = {
        "schema_version": "x",
        "kappa": {"value": None, "ci": None, "pvalue": None, "baseline": 0.0, "method": "cohen", "n": 0},
        "settings": {"threshold": {"value": 0.2, "method": "given"}},
        "counts": {"value": 3},
        "probes": [{"feature_set": "options", "accuracy": {"value": 0.5, "baseline": 0.25, "method": "share"}}],
    }
    frame = figures_frame(data)
    assert frame.name.tolist() == ["kappa", "probes[feature_set=options].accuracy"]
    assert frame.value.isna().tolist() == [True, False]


def test_the_example_notebook_runs_top_to_bottom_and_renders_every_result() -> None:
    nbclient = pytest.importorskip(
        "nbclient", reason="the notebook extra is not installed: pip install 'pfungst[notebook]'"
    )
    nbformat = pytest.importorskip("nbformat", reason="the notebook extra is not installed")
    pytest.importorskip("ipykernel", reason="the notebook extra is not installed")
    pytest.importorskip("llama_cpp", reason="the llama extra is not installed: pip install 'pfungst[llama]'")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3").execute()
    outputs = [output for cell in notebook.cells for output in cell.get("outputs", [])]
    assert not [output for output in outputs if output.output_type == "error"]
    html = [output.data["text/html"] for output in outputs if "text/html" in output.get("data", {})]
    shown = [page for page in html if page.startswith('<div class="pfungst-view">')]
    assert len(shown) == 4  # summary, audit, stress, reliance
    assert any("predictable" in page for page in shown)  # the planted gold position is found
