"""A recursive-descent parser for QS template files (grammar in docs/qs.md, "QS templates").

::

    file       = { template } EOF ;
    template   = "QUEUE" queue [ ";" ] { clause } ;
    clause     = "OPTIMIZE" metric ";"
               | "CONSTRAINT" condition { "AND" condition } ";"
               | "PRIORITY" number ";" ;
    condition  = metric ( "<" | "<=" ) quantity ;
    metric     = NAME [ "(" [ param { "," param } ] ")" ] ;
    param      = NAME "=" ( quantity | NAME | TIME | "+" NUMBER [ duration-unit ] ) ;
    quantity   = [ "-" ] NUMBER [ "%" | duration-unit ] ;
    queue      = NAME { "." NAME } ;

Keywords, metric names and units are case-insensitive; queue names are not.
Quantities are converted to the metric's unit: percentages to fractions,
durations to seconds. ``deadline=+1h`` (a deadline one hour after each job's
submission) is passed on as the deadline source ``"+1h"``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tempo.errors import TemplateSyntaxError
from tempo.templates.lexer import Token, tokenize
from tempo.templates.model import Constraint, QSTemplate, SourceLocation
from tempo.templates.units import DURATION_UNITS
from whatif.errors import ValidationError
from whatif.metrics import METRICS, Metric, full_path
from whatif.metrics.deadlines import EXPECTED as DEADLINE_FORMS

KEYWORDS = ("QUEUE", "OPTIMIZE", "CONSTRAINT", "AND", "PRIORITY")

_CLAUSES = ("OPTIMIZE", "CONSTRAINT", "PRIORITY")


@dataclass(frozen=True)
class _Quantity:
    """A number as written: its value, unit ('' , '%', or a duration unit) and first token."""

    value: float
    unit: str
    token: Token

    @property
    def text(self) -> str:
        return f"{self.value:g}{self.unit}"


def parse_templates(text: str, path: str = "<string>") -> list[QSTemplate]:
    """The templates in `text`, in order; `path` names the file in error messages.

    Raises
    ------
    TemplateSyntaxError
        With the path, line and column of the first problem and what was expected.
    """
    return _Parser(tokenize(text, path), path).file()


class _Parser:
    def __init__(self, tokens: list[Token], path: str) -> None:
        self.tokens = tokens
        self.path = path
        self.index = 0

    # ---- token helpers ------------------------------------------------------------------
    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def advance(self) -> Token:
        token = self.current
        if token.kind != "EOF":
            self.index += 1
        return token

    def error(self, message: str, token: Token | None = None) -> TemplateSyntaxError:
        token = token or self.current
        return TemplateSyntaxError(message, path=self.path, line=token.line, column=token.column)

    def location(self, token: Token) -> SourceLocation:
        return SourceLocation(self.path, token.line, token.column)

    def is_keyword(self, *words: str) -> bool:
        return self.current.kind == "NAME" and self.current.text.upper() in words

    def expect(self, text: str, context: str) -> Token:
        if self.current.text != text or self.current.kind not in ("PUNCT", "OP"):
            raise self.error(f"expected {text!r} {context}, got {self.current.describe()}")
        return self.advance()

    # ---- grammar ------------------------------------------------------------------------
    def file(self) -> list[QSTemplate]:
        templates: list[QSTemplate] = []
        while self.current.kind != "EOF":
            if not self.is_keyword("QUEUE"):
                hint = " (every clause follows a QUEUE line)" if self.is_keyword(*_CLAUSES) else ""
                raise self.error(f"expected QUEUE{hint}, got {self.current.describe()}")
            templates.append(self.template())
        return templates

    def template(self) -> QSTemplate:
        start = self.advance()
        queue = self.queue()
        if self.current.text == ";" and self.current.kind == "PUNCT":
            self.advance()
        optimize: Metric | None = None
        optimize_token: Token | None = None
        priority_token: Token | None = None
        priority = 1.0
        constraints: list[Constraint] = []
        while self.is_keyword(*_CLAUSES):
            keyword = self.advance()
            word = keyword.text.upper()
            if word == "OPTIMIZE":
                if optimize_token is not None:
                    raise self.error(
                        f"second OPTIMIZE for queue {queue} (first at line {optimize_token.line}); "
                        "a queue optimizes one metric",
                        keyword,
                    )
                optimize_token = keyword
                optimize = self.metric()
                self.expect(";", f"after OPTIMIZE {optimize.label}")
            elif word == "CONSTRAINT":
                constraints.append(self.condition())
                while self.is_keyword("AND"):
                    self.advance()
                    constraints.append(self.condition())
                self.expect(";", f"or AND after constraint {constraints[-1]}")
            else:
                if priority_token is not None:
                    raise self.error(
                        f"second PRIORITY for queue {queue} (first at line {priority_token.line})",
                        keyword,
                    )
                priority_token = keyword
                number = self.quantity("after PRIORITY")
                if number.unit or number.value <= 0:
                    raise self.error(
                        f"expected a positive number after PRIORITY, got {number.text!r}",
                        number.token,
                    )
                priority = number.value
                self.expect(";", "after PRIORITY")
        if optimize is None and not constraints:
            raise self.error(
                f"expected OPTIMIZE or CONSTRAINT for queue {queue}, got {self.current.describe()}"
            )
        if self.current.kind != "EOF" and not self.is_keyword("QUEUE"):
            raise self.error(
                f"expected OPTIMIZE, CONSTRAINT, PRIORITY or QUEUE, got {self.current.describe()}"
            )
        return QSTemplate(queue, optimize, tuple(constraints), priority, self.location(start))

    def queue(self) -> str:
        if self.current.kind != "NAME":
            raise self.error(f"expected a queue name after QUEUE, got {self.current.describe()}")
        parts = [self.advance().text]
        while self.current.text == "." and self.current.kind == "PUNCT":
            self.advance()
            if self.current.kind != "NAME":
                raise self.error(
                    f"expected a queue name part after '.', got {self.current.describe()}"
                )
            parts.append(self.advance().text)
        return full_path(".".join(parts))

    def metric(self) -> Metric:
        token = self.current
        if token.kind != "NAME" or token.text.upper() not in METRICS:
            raise self.error(
                f"expected a QS metric ({', '.join(METRICS)}), got {token.describe()}", token
            )
        name = self.advance().text.upper()
        params: dict[str, float | str] = {}
        if self.current.text == "(" and self.current.kind == "PUNCT":
            self.advance()
            while not (self.current.text == ")" and self.current.kind == "PUNCT"):
                if params:
                    self.expect(",", f"or ')' between parameters of {name}")
                self.param(name, params)
            self.advance()
        try:
            return Metric(name, params)
        except ValidationError as error:
            raise self.error(str(error), token) from None

    def param(self, metric: str, params: dict[str, float | str]) -> None:
        spec = METRICS[metric]
        key_token = self.current
        key = key_token.text.lower()
        if key_token.kind != "NAME" or key not in spec.params:
            allowed = ", ".join(spec.params) or "none"
            raise self.error(
                f"expected a parameter of {metric} ({allowed}), got {key_token.describe()}",
                key_token,
            )
        if key in params:
            raise self.error(f"parameter {key!r} of {metric} given twice", key_token)
        self.advance()
        self.expect("=", f"after parameter {key}")
        kind = spec.params[key].kind
        value_token = self.current
        if kind in ("fraction", "seconds"):
            quantity = self.quantity(f"for {metric} parameter {key}")
            value: float | str = self.convert(quantity, kind, f"{metric} parameter {key}")
        elif kind == "deadline" and value_token.text == "+" and value_token.kind == "PUNCT":
            value = self.after_submission(f"{metric} parameter {key}")
        elif value_token.kind in ("NAME", "TIME") or (
            kind == "name" and value_token.kind == "NUMBER"
        ):
            value = self.advance().text
            value = value.lower() if kind == "deadline" and value_token.kind == "NAME" else value
        else:
            wanted = DEADLINE_FORMS if kind == "deadline" else "a name"
            raise self.error(
                f"expected {wanted} for {metric} parameter {key}, got {value_token.describe()}"
            )
        try:
            params[key] = spec.params[key].check(value, field_name=f"{metric}({key})")
        except ValidationError as error:
            raise self.error(str(error), value_token) from None

    def after_submission(self, what: str) -> str:
        """``+ NUMBER [unit]``, a deadline that long after submission, as the source ``"+1h"``."""
        self.advance()
        number = self.current
        if number.kind != "NUMBER":
            raise self.error(
                f"expected a duration after '+' for {what} (such as +1h, +30m or +1d), "
                f"got {number.describe()}"
            )
        quantity = self.quantity(f"after '+' for {what}")
        if not quantity.unit and self.current.kind == "NAME":
            raise self.error(
                f"expected a duration unit s, m/min, h or d after '+{quantity.text}' for {what}, "
                f"got {self.current.describe()}"
            )
        if quantity.unit == "%":
            raise self.error(
                f"expected a duration in s, m/min, h or d after '+' for {what}, "
                f"got {quantity.text!r}",
                number,
            )
        return f"+{quantity.text}"

    def condition(self) -> Constraint:
        start = self.current
        metric = self.metric()
        op = self.current
        if op.kind != "OP" or op.text not in ("<", "<="):
            hint = " (every QS is lower-is-better)" if op.text in (">", ">=") else ""
            raise self.error(
                f"expected '<' or '<=' after metric {metric.label}, got {op.describe()}{hint}"
            )
        self.advance()
        number = self.current
        quantity = self.quantity(f"after {metric.label} {op.text}")
        threshold = self.convert(quantity, metric.unit, f"the threshold of {metric.name}")
        if metric.unit == "s" and (threshold < 0 or (threshold == 0 and op.text == "<")):
            raise self.error(
                f"{metric.label} {op.text} {quantity.text} can never be met: "
                f"{metric.name} is a time, 0 or more",
                number,
            )
        return Constraint(metric, op.text, threshold, self.location(start))

    def quantity(self, context: str) -> _Quantity:
        first = self.current
        sign = 1.0
        if first.text == "-" and first.kind == "PUNCT":
            self.advance()
            sign = -1.0
        if self.current.kind != "NUMBER":
            raise self.error(f"expected a number {context}, got {self.current.describe()}")
        value = sign * float(self.advance().text)
        unit = ""
        if self.current.text == "%" and self.current.kind == "PUNCT":
            unit = self.advance().text
        elif self.current.kind == "NAME" and self.current.text.lower() in DURATION_UNITS:
            unit = self.advance().text.lower()
        return _Quantity(value, unit, first)

    def convert(self, quantity: _Quantity, unit: str, what: str) -> float:
        """`quantity` in base units for a value of `unit` (a metric unit or parameter kind)."""
        if unit == "fraction":
            if quantity.unit != "%":
                raise self.error(
                    f"expected a percentage such as 10% for {what}, got {quantity.text!r}",
                    quantity.token,
                )
            return quantity.value / 100.0
        if unit in ("s", "seconds"):
            if quantity.unit == "%":
                raise self.error(
                    f"expected a duration in s, m/min, h or d for {what}, got {quantity.text!r}",
                    quantity.token,
                )
            return quantity.value * DURATION_UNITS.get(quantity.unit, 1.0)
        if quantity.unit:
            raise self.error(
                f"expected a plain number for {what} (in {unit}), got {quantity.text!r}",
                quantity.token,
            )
        return quantity.value
