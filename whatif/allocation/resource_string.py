"""Resource strings in allocation files: the three forms Hadoop reads, and writing them back.

Hadoop's ``FairSchedulerConfiguration.parseResourceConfigValue`` chooses the form by content:

- contains ``=``: ``memory-mb=4096, vcores=2`` (or all percentages, ``memory-mb=50%, vcores=50%``),
  Hadoop 3 only; a type left out is ``missing`` (0 for minimums, unlimited for maximums,
  100% for percentages); negative values are rejected;
- contains ``%``: ``50%`` for every type, or ``50% memory, 25% cpu`` (Hadoop 3 only);
- otherwise the old form ``1024 mb, 2 vcores``: case-insensitive, decimals truncated,
  both ``mb`` and ``vcores`` required.

Writing keeps the operator's spelling: new numbers are substituted into the original
string, so ``512mb,1vcores`` stays ``1024mb,2vcores`` and not ``1024 mb, 2 vcores``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from whatif.allocation.effective import ResourceLimit, Resources
from whatif.allocation.java_values import JAVA_INT_MAX

#: Forms a resource string can take.
OLD, PERCENT, NEW, NEW_PERCENT = "mb-vcores", "percent", "name=value", "name=percent"

_OLD_PART = {
    "memory": re.compile(r"(-?\d+)(\.\d*)?(\s*mb)", re.IGNORECASE),
    "vcores": re.compile(r"(-?\d+)(\.\d*)?(\s*vcores)", re.IGNORECASE),
}
_PERCENT_PART = re.compile(r"(-?(\d+)(\.\d*)?)\s*%\s*")
_NEW_NAMES = {"memory-mb": "memory", "vcores": "vcores"}


class ResourceStringError(ValueError):
    """A resource string Hadoop would reject; the message is Hadoop's reason."""


@dataclass(frozen=True)
class ResourceValue:
    """A parsed resource string.

    ``memory``/``vcores`` are MB and cores for the absolute forms, percentages in
    [0, 100] for the percentage forms, and ``None`` for a type the string leaves out.
    """

    form: str
    memory: float | None
    vcores: float | None

    @property
    def is_percent(self) -> bool:
        return self.form in (PERCENT, NEW_PERCENT)

    def as_limit(self, *, missing: float) -> ResourceLimit:
        """As a limit; types left out count as `missing` (0 or ``inf``) or 100%."""
        if self.is_percent:
            return ResourceLimit(
                percent=(
                    100.0 if self.memory is None else self.memory,
                    100.0 if self.vcores is None else self.vcores,
                )
            )
        return ResourceLimit(absolute=self.as_resources(missing=missing))

    def as_resources(self, *, missing: float) -> Resources:
        if self.is_percent:
            raise ResourceStringError("a percentage has no absolute value")
        return Resources(
            missing if self.memory is None else self.memory,
            missing if self.vcores is None else self.vcores,
        )


def _percentage(text: str, units: str) -> float:
    match = re.search(_PERCENT_PART.pattern + units, text)
    if not match:
        raise ResourceStringError(
            f"Invalid percentage: {text}" if not units else f"Missing resource: {units}"
        )
    value = float(match.group(1))
    if value < 0:
        raise ResourceStringError(f"Invalid percentage: {text}, percentage should not be negative!")
    return value


def parse_resource(text: str) -> ResourceValue:
    """Parse a resource string as Hadoop 3 does; raise `ResourceStringError` where Hadoop fails."""
    value = text.strip()
    if not value:
        raise ResourceStringError("Error reading resource config--the resource string is empty.")
    if "=" in value:
        return _parse_new(value)
    if "%" in value:
        lowered = value.lower()
        if len(lowered.split(",")) == 1:
            share = _percentage(lowered, "")
            return ResourceValue(PERCENT, share, share)
        return ResourceValue(PERCENT, _percentage(lowered, "memory"), _percentage(lowered, "cpu"))
    amounts = []
    for kind, unit in (("memory", "mb"), ("vcores", "vcores")):
        match = _OLD_PART[kind].search(value)
        if not match:
            raise ResourceStringError(f"Missing resource: {unit}")
        number = int(match.group(1))
        if abs(number) > JAVA_INT_MAX:
            raise ResourceStringError(
                f"Error reading resource config: {match.group(1)} is too large"
            )
        if number < 0:
            raise ResourceStringError(
                f"Invalid value of {kind}: {number}, value should not be negative!"
            )
        amounts.append(float(number))
    return ResourceValue(OLD, amounts[0], amounts[1])


def _parse_new(value: str) -> ResourceValue:
    as_percent = "%" in value
    found: dict[str, float] = {}
    for part in value.split(","):
        pieces = part.split("=")
        if len(pieces) != 2:
            raise ResourceStringError(
                f"Invalid resource definition: {value}. Every resource must be of the form: name=value."
            )
        name, raw = pieces[0].strip(), pieces[1].strip()
        if name not in _NEW_NAMES:
            raise ResourceStringError(
                f'Invalid resource definition: {value}. The resource name, "{name}" was not '
                "recognized (known: memory-mb, vcores; other types need yarn.resource-types)."
            )
        if as_percent:
            try:
                amount = _percentage(raw, "")
            except ResourceStringError:
                raise ResourceStringError(
                    f"Invalid resource definition: {value}. The resource values must all be "
                    f'percentages. "{raw}" is either not a non-negative number or does not '
                    "include the '%' symbol."
                ) from None
        else:
            if not re.fullmatch(r"[+-]?\d+", raw):
                raise ResourceStringError(
                    f"Invalid resource definition: {value}. The resource values must all be "
                    f'integers. "{raw}" is not an integer.'
                )
            amount = float(int(raw))
            if amount < 0:
                raise ResourceStringError(
                    f"Invalid value of {name}: {int(raw)}, value should not be negative!"
                )
        found[_NEW_NAMES[name]] = amount
    return ResourceValue(
        NEW_PERCENT if as_percent else NEW, found.get("memory"), found.get("vcores")
    )


def _number(value: float, like: str) -> str:
    """`value` written the way the number `like` was (decimals only if it had them)."""
    if not math.isfinite(value):
        raise ResourceStringError(f"cannot write {value!r} in a resource string")
    if "." in like or value != int(value):
        return repr(float(value))
    return str(int(value))


def render_resource(value: Resources | ResourceLimit, template: str | None) -> str:
    """A resource string for `value`, spelled like `template` where the forms agree.

    `template` is the string the operator wrote (in this element or elsewhere in the
    file); without one, or when it cannot express `value` (an absolute amount into a
    percentage string), the old form ``X mb, Y vcores`` or ``X% memory, Y% cpu`` is used.
    Absolute amounts are whole numbers (Hadoop truncates decimals); an unlimited one (a
    maximum's) is left out of Hadoop 3's ``memory-mb=X`` form, which reads it so.
    """
    if isinstance(value, ResourceLimit):
        if value.absolute is not None:
            return render_resource(value.absolute, template)
        if value.percent is None:
            raise ResourceStringError("an unlimited ResourceLimit has no resource string")
        return _render_percent(value.percent, template)
    if math.isinf(value.memory_mb) or math.isinf(value.vcores):  # Hadoop 3's form alone
        finite = (("memory-mb", value.memory_mb), ("vcores", value.vcores))  # leaves one out
        return ", ".join(f"{name}={math.floor(a)}" for name, a in finite if not math.isinf(a))
    memory, vcores = math.floor(value.memory_mb), math.floor(value.vcores)
    if memory < 0 or vcores < 0:
        raise ResourceStringError(f"negative resources cannot be written: {value}")
    parsed = _try_parse(template)
    if parsed is None or template is None:  # (a template parses only if it is given)
        return f"{memory} mb, {vcores} vcores"
    if parsed.form == OLD:
        text = template
        for kind, amount in (("memory", memory), ("vcores", vcores)):

            def amount_with_unit(m: re.Match[str], a: int = amount) -> str:
                return f"{a}{m.group(3)}"

            text = _OLD_PART[kind].sub(amount_with_unit, text, count=1)
        return text
    if parsed.form == NEW:
        return _substitute_new(template, {"memory-mb": str(memory), "vcores": str(vcores)})
    return f"{memory} mb, {vcores} vcores"


def _render_percent(percent: tuple[float, float], template: str | None) -> str:
    memory, vcores = percent
    parsed = _try_parse(template)
    if parsed is None or template is None:  # (a template parses only if it is given)
        like = template or ""
        return f"{_number(memory, like)}% memory, {_number(vcores, like)}% cpu"
    if parsed.form == NEW_PERCENT:
        like = template.split("=", 1)[1]
        return _substitute_new(
            template,
            {"memory-mb": _number(memory, like) + "%", "vcores": _number(vcores, like) + "%"},
        )
    if parsed.form == PERCENT and "," not in template and memory == vcores:
        return _PERCENT_PART.sub(lambda m: f"{_number(memory, m.group(1))}%", template, count=1)
    like = template or ""
    return f"{_number(memory, like)}% memory, {_number(vcores, like)}% cpu"


def _substitute_new(template: str, values: dict[str, str]) -> str:
    parts = template.split(",")
    seen = set()
    for i, part in enumerate(parts):
        name, _, raw = part.partition("=")
        key = name.strip()
        if key in values:
            lead = raw[: len(raw) - len(raw.lstrip())]
            trail = raw[len(raw.rstrip()) :]
            parts[i] = f"{name}={lead}{values[key]}{trail}"
            seen.add(key)
    separator = ", " if ", " in template else ","
    extra = [f"{k}={v}" for k, v in values.items() if k not in seen]
    return separator.join([*parts, *extra]) if extra else ",".join(parts)


def _try_parse(text: str | None) -> ResourceValue | None:
    if text is None:
        return None
    try:
        return parse_resource(text)
    except ResourceStringError:
        return None
