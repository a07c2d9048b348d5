"""Hadoop 3: resources preempted for a starved app are claimed by it on their node.

The pure-Python twin of ``whatif/predictor/kernel/claims.py`` (where the rule is described):
the same steps with Python objects, on the `ReferenceEngine`'s state (a mixin of it; see
``loop.py``). A node's claims are a dict from app to resources, in insertion order as
Hadoop's LinkedHashMap; row 0 is the cluster's without heartbeats.
"""

from __future__ import annotations

import numpy as np

from whatif.predictor.reference.protocol import EngineState


class Claims(EngineState):
    """Claims on preempted resources (twin of ``kernel/claims.py``)."""

    def _claim_node(self) -> int:
        """The node of an allocation now: the one heartbeating, else row 0 (the cluster)."""
        return max(self.cur_node, 0)

    def _keeps_claim(self, j: int) -> bool:
        """cleanupPreemptionList: the app has not finished, and its min-share starvation is
        nonzero, or its fair-share starvation is and its usage is below its fair share now."""
        if self.job_state[j] == 3:
            return False
        if self.job_min_starv[j].any():
            return True
        if not self.job_fair_starv[j].any():
            return False
        leaf = int(self.p.job_queue[j])
        self._app_shares(leaf)
        return self._below(int(self.q.policy[leaf]), self.job_usage[j], self.job_fair[j])

    def _claim_add(self, n: int, j: int, req: np.ndarray) -> None:
        """FSSchedulerNode.addContainersForPreemption for one victim of app `j` on node `n`."""
        claims = self.claims[n]
        claims[j] = claims[j] + req if j in claims else np.array(req, dtype=float)

    def _claim_used(self, j: int, req: np.ndarray) -> None:
        """FSSchedulerNode.allocateContainer: a container for app `j` lowers its claim on the
        node of this allocation; a claim of zero is dropped."""
        claims = self.claims[self._claim_node()]
        if j in claims:
            left = np.maximum(claims[j] - req, 0.0)
            if left.any():
                claims[j] = left
            else:
                del claims[j]
                if self.res_on:
                    self.changed = True  # the app may reserve the node now

    def _claims_cleanup(self, n: int) -> None:
        """FSSchedulerNode.cleanupPreemptionList: drop claims of finished or unstarved apps."""
        claims = self.claims[n]
        for j in list(claims):
            if not self._keeps_claim(j):
                del claims[j]
                if self.res_on:
                    self.changed = True  # the app may reserve the node now

    def _claimed_demand(self, n: int) -> bool:
        """Whether an app with a claim on node `n` has runnable pending demand (see the
        kernel's)."""
        return any(
            self.job_state[j] == 2 and bool((self.job_pend[j] > 0).any()) for j in self.claims[n]
        )

    def _claims_sweep(self) -> None:
        """At the end of an event time with heartbeats: every node's `_claims_cleanup`."""
        for n in range(len(self.claims)):
            self._claims_cleanup(n)
