"""The statistical workload model: fit a trace per queue, transform it, generate workloads.

See `WorkloadModel`. The JSON file format is documented in
`whatif.workload_model.schema`.
"""

from whatif.workload_model.files import fit_trace, generate_trace
from whatif.workload_model.model import WorkloadModel
from whatif.workload_model.schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "WorkloadModel", "fit_trace", "generate_trace"]
