"""QS templates: the DBA-edited files that state each queue's objective and constraints.

See docs/qs.md ("QS templates") for the language. `load_templates`
reads a file or a directory of ``*.qs`` files; `objectives`, `constraints` and
`qs_vector` turn templates and an `evaluate` table into the optimizer's vectors.
"""

from tempo.templates.loader import (
    check_predicted_queues,
    check_queues,
    check_trace_deadlines,
    check_trace_queues,
    load_templates,
)
from tempo.templates.model import Constraint, QSTemplate, SourceLocation
from tempo.templates.parser import parse_templates
from tempo.templates.units import parse_duration
from tempo.templates.vectors import constraints, objectives, qs_vector, required_metrics

__all__ = [
    "Constraint",
    "QSTemplate",
    "SourceLocation",
    "check_predicted_queues",
    "check_queues",
    "check_trace_deadlines",
    "check_trace_queues",
    "constraints",
    "load_templates",
    "objectives",
    "parse_duration",
    "parse_templates",
    "qs_vector",
    "required_metrics",
]
