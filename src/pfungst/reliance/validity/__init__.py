"""Item validity from several models' outcomes: keys that look wrong, items nobody solves, IRT parameters.

``validity(outcomes)`` screens each dataset's items with the outcomes of several models (read by
:func:`pfungst.reliance.read_outcomes`, as ``pfungst reliance`` reads them) and ranks them by how likely their key
is wrong: many models agreeing on the same non-gold answer beyond their own error habits
(:mod:`~pfungst.reliance.validity.agreement`), 2PL IRT difficulty and discrimination and the item-rest correlation
(:mod:`~pfungst.reliance.validity.irt`, girth), and cleanlab's label-issue score where models gave probabilities
(:mod:`~pfungst.reliance.validity.label_issues`). ``pfungst validity --outcomes PATH...`` is its command.
"""

from pfungst.reliance.validity.agreement import poisson_binomial_upper_tail
from pfungst.reliance.validity.flags import wrong_key_flags
from pfungst.reliance.validity.result import DatasetValidity, ItemValidity, ValidityResult
from pfungst.reliance.validity.screen import ValidityConfig, validity

__all__ = [
    "DatasetValidity",
    "ItemValidity",
    "ValidityConfig",
    "ValidityResult",
    "poisson_binomial_upper_tail",
    "validity",
    "wrong_key_flags",
]
