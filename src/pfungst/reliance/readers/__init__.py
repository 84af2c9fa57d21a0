"""One module per outcome format: ``sniff(path, name) -> bool`` and ``read(path, request, name) -> tuple``.

The registry is :data:`pfungst.reliance.outcomes.OUTCOME_FORMATS`; :func:`pfungst.reliance.read_outcomes` is the
entry point.
"""

__all__: list[str] = []
