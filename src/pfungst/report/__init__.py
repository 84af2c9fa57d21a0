"""Reports: render result objects for people (console) and machines (JSON). Reports compute nothing."""

from pfungst.report.console import render_readers, render_summary

__all__ = ["render_readers", "render_summary"]
