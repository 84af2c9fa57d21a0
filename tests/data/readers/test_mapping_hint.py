"""A table that fits no common layout: the error lists its columns and a ``--map`` line that reads it when copied."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

import pfungst
from pfungst.cli import app
from pfungst.errors import DataError

SHAPES = {
    "stem.csv": ("stem,option_x,option_y,option_z,gold_idx\nQ1?,a,b,c,2\nQ2?,d,e,f,0\n", ["c", "d"]),
    "numbered.tsv": ("q\topt1\topt2\tans\nIs it?\tyes\tno\t2\nIs not?\tyes\tno\t1\n", ["no", "yes"]),
    "german.csv": ("Frage,A,B,C,Antwort\nWas ist 2+2?,3,4,5,B\nHauptstadt?,Rom,Paris,Oslo,C\n", ["4", "Oslo"]),
    "listed.jsonl": (
        json.dumps({"prompt_text": "Pick y.", "candidates": ["x", "y"], "correct_choice": 1})
        + "\n"
        + json.dumps({"prompt_text": "Pick x.", "candidates": ["x", "y"], "correct_choice": 0})
        + "\n",
        ["y", "x"],
    ),
}


def _suggested(message: str) -> dict[str, str]:
    line = next(line for line in message.splitlines() if line.strip().startswith("--map"))
    words = shlex.split(line)
    return dict(word.split("=", 1) for word in words[1::2])


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_the_suggested_map_line_reads_the_file(tmp_path: Path, name: str) -> None:
    text, answers = SHAPES[name]
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DataError) as raised:
        pfungst.load(path)
    message = str(raised.value)
    first_row = text.splitlines()[0]
    columns = list(json.loads(first_row)) if name.endswith(".jsonl") else re.split("[,\t]", first_row)
    assert f"its columns ({', '.join(columns)}) fit no common layout" in message
    benchmark = pfungst.load(path, **_suggested(message))
    assert [item.answer for item in benchmark] == answers


def test_a_table_with_no_options_gets_a_shared_label_line(tmp_path: Path) -> None:
    path = tmp_path / "claims.csv"
    path.write_text("claim_text,verdict\nThe sky is green.,no\nWater is wet.,yes\n")
    with pytest.raises(DataError) as raised:
        pfungst.load(path)
    settings = _suggested(str(raised.value))
    assert settings == {"question": "claim_text", "label": "verdict"}
    assert pfungst.load(path, **settings).labels == ("no", "yes")


@pytest.mark.parametrize("command", [["inspect"], ["stress", "--model", "openai:http://127.0.0.1:9/v1#none"]])
def test_the_commands_exit_2_with_the_line_whole_and_no_traceback(tmp_path: Path, command: list[str]) -> None:
    path = tmp_path / "stem.csv"
    path.write_text(SHAPES["stem.csv"][0])
    result = CliRunner().invoke(app, [command[0], str(path), *command[1:]], terminal_width=60)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    expected = "--map question=stem --map option_columns=option_x,option_y,option_z --map answer=gold_idx"
    assert expected + " --map answer_format=index" in result.output


def test_a_headerless_table_is_not_read_as_column_names(tmp_path: Path) -> None:
    path = tmp_path / "questions.csv"
    path.write_text("What is the capital city of France today?,Paris,Rome,Oslo,A\nWhat is 2+2 in base ten?,4,5,6,A\n")
    with pytest.raises(
        DataError, match=r"its first row does not look like a header(.|\n)*pass --reader NAME"
    ) as raised:
        pfungst.load(path)
    assert "--map" not in str(raised.value)
