"""The predictor tests' fixtures (their helpers are in `predictor_cases.py`)."""

import pytest


@pytest.fixture(params=["numba", "reference"])
def engine(request):
    """Each test taking `engine` runs on the numba kernel and on the reference engine."""
    return request.param
