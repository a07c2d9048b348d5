"""Loading template files and directories, and checking their queues against a configuration."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from tempo.errors import TemplateSyntaxError, TempoError
from tempo.templates.model import QSTemplate, SourceLocation
from tempo.templates.parser import parse_templates
from whatif.allocation.effective import EffectiveAllocation
from whatif.errors import ValidationError
from whatif.metrics import Metric, full_path, has_deadlines, metric_spec
from whatif.workload import Workload

logger = logging.getLogger(__name__)

#: File name pattern of template files in a directory.
SUFFIX = ".qs"


def load_templates(path: str | Path) -> list[QSTemplate]:
    """Templates of one ``.qs`` file, or of every ``*.qs`` file of a directory (sorted by name).

    Raises
    ------
    TemplateSyntaxError
        On a malformed file, or a queue given templates twice (naming both places).
    TempoError
        If `path` does not exist, a directory holds no ``*.qs`` file, or the files hold no
        template.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.glob(f"*{SUFFIX}") if p.is_file())
        if not files:
            raise TempoError(f"{path}: no template files (*{SUFFIX}) in this directory")
    elif path.is_file():
        files = [path]
    else:
        raise TempoError(f"{path}: no such template file or directory")
    templates: list[QSTemplate] = []
    seen: dict[str, QSTemplate] = {}
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise TempoError(f"{file}: cannot read template file: {error}") from error
        for template in parse_templates(text, str(file)):
            first = seen.get(template.queue)
            if first is not None:
                place = template.location
                raise TemplateSyntaxError(
                    f"queue {template.queue} already has a template at {first.location}",
                    path=place.path if place else str(file),
                    line=place.line if place else 0,
                    column=place.column if place else 0,
                )
            seen[template.queue] = template
            templates.append(template)
    if not templates:
        raise TempoError(
            f"{path}: no template: expected a 'QUEUE root.NAME' line with OPTIMIZE or "
            "CONSTRAINT clauses"
        )
    logger.debug("loaded %d templates from %d files", len(templates), len(files))
    return templates


def check_queues(
    templates: Iterable[QSTemplate],
    known_queue_names: Iterable[str],
    *,
    where: str = "the configuration",
    verb: str = "defines",
) -> None:
    """Raise if a template names a queue that `where` does not have.

    `known_queue_names` are the queues of `where` (full paths or bare leaf names);
    their parents count too, so a template on a parent queue is allowed. `where`
    names the allocation file or trace in the message, `verb` says how it has its
    queues (``defines``, ``has jobs in``).

    Raises
    ------
    TemplateSyntaxError
        At the first template with a missing queue (file, line and column), naming
        the queues `where` has and every other missing queue with its line.
    """
    known = queues_with_parents(known_queue_names)
    missing = [t for t in templates if t.queue not in known]
    if not missing:
        return
    first = missing[0]
    listed = ", ".join(sorted(known - {"root"})) or "no queue"
    more = ""
    if len(missing) > 1:
        others = [
            f"{t.queue} (line {t.location.line})" if t.location else t.queue for t in missing[1:]
        ]
        more = f"; also missing: {', '.join(others)}"
    place = first.location
    raise TemplateSyntaxError(
        f"queue {first.queue} is not in {where}, which {verb} {listed}{more}",
        path=place.path if place else "<templates>",
        line=place.line if place else 0,
        column=place.column if place else 0,
    )


def check_predicted_queues(
    templates: Iterable[QSTemplate],
    allocation: EffectiveAllocation,
    workload: Workload,
    *,
    where: str = "the configuration",
    also: Iterable[str] = (),
) -> None:
    """`check_queues` against the queues a prediction of `workload` under `allocation`
    has: the file's, and those the Fair Scheduler creates on the fly for its jobs
    (`whatif.predictor.pack.job_allocation`), so that a template may name a user's queue
    that a placement rule makes under ``root.users``. The Capacity Scheduler creates none.
    `also` are more queues to accept: those the live loop checked at its start, which a
    window without their jobs does not create."""
    from whatif.predictor.pack import job_allocation

    names = [str(q) for q in workload.jobs["queue"].unique()] if workload.n_jobs else []
    try:
        allocation, _ = job_allocation(allocation, names)
    except ValidationError:
        pass  # a job the scheduler refuses (the Capacity Scheduler's undeclared queue): the
        # prediction says so; the templates are checked against the file's own queues
    check_queues(templates, [*(q.name for q in allocation.queues()), *also], where=where)


def queues_with_parents(names: Iterable[str]) -> set[str]:
    """Full paths of `names` and of all their parent queues (``root`` included)."""
    known: set[str] = set()
    for name in names:
        parts = full_path(name).split(".")
        known.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return known


def check_trace_queues(templates: Iterable[QSTemplate], workload: Workload, source: str) -> None:
    """Raise if a template names a queue no job of `workload` (read from `source`) ran in.

    Its SLOs could not be evaluated: every QS of that queue would be "n/a".
    """
    queues = [str(q) for q in workload.jobs["queue"].unique()] if workload.n_jobs else []
    check_queues(templates, queues, where=f"the trace {source}", verb="has jobs in")
    check_trace_deadlines(templates, workload, source)
    _warn_unknown_stages(templates, workload, source)


def _warn_unknown_stages(templates: Iterable[QSTemplate], workload: Workload, source: str) -> None:
    """Warn of a ``stage=`` no task of `workload` has: the metric counts no attempt (a
    QS_UTIL of 0), which a misspelt stage would give silently."""
    stages = sorted(str(s) for s in workload.tasks["stage"].unique())
    for template in templates:
        for metric, where in _placed(template):
            stage = dict(metric.params).get("stage")
            if stage and stage not in stages:
                logger.warning(
                    "%s: %s counts the attempts of stage %r, and no task of the trace %s has it "
                    "(its stages: %s)",
                    where or template.queue,
                    metric,
                    stage,
                    source,
                    ", ".join(stages),
                )


def _placed(template: QSTemplate) -> list[tuple[Metric, SourceLocation | None]]:
    """Each metric of `template` with where it is written (an OPTIMIZE at the template)."""
    placed = [(c.metric, c.location) for c in template.constraints]
    if template.optimize is not None:
        placed.append((template.optimize, template.location))
    return placed


#: What a job needs to have a deadline, per deadline source read from the workload.
_NEEDS = {
    "auto": "a deadline_s value or a recurring_key shared by two or more jobs",
    "column": "a deadline_s value",
    "next": "a recurring_key shared by two or more jobs",
}


def check_trace_deadlines(templates: Iterable[QSTemplate], workload: Workload, source: str) -> None:
    """Raise, naming the template line, if a QS_DL or QS_ATTAIN takes its deadlines from
    the workload (``deadline=`` auto, column or next) and no job of `workload` (read
    from `source`) has one of that kind: it could be evaluated on no queue."""
    for template in templates:
        for metric, where in _placed(template):
            kind = str(dict(metric.params).get("deadline", "auto"))
            if metric_spec(metric.name).needs_deadlines and kind in _NEEDS:
                if not has_deadlines(workload, kind):
                    raise TempoError(
                        f"{where or template.queue}: {metric} takes its deadlines from the "
                        f"trace (deadline={kind}), and no job of the trace {source} has "
                        f"{_NEEDS[kind]}; give the template its own deadline, e.g. "
                        "deadline=+1h or deadline=09:00"
                    )
