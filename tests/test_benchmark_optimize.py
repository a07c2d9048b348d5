"""benchmarks/optimize.py runs end to end on a tiny budget (so the script behind the
optimizer figures of docs/optimizers.md cannot rot) and its scenarios are what they claim."""

import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    """A benchmark script as a module (registered: its dataclasses need it)."""
    if name in sys.modules:
        return sys.modules[name]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_slo_scenario_is_contended_and_its_expert_is_feasible():
    """Under the expert file the best-effort tenant queues and no deadline is missed."""
    scenarios = _load("scenarios")
    scenario = scenarios.slo_yarn()
    jobs = scenario.predict(scenario.expert, scenario.tuning).jobs
    delay = (jobs["launch_s"] - jobs["submit_s"]).groupby(jobs["queue"]).mean()
    assert delay["root.besteffort"] > 60 > delay["root.deadline"]
    qs = scenario.qs([scenario.expert], scenario.tuning)[0]
    assert qs[1] == 0.0  # root.deadline QS_DL(deadline=+90min)


def test_six_tenant_thresholds_make_the_expert_feasible():
    """Every constraint of the six-tenant scenario holds for the expert on the tuning window,
    predicted as the tuner predicts (under the noise model)."""
    scenarios = _load("scenarios")
    optimize = _load("optimize")
    scenario = scenarios.six_tenant()
    from tempo.optimize import qs_components

    components = qs_components(scenario.templates)
    qs = scenario.qs([scenario.expert], scenario.tuning, **scenario.tuning_model())[0]
    thresholds = np.array([c.threshold for c in components])
    ok = np.isnan(qs) | (qs <= thresholds)
    assert ok.all()
    assert not optimize.violated(qs[~np.isnan(qs)], thresholds[~np.isnan(qs)])


def test_benchmark_runs_a_scenario_end_to_end(tmp_path, capsys):
    """One scenario, PALD and the oracle, one seed, one batch: a table and two plots."""
    scenarios = _load("scenarios")
    optimize = _load("optimize")
    table = optimize.run_scenario(scenarios.slo_yarn(), ["pald"], 1, 9, 8, tmp_path)
    assert table["algorithm"].tolist() == ["expert", "oracle", "pald"]
    assert (table["unfin"] == 0).all()
    out = capsys.readouterr().out
    assert "of oracle" in out and "held-out gain" in out
    assert (tmp_path / "slo-yarn_convergence.png").stat().st_size > 0
    assert (tmp_path / "slo-yarn_qs.png").stat().st_size > 0
