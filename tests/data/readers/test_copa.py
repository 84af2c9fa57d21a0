from __future__ import annotations

from pathlib import Path

import pytest

import pfungst
from pfungst.data import detect_format
from pfungst.data.readers.copa import CopaReader
from pfungst.errors import ReaderError

_HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE copa-corpus SYSTEM "copa.dtd">\n<copa-corpus>\n'


def test_balanced_copa_dev_has_500_original_and_500_mirrored_items(shared_data: Path) -> None:
    path = shared_data / "copa" / "balacopa-dev-all.xml"
    assert detect_format(path) == "copa"
    benchmark = pfungst.load(path)
    assert benchmark.provenance.format == "copa"
    assert len(benchmark) == 1000
    assert benchmark.option_counts == {2: 1000}
    assert benchmark.gold_counts == {"0": 506, "1": 494}
    assert sum(item.metadata["mirrored"] for item in benchmark) == 500
    assert sum(item.metadata["asks_for"] == "cause" for item in benchmark) == 500
    assert benchmark.provenance.duplicate_texts == 2
    first = benchmark[0]
    assert first.id == "1"
    assert first.text == "My body cast a shadow over the grass. What was the CAUSE of this?"
    assert first.fields == {"premise": "My body cast a shadow over the grass.", "asks_for": "cause"}
    assert first.options == ("The sun was rising.", "The grass was cut.")
    assert first.answer == "The sun was rising."
    last = benchmark[-1]
    assert last.id == "1500"
    assert last.text == "The woman was in a good mood. What happened as a RESULT?"
    assert last.metadata["pair_id"] == "500"


def test_balanced_copa_mirrored_items_make_the_other_alternative_right(shared_data: Path) -> None:
    benchmark = pfungst.load(shared_data / "copa" / "balacopa-dev-all.xml")
    by_id = {item.id: item for item in benchmark}
    for item in benchmark:
        if item.metadata["mirrored"]:
            original = by_id[item.metadata["pair_id"]]
            assert set(item.options) == set(original.options)  # item 129's stray leading space is stripped
            assert item.answer != original.answer


def test_copa_does_not_claim_the_easy_hard_split(shared_data: Path) -> None:
    assert not CopaReader().sniff(shared_data / "copa" / "easy_hard_subsets.json")


def test_copa_missing_alternative_names_file_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "copa.xml"
    path.write_text(
        _HEADER + '  <item id="1" asks-for="cause" most-plausible-alternative="1">\n'
        "    <p>P.</p>\n    <a1>A.</a1>\n    <a2>B.</a2>\n  </item>\n"
        '  <item id="2" asks-for="effect" most-plausible-alternative="2">\n'
        "    <p>Q.</p>\n    <a1>C.</a1>\n  </item>\n</copa-corpus>\n"
    )
    assert detect_format(path) == "copa"
    with pytest.raises(ReaderError, match=r"copa\.xml:9: field 'a2': the <item> has no <a2> element"):
        pfungst.load(path)


def test_copa_malformed_xml_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.xml"
    path.write_text(
        _HEADER + '  <item id="1" asks-for="cause" most-plausible-alternative="1">\n'
        "    <p>P.</p>\n    <a1>A.</a2>\n  </item>\n</copa-corpus>\n"
    )
    with pytest.raises(ReaderError, match=r"broken\.xml:6: field '\(xml\)': malformed XML"):
        pfungst.load(path, reader="copa")


def test_copa_refuses_entity_declarations(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xml"
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE copa-corpus [<!ENTITY a "aaaa">]>\n<copa-corpus>\n'
        '<item id="1" asks-for="cause" most-plausible-alternative="1"><p>&a;</p><a1>x</a1><a2>y</a2>'
        "</item></copa-corpus>\n"
    )
    with pytest.raises(ReaderError, match=r"bomb\.xml:2: field '\(xml\)': refused unsafe XML"):
        pfungst.load(path, reader="copa")
