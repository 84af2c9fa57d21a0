"""An input that ends early (a truncated compressed file a library reads) is a user error (exit 2), not click's
"Aborted!" (exit 1); Ctrl-C stays 130."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from pfungst.cli import app
from pfungst.cli.common import user_errors

runner = CliRunner()


def test_a_dataset_folder_with_a_truncated_gzip_data_file_exits_2_naming_the_folder(tmp_path: Path) -> None:
    pytest.importorskip("datasets", reason="the 'datasets' extra is not installed")
    folder = tmp_path / "hf"
    folder.mkdir()
    rows = "".join(
        json.dumps({"question": f"q{i}?", "choices": ["a", "b"], "answer": i % 2}) + "\n" for i in range(400)
    )
    packed = gzip.compress(rows.encode())
    (folder / "train.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    result = runner.invoke(app, ["inspect", str(folder), "--reader", "huggingface"])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    assert f"{folder}: a data file of the dataset ends early" in text
    assert "Aborted" not in text


def test_an_eof_error_no_reader_translated_exits_2_saying_an_input_ended_early(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(typer.Exit) as exit_info, user_errors():
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")
    assert exit_info.value.exit_code == 2
    text = " ".join(capsys.readouterr().err.split())
    assert "an input ended before its end (Compressed file ended before the end-of-stream marker" in text
