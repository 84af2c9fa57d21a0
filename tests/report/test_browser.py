"""The HTML report in a real headless Chromium: hostile item texts run nothing, the page and its plots render.

Needs Debian's ``chromium`` and ``chromium-driver`` (installed by ``.ci/run``) and the ``selenium`` package (the
``dev`` extra); skips with the reason where one is missing, except under ``PFUNGST_REQUIRE_BROWSER=1`` (CI).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.report.conftest import PAYLOADS

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _missing() -> str:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: pip install -e '.[dev]'"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not path.exists():
            return f"{path} not found: apt-get install {package} (.ci/run installs it)"
    return ""


# CI sets PFUNGST_REQUIRE_BROWSER=1 after installing the browser: there a missing part fails instead of skipping.
if os.environ.get("PFUNGST_REQUIRE_BROWSER") == "1" and _missing():
    raise RuntimeError(f"PFUNGST_REQUIRE_BROWSER is set but the browser test cannot run: {_missing()}")
pytestmark = [
    pytest.mark.skipif(bool(_missing()), reason=_missing() or "browser available"),
    pytest.mark.slow,  # a headless Chromium
]


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--window-size=1280,1600",
        "--disable-gpu",
    ):
        options.add_argument(argument)
    options.binary_location = str(CHROMIUM)
    browser = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    browser.set_page_load_timeout(60)
    yield browser
    browser.quit()


def _open(driver: Any, page: str, path: Path) -> None:
    path.write_text(page, encoding="utf-8")
    driver.get(path.resolve().as_uri())


def _no_alert(driver: Any) -> bool:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        driver.switch_to.alert  # noqa: B018 (the property raises when there is none)
    except NoAlertPresentException:
        return True
    return False


def _screenshot(driver: Any, path: Path) -> Path:
    assert driver.save_screenshot(str(path))
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 10_000
    return path


def _images_rendered(driver: Any) -> tuple[int, int]:
    """(images on the page, images the browser decoded: naturalWidth > 0 after loading)."""
    return tuple(
        driver.execute_script(
            "const images = Array.from(document.images);"
            "return [images.length, images.filter(i => i.complete && i.naturalWidth > 0).length];"
        )
    )


def test_payloads_run_nothing_and_show_as_text(driver: Any, payload_page: str, tmp_path: Path) -> None:
    _open(driver, payload_page, tmp_path / "payloads.html")
    assert driver.execute_script("return window.__pwned") is None
    assert _no_alert(driver)
    text = driver.find_element("tag name", "body").text
    for payload in PAYLOADS:
        assert payload in text
    headings = [element.text for element in driver.find_elements("tag name", "h2")]
    assert headings[0] == "Overview" and headings[-1] == "Provenance"
    assert any(heading.startswith("Model stress:") for heading in headings)
    assert driver.find_elements("tag name", "table")
    count, rendered = _images_rendered(driver)
    assert count > 10 and rendered == count
    assert not driver.find_elements("css selector", "script, iframe, object, embed, body svg")
    assert not driver.find_elements("css selector", "a[href^='javascript'], [onerror], [onload]")
    _screenshot(driver, tmp_path / "payloads.png")


def test_policy_stops_a_script_that_escaped_escaping(driver: Any, demo_page: str, tmp_path: Path) -> None:
    tampered = demo_page.replace(
        "<main>", '<main><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">', 1
    )
    _open(driver, tampered, tmp_path / "tampered.html")
    assert driver.execute_script("return window.__pwned") is None
    assert _no_alert(driver)


def test_demo_report_renders_and_is_saved_as_a_screenshot(driver: Any, demo_page: str, tmp_path: Path) -> None:
    _open(driver, demo_page, tmp_path / "report.html")
    assert driver.title == "pfungst report: gold-position"
    headings = [element.text for element in driver.find_elements("tag name", "h2")]
    assert "Benchmark: gold-position" in headings and "Model comparison on gold-position" in headings
    count, rendered = _images_rendered(driver)
    assert count > 10 and rendered == count
    shot = _screenshot(driver, tmp_path / "report.png")
    keep = os.environ.get("PFUNGST_SCREENSHOT_DIR")
    if keep:  # to look at the page outside the test's temporary folder
        Path(keep).mkdir(parents=True, exist_ok=True)
        for path in (shot, tmp_path / "report.html"):
            shutil.copy(path, Path(keep) / path.name)


WIDTHS = (1400, 390)
"""A desktop window and a phone (iPhone 12-15 width): the report must read at both."""

_LAYOUT = r"""
const width = document.documentElement.clientWidth;
const outside = (rect) => rect.left < -0.5 || rect.right > width + 0.5;
const label = (element) =>
  `${element.closest('table').caption?.textContent ?? ''} | ${element.textContent.slice(0, 50)}`;
const shown = (cell) => { const head = cell.closest('thead'); return !head || head.getBoundingClientRect().width > 1; };
const cells = [...document.querySelectorAll('td, th')].filter(shown);
const boxes = (element) => {  // ancestors that could hide part of it: overflow other than visible
  const found = [];
  for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (style.overflowX !== 'visible' || style.overflowY !== 'visible') found.push(node);
  }
  return found;
};
const hidden = (element) => {
  const rect = element.getBoundingClientRect();
  return boxes(element).some((box) => { const b = box.getBoundingClientRect();
    return rect.top < b.top - 0.5 || rect.bottom > b.bottom + 0.5
      || rect.left < b.left - 0.5 || rect.right > b.right + 0.5; });
};
const wordPerLine = (cell) => {  // a column squeezed to one word per line (its text's lines, not the row's height)
  const words = cell.textContent.trim().split(/\s+/).length;
  const range = document.createRange();
  range.selectNodeContents(cell);
  const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  return words >= 4 && lines >= words;
};
return {
  width,
  page: document.documentElement.scrollWidth,
  rows: document.querySelectorAll('table.board tbody tr').length,
  outside: [...document.querySelectorAll('table.board tr'), ...cells]
    .filter((e) => outside(e.getBoundingClientRect())).map(label),
  hidden: cells.filter(hidden).map(label),
  squeezed: [...document.querySelectorAll('td')].filter(wordPerLine).map(label),
};
"""

_MODEL_VERDICT = r"""
const row = [...document.querySelectorAll('table.board tbody tr')].find((tr) => tr.cells[2].textContent !== '(data)');
const cell = row.cells[3];
cell.scrollIntoView({block: 'start'});
const rect = cell.getBoundingClientRect();
const hit = document.elementFromPoint(rect.left + 2, Math.min(rect.top + 2, window.innerHeight - 1));
return {text: cell.textContent, seen: cell.contains(hit), height: rect.height, bottom: rect.bottom,
        view: window.innerHeight};
"""


def _at_width(driver: Any, width: int) -> None:
    """Lay the page out as a screen ``width`` CSS pixels wide (a phone's below 600), 900 high."""
    metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 600}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)


def _check_layout(driver: Any, page: str, path: Path, width: int) -> dict[str, Any]:
    """Open ``page`` at ``width``, check that nothing is clipped, and return the model's verdict cell as seen."""
    _at_width(driver, width)
    try:
        _open(driver, page, path)
        found = driver.execute_script(_LAYOUT)
        # the page's width less a vertical scroll bar, and no sideways scrolling of the page
        assert width - 20 <= found["width"] <= width and found["page"] <= found["width"], found
        assert found["rows"] >= 2
        assert found["outside"] == [], f"cells outside the page at {width} px: {found['outside'][:5]}"
        assert found["hidden"] == [], f"cells hidden inside a box at {width} px: {found['hidden'][:5]}"
        assert found["squeezed"] == [], f"one word per line at {width} px: {found['squeezed'][:5]}"
        verdict = driver.execute_script(_MODEL_VERDICT)
        assert verdict["seen"] and verdict["height"] > 0 and verdict["bottom"] <= verdict["view"], verdict
        shot = _screenshot(driver, path.with_name(f"{path.stem}-{width}.png"))
        keep = os.environ.get("PFUNGST_SCREENSHOT_DIR")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(keep) / shot.name)
        return verdict
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("width", WIDTHS)
def test_every_board_row_and_table_cell_fits_the_page(driver: Any, demo_page: str, tmp_path: Path, width: int) -> None:
    verdict = _check_layout(driver, demo_page, tmp_path / "fixture.html", width)
    assert verdict["text"].startswith("position dependent")


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The page ``pfungst demo`` writes (four planted benchmarks, their audits, a model stressed), with a scripted
    model drawn to the letter A in place of the embedded one and 160 items per benchmark, to keep it quick."""
    from pfungst.demo import run_demo
    from tests.report.conftest import _model

    folder = tmp_path_factory.mktemp("demo")
    return run_demo(folder, n_items=160, stress_items=12, model=_model("A")).report_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_demo_report_reads_at_a_glance(driver: Any, demo_report: str, tmp_path: Path, width: int) -> None:
    verdict = _check_layout(driver, demo_report, tmp_path / "demo.html", width)
    assert verdict["text"].startswith("position dependent")
    board = driver.execute_script(
        "return [...document.querySelectorAll('table.board tbody tr')]"
        ".map((tr) => [...tr.cells].map((c) => c.textContent));"
    )
    benchmarks = [row[1] for row in board if row[2] == "(data)"]
    assert sorted(benchmarks) == sorted(set(benchmarks)) and len(benchmarks) == 4  # one row per benchmark
