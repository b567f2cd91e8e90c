"""Statistics the benchmark's programs share (bench/harness.py and the Kafka
clients in bench/common run under different Pythons, so stdlib only)."""


def percentile(sorted_values, q):
    """Linear interpolation between closest ranks (PostgreSQL's percentile_cont)."""
    if not sorted_values:
        return None
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)
