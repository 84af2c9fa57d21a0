"""Statistics used everywhere: every figure pfungst prints is an :class:`Estimate` with its interval or test.

One module per job, one implementation per statistic:

- :mod:`~pfungst.stats.estimate`: the :class:`Estimate` record (``value``, ``ci`` with ``low`` / ``high``,
  ``pvalue``, ``baseline``, ``method``, ``n``) and its :class:`ConfidenceInterval`;
- :mod:`~pfungst.stats.intervals`: Wilson, Newcombe and percentile bootstrap intervals;
- :mod:`~pfungst.stats.hypothesis_tests`: chi-squared, binomial against chance, Fisher, permutation, and the paired
  comparisons (McNemar, paired bootstrap, paired t);
- :mod:`~pfungst.stats.elementwise`: the same kinds of test over arrays, one p-value per screened candidate;
- :mod:`~pfungst.stats.stratified`: a difference within strata (Mantel-Haenszel, Cochran-Mantel-Haenszel test);
- :mod:`~pfungst.stats.clustered`: cluster-robust intervals, paired tests and the design effect (Miller 2024);
- :mod:`~pfungst.stats.agreement`: Cohen's kappa, chance-corrected accuracy, Kendall's tau and W;
- :mod:`~pfungst.stats.multiple`: Benjamini-Hochberg and Bonferroni;
- :mod:`~pfungst.stats.power`: the smallest difference a test would detect.

The package is shared: it imports no stage, and every stage imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.lazy import lazy_exports

if TYPE_CHECKING:
    from pfungst.stats.agreement import (
        chance_corrected_accuracy,
        cohen_kappa,
        kendall_tau,
        kendall_w,
        majority_baseline,
    )
    from pfungst.stats.clustered import (
        ClusteredEstimate,
        clustered_mean,
        clustered_paired_difference,
        design_effect,
    )
    from pfungst.stats.elementwise import hypergeometric_pvalues, normal_pvalues, sign_test_pvalues
    from pfungst.stats.estimate import ConfidenceInterval, Estimate
    from pfungst.stats.hypothesis_tests import (
        binomial_pvalue,
        chisquare_test,
        discordant_counts,
        fisher_exact_pvalue,
        mcnemar_exact,
        paired_bootstrap_difference,
        paired_t_test,
        permutation_pvalue,
    )
    from pfungst.stats.intervals import (
        bootstrap_draws,
        bootstrap_interval,
        clopper_pearson_interval,
        newcombe_interval,
        normal_critical_value,
        percentile_bounds,
        wilson_interval,
    )
    from pfungst.stats.multiple import BHResult, benjamini_hochberg, bonferroni_level, bonferroni_pvalue
    from pfungst.stats.power import detectable_difference
    from pfungst.stats.stratified import mantel_haenszel_difference

__all__ = [
    "BHResult",
    "ClusteredEstimate",
    "ConfidenceInterval",
    "Estimate",
    "benjamini_hochberg",
    "binomial_pvalue",
    "bonferroni_level",
    "bonferroni_pvalue",
    "bootstrap_draws",
    "bootstrap_interval",
    "chance_corrected_accuracy",
    "chisquare_test",
    "clopper_pearson_interval",
    "clustered_mean",
    "clustered_paired_difference",
    "cohen_kappa",
    "design_effect",
    "detectable_difference",
    "discordant_counts",
    "fisher_exact_pvalue",
    "hypergeometric_pvalues",
    "kendall_tau",
    "kendall_w",
    "majority_baseline",
    "mantel_haenszel_difference",
    "mcnemar_exact",
    "newcombe_interval",
    "normal_critical_value",
    "normal_pvalues",
    "paired_bootstrap_difference",
    "paired_t_test",
    "percentile_bounds",
    "permutation_pvalue",
    "sign_test_pvalues",
    "wilson_interval",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "chance_corrected_accuracy": "pfungst.stats.agreement",
        "cohen_kappa": "pfungst.stats.agreement",
        "kendall_tau": "pfungst.stats.agreement",
        "kendall_w": "pfungst.stats.agreement",
        "majority_baseline": "pfungst.stats.agreement",
        "ClusteredEstimate": "pfungst.stats.clustered",
        "clustered_mean": "pfungst.stats.clustered",
        "clustered_paired_difference": "pfungst.stats.clustered",
        "design_effect": "pfungst.stats.clustered",
        "hypergeometric_pvalues": "pfungst.stats.elementwise",
        "normal_pvalues": "pfungst.stats.elementwise",
        "sign_test_pvalues": "pfungst.stats.elementwise",
        "ConfidenceInterval": "pfungst.stats.estimate",
        "Estimate": "pfungst.stats.estimate",
        "binomial_pvalue": "pfungst.stats.hypothesis_tests",
        "chisquare_test": "pfungst.stats.hypothesis_tests",
        "discordant_counts": "pfungst.stats.hypothesis_tests",
        "fisher_exact_pvalue": "pfungst.stats.hypothesis_tests",
        "mcnemar_exact": "pfungst.stats.hypothesis_tests",
        "paired_bootstrap_difference": "pfungst.stats.hypothesis_tests",
        "paired_t_test": "pfungst.stats.hypothesis_tests",
        "permutation_pvalue": "pfungst.stats.hypothesis_tests",
        "bootstrap_draws": "pfungst.stats.intervals",
        "bootstrap_interval": "pfungst.stats.intervals",
        "clopper_pearson_interval": "pfungst.stats.intervals",
        "newcombe_interval": "pfungst.stats.intervals",
        "normal_critical_value": "pfungst.stats.intervals",
        "percentile_bounds": "pfungst.stats.intervals",
        "wilson_interval": "pfungst.stats.intervals",
        "BHResult": "pfungst.stats.multiple",
        "benjamini_hochberg": "pfungst.stats.multiple",
        "bonferroni_level": "pfungst.stats.multiple",
        "bonferroni_pvalue": "pfungst.stats.multiple",
        "detectable_difference": "pfungst.stats.power",
        "mantel_haenszel_difference": "pfungst.stats.stratified",
    },
    globals(),
)
