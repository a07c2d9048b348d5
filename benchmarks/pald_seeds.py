"""One optimizer on one scenario of `benchmarks/optimize.py`, seed by seed, without the oracle.

For comparing an optimizer's hyperparameters on more seeds than the whole benchmark
affords: prints each seed's tuning-window gain (as `optimize.py` computes it, against
the expert file) and the mean. The descent's defaults (width 0.1, patience 3) were
chosen this way, on seeds 0-9 of six-tenant.

Usage::

    python benchmarks/pald_seeds.py [--scenario six-tenant] [--seeds 0,1,2,3,4]
        [--algorithm pald] [--params '{"width": 0.05, "patience": 2}']
"""

from __future__ import annotations

import argparse
import json
import logging
import warnings

import numpy as np
import optimize as bench
from scenarios import SCENARIOS


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="six-tenant", choices=sorted(SCENARIOS))
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--algorithm", default="pald")
    parser.add_argument("--params", default="{}", help="optimizer parameters as JSON")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    warnings.filterwarnings("ignore")
    params = json.loads(args.params)
    make = bench.make_optimizer
    bench.make_optimizer = lambda name, **kw: make(name, **kw, **params)
    scenario = SCENARIOS[args.scenario]()
    model = scenario.tuning_model()
    expert = scenario.qs([scenario.expert], scenario.tuning, **model)[0]
    gains = []
    for seed in (int(s) for s in args.seeds.split(",")):
        budget = scenario.iterations * 8 + 1
        document, problem, context, _, distance, seconds = bench.tune(
            scenario, args.algorithm, seed, budget, 8
        )
        columns = context.evaluator.columns
        qs = bench._cols(scenario.qs([document], scenario.tuning, **model)[0], columns)
        reference = bench._cols(expert, columns)
        gain = bench.gain(qs, reference, problem.optimize_mask, problem.weights)
        broken = bench.violated(qs, problem.thresholds, reference)
        gains.append(gain)
        print(f"seed {seed}: gain {gain:+.1%}, constraint broken {broken}, "
              f"distance {distance:.2f}, {seconds:.0f} s", flush=True)  # fmt: skip
    print(f"mean {np.mean(gains):+.1%} over {len(gains)} seeds")


if __name__ == "__main__":
    main()
