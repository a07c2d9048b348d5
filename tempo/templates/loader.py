"""Loading template files and directories, and checking their queues against a configuration."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

from tempo.errors import TemplateSyntaxError, TempoError
from tempo.templates.model import QSTemplate
from tempo.templates.parser import parse_templates
from whatif.metrics import full_path

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
        If `path` does not exist or a directory holds no ``*.qs`` file.
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
    logger.debug("loaded %d templates from %d files", len(templates), len(files))
    return templates


def check_queues(templates: Iterable[QSTemplate], known_queue_names: Iterable[str]) -> None:
    """Raise if a template names a queue the configuration does not define.

    `known_queue_names` are the configuration's queues (full paths or bare leaf
    names), parents included; a template on a parent queue is allowed.

    Raises
    ------
    TemplateSyntaxError
        At the first template with an unknown queue, naming the known queues.
    """
    known = {full_path(name) for name in known_queue_names}
    unknown = [t for t in templates if t.queue not in known]
    if not unknown:
        return
    first = unknown[0]
    more = f" ({len(unknown) - 1} more templates name unknown queues)" if len(unknown) > 1 else ""
    place = first.location
    raise TemplateSyntaxError(
        f"unknown queue {first.queue}; the configuration defines {', '.join(sorted(known))}{more}",
        path=place.path if place else "<templates>",
        line=place.line if place else 0,
        column=place.column if place else 0,
    )
