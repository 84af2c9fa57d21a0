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
