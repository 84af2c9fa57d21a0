"""pfungst inside the harnesses evaluators already run, and their logs read back as pfungst outcomes.

- :mod:`~pfungst.integrations.inspect_ai`: the inspect_ai extension (a task, a scorer and metrics; needs
  ``pip install 'pfungst[inspect]'``).
- :mod:`~pfungst.integrations.inspect_samples`, :mod:`~pfungst.integrations.inspect_figures`,
  :mod:`~pfungst.integrations.inspect_log`: arranged samples, their figures, and inspect logs read as outcomes; these
  need no inspect_ai.
"""

__all__: list[str] = []
