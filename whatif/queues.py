"""Queue names as the Fair Scheduler places them: the one rule readers, metrics and the
tuner share, kept below all of them so none reaches sideways for it."""

from __future__ import annotations


def normalize_queue(name: object) -> str:
    """The full Fair Scheduler path of a recorded queue name.

    Mirrors the Fair Scheduler's "specified" placement: an empty name or
    ``default`` is ``root.default``, a name already under ``root`` stays as it is,
    and any other name is put under ``root`` (``etl`` -> ``root.etl``).
    """
    text = "" if name is None else str(name).strip()
    if text in ("", "default"):
        return "root.default"
    if text == "root" or text.startswith("root."):
        return text
    return f"root.{text}"
