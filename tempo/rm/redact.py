"""Redaction of credentials and tokens from URLs and messages before they are logged.

Hadoop clusters carry secrets in URLs: ``user:password@`` in a configured address,
``delegation=`` (delegation tokens) and similar query parameters. Everything the RM
client logs or puts in an error message passes through `redact` first.
"""

from __future__ import annotations

import logging
import re

#: Query parameter names whose values are secret (compared case-insensitively,
#: as substrings: ``access_token`` and ``X-Auth-Token`` both match ``token``).
SECRET_PARAMETERS = ("delegation", "token", "password", "passwd", "secret", "signature", "auth")

_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s?#]+@")
_PARAMETER = re.compile(
    r"(?P<key>(?:^|[?&;\s])[^=&;?\s]*(?:"
    + "|".join(SECRET_PARAMETERS)
    + r")[^=&;?\s]*=)[^&;#\s'\"]*",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    """`text` with URL user info and the values of secret query parameters replaced by ``***``.

    Works on a bare URL and on any message that embeds URLs (such as the text of a
    ``requests`` exception).

    >>> redact("https://alice:s3cret@rm:8088/ws/v1/cluster/apps?delegation=AbC&limit=5")
    'https://***@rm:8088/ws/v1/cluster/apps?delegation=***&limit=5'
    """
    text = _USERINFO.sub(r"\g<scheme>***@", text)
    return _PARAMETER.sub(r"\g<key>***", text)


class RedactingFilter(logging.Filter):
    """A logging filter that redacts secrets from a record's message and arguments.

    Installed on the ``urllib3`` connection-pool logger by the HTTP transport, whose
    debug lines print request paths with their query strings.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        return True


def install_redaction(logger_name: str) -> None:
    """Add one `RedactingFilter` to the named logger (idempotent)."""
    target = logging.getLogger(logger_name)
    if not any(isinstance(f, RedactingFilter) for f in target.filters):
        target.addFilter(RedactingFilter())
