"""HTTP transport to a ResourceManager (or JobHistory Server): HA failover, retries, TLS, SPNEGO.

`HTTPTransport.get_json` is the only way tempo talks to a cluster. For one call it:

1. tries the base URLs in order, starting with the one that last answered as the
   active RM;
2. follows a standby RM's redirect to the active one (an HTTP 3xx with
   ``Location``, or a "This is standby RM" page with a ``Refresh`` header or a URL
   in its text) and remembers the active base URL for later calls; a standby page
   with no target moves on to the next URL;
3. treats connection errors, timeouts and HTTP 5xx as transient: after every URL
   failed, it sleeps a full-jitter exponential backoff (``uniform(0, min(cap,
   base * 2**round))``) and starts another round, at most ``max_attempts`` rounds
   and never past ``max_total_s``;
4. raises `tempo.RMError` at once on anything else (HTTP 4xx, a body that is not
   JSON), and after the last round on transient failures: one line naming the
   (redacted) URL and the cause.

The retry loop is tempo's own rather than urllib3's ``Retry`` mounted on the
session: ``Retry`` retries one URL, while a round here walks every RM of an HA pair
(a standby's answer is a redirect or a page to follow, not an error to retry), the
backoff is per round, the whole call has a time budget (``max_total_s``), and tests
inject the clock and the sleep. Mounted under this loop, ``Retry`` would multiply
the attempts and hide the failover.

Bodies are decoded with `whatif.readers.lenient_json` (strict JSON, plus a
bounded, logged repair of the missing and trailing commas of Hadoop's own doc
examples), the same decoder the REST-dump trace reader uses.

Credentials in URLs and secret query parameters (delegation tokens) never reach a
log line or an error message: everything goes through `tempo.rm.redact.redact`.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import urlencode, urljoin, urlsplit

import numpy as np
import requests

from tempo.errors import RMError
from tempo.rm.redact import install_redaction, redact
from whatif.errors import TraceFormatError
from whatif.readers.lenient_json import loads_lenient

logger = logging.getLogger(__name__)

#: Most standby redirects followed within one request (guards against loops).
MAX_REDIRECTS = 3

_REFRESH_URL = re.compile(r"url\s*=\s*['\"]?(?P<url>[^'\"\s;]+)", re.IGNORECASE)
_BODY_URL = re.compile(r"https?://[^\s'\"<>]+")
_STANDBY_MARKER = "standby rm"
_OBJECT_REPR = re.compile(r"<[\w.]+ object at 0x[0-9a-f]+>:?\s*")


@dataclass(frozen=True)
class JSONResponse:
    """A decoded JSON body with the response's headers (case-insensitive) and its URL."""

    body: object
    headers: Mapping[str, str]
    url: str


class Rng(Protocol):
    """What the transport needs of a random generator (numpy's or the stdlib's)."""

    def uniform(self, low: float, high: float) -> float: ...


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long transient failures are retried.

    Parameters
    ----------
    max_attempts : int
        Rounds over all base URLs before giving up (1 means no retry).
    base_delay_s, max_delay_s : float
        The backoff before round ``k`` (from 0) is drawn uniformly from
        ``[0, min(max_delay_s, base_delay_s * 2**k)]`` ("full jitter").
    max_total_s : float
        No new round starts once this much time has passed since the first try.
    """

    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    max_total_s: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise RMError(f"RetryPolicy.max_attempts: expected >= 1, got {self.max_attempts!r}")
        for name in ("base_delay_s", "max_delay_s", "max_total_s"):
            if getattr(self, name) < 0:
                raise RMError(f"RetryPolicy.{name}: expected >= 0, got {getattr(self, name)!r}")

    def delay_s(self, round_index: int, rng: Rng) -> float:
        """The full-jitter backoff before retry round `round_index` (0 for the first retry)."""
        cap = min(self.max_delay_s, self.base_delay_s * 2.0**round_index)
        return float(rng.uniform(0.0, cap))


@dataclass(frozen=True)
class TransportOptions:
    """Connection settings shared by the RM and JobHistory clients.

    Parameters
    ----------
    connect_timeout_s, read_timeout_s : float
        Per-request timeouts (the read timeout bounds the wait between bytes).
    retry : RetryPolicy
        Retries of transient failures.
    verify_tls : bool
        Verify server certificates (on by default; turning it off logs a warning).
    ca_bundle : path, optional
        A PEM file of CA certificates to verify against instead of the system store.
    kerberos : bool
        Authenticate with SPNEGO (needs the ``kerberos`` extra: ``requests-gssapi``).
    """

    connect_timeout_s: float = 5.0
    read_timeout_s: float = 30.0
    retry: RetryPolicy = RetryPolicy()
    verify_tls: bool = True
    ca_bundle: str | Path | None = None
    kerberos: bool = False

    def __post_init__(self) -> None:
        for name in ("connect_timeout_s", "read_timeout_s"):
            if not getattr(self, name) > 0:
                raise RMError(f"TransportOptions.{name}: expected > 0, got {getattr(self, name)!r}")


class _Transient(Exception):
    """A failure worth retrying (connection, timeout, 5xx); carries the one-line cause."""


class _Standby(Exception):
    """The server is a standby RM; `target` is the active RM's URL when it said so."""

    def __init__(self, target: str | None) -> None:
        super().__init__(target)
        self.target = target


def spnego_auth() -> requests.auth.AuthBase:
    """A SPNEGO (Kerberos) authenticator from the optional ``requests-gssapi`` package."""
    try:
        import requests_gssapi
    except ImportError as error:
        raise RMError(
            "Kerberos (SPNEGO) authentication needs the optional 'kerberos' extra: "
            "pip install 'tempo-yarn[kerberos]' (requests-gssapi)"
        ) from error
    auth: requests.auth.AuthBase = requests_gssapi.HTTPSPNEGOAuth(
        mutual_authentication=requests_gssapi.OPTIONAL
    )
    return auth


class HTTPTransport:
    """GETs JSON from one service (RM or JobHistory Server) reachable at several base URLs.

    Parameters
    ----------
    base_urls : str or sequence of str
        ``scheme://host:port`` of each RM in an HA pair (or of the one server), tried
        in order; a base path (behind a gateway) is kept.
    options : TransportOptions
        Timeouts, retries, TLS and authentication.
    rng : generator with ``uniform(low, high)``, optional
        Source of the backoff jitter (``numpy.random.default_rng()`` by default).
    sleep, clock : callables, optional
        ``time.sleep`` and ``time.monotonic`` by default; tests inject fakes.
    session : requests.Session, optional
        The session to use (a new one by default).
    """

    def __init__(
        self,
        base_urls: str | Sequence[str],
        options: TransportOptions | None = None,
        *,
        rng: Rng | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        session: requests.Session | None = None,
    ) -> None:
        urls = [base_urls] if isinstance(base_urls, str) else list(base_urls)
        if not urls:
            raise RMError("no ResourceManager address given")
        self.base_urls = tuple(_check_base_url(url) for url in urls)
        self.options = options if options is not None else TransportOptions()
        self.rng = rng if rng is not None else np.random.default_rng()
        self.sleep = sleep
        self.clock = clock
        self.active_url: str = self.base_urls[0]
        self.session = session if session is not None else requests.Session()
        self.session.headers["Accept"] = "application/json"
        # Passed with every request: a session-level value loses to REQUESTS_CA_BUNDLE.
        self.verify = self._verify()
        if self.options.kerberos:
            self.session.auth = spnego_auth()
        install_redaction("urllib3.connectionpool")

    def _verify(self) -> bool | str:
        if self.options.ca_bundle is not None:
            bundle = Path(self.options.ca_bundle)
            if not bundle.is_file():
                raise RMError(f"ca_bundle: {bundle}: no such file")
            return str(bundle)
        if not self.options.verify_tls:
            logger.warning("TLS certificate verification is OFF for %s", self._names())
        return self.options.verify_tls

    def _names(self) -> str:
        return ", ".join(redact(url) for url in self.base_urls)

    def close(self) -> None:
        """Release pooled connections."""
        self.session.close()

    def __enter__(self) -> HTTPTransport:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def url(self, path: str, params: Mapping[str, object] | None = None) -> str:
        """The full URL of `path` (with `params`) on the currently active server."""
        return _join(self.active_url, path, params)

    def get_json(self, path: str, params: Mapping[str, object] | None = None) -> object:
        """GET `path` (e.g. ``/ws/v1/cluster/metrics``) and decode the JSON body.

        Raises
        ------
        RMError
            No server answered with JSON within the retry policy, or one answered
            with an error that retrying cannot fix; one line naming the URL and cause.
        """
        return self.get(path, params).body

    def get(self, path: str, params: Mapping[str, object] | None = None) -> JSONResponse:
        """`get_json` that also returns the headers (the RM's ``Date``, its ``Server``)."""
        retry = self.options.retry
        started = self.clock()
        causes: list[str] = []
        rounds = 0
        for round_index in range(retry.max_attempts):
            if round_index:
                delay = retry.delay_s(round_index - 1, self.rng)
                if self.clock() - started + delay > retry.max_total_s:
                    causes.append(f"gave up after {retry.max_total_s:g} s")
                    break
                logger.info(
                    "retrying %s in %.2f s (round %d of %d)",
                    redact(self.url(path, params)),
                    delay,
                    round_index + 1,
                    retry.max_attempts,
                )
                self.sleep(delay)
            causes = []
            rounds += 1
            for base in self._rotation():
                url = _join(base, path, params)
                try:
                    return self._get_following_standby(base, path, params)
                except _Transient as failure:
                    logger.warning("%s: %s", redact(url), failure)
                    causes.append(f"{redact(url)}: {failure}")
        raise RMError(
            f"GET {path} failed after {rounds} round(s) over "
            f"{len(self.base_urls)} address(es); last: {'; '.join(causes[-2:])}"
        )

    def _rotation(self) -> list[str]:
        """Base URLs to try this round: the last active one first, then the others in order."""
        others = [url for url in self.base_urls if url != self.active_url]
        return [self.active_url, *others]

    def _get_following_standby(
        self, base: str, path: str, params: Mapping[str, object] | None
    ) -> JSONResponse:
        url = _join(base, path, params)
        for _ in range(MAX_REDIRECTS + 1):
            try:
                return self._get_once(url, path)
            except _Standby as standby:
                if standby.target is None:
                    raise _Transient("standby ResourceManager gave no active address") from None
                target = urljoin(url, standby.target)
                logger.info(
                    "%s is a standby ResourceManager; following it to %s",
                    redact(_origin(url)),
                    redact(_origin(target)),
                )
                url = target
        raise _Transient(f"more than {MAX_REDIRECTS} standby redirects")

    def _get_once(self, url: str, path: str) -> JSONResponse:
        timeout = (self.options.connect_timeout_s, self.options.read_timeout_s)
        logger.debug("GET %s", redact(url))
        try:
            response = self.session.get(
                url, timeout=timeout, allow_redirects=False, verify=self.verify
            )
            body = response.content
        except requests.exceptions.SSLError as error:
            raise RMError(f"{redact(url)}: TLS error: {request_cause(error)}") from None
        except requests.exceptions.Timeout:
            raise _Transient(
                f"timed out (connect {self.options.connect_timeout_s:g} s, "
                f"read {self.options.read_timeout_s:g} s)"
            ) from None
        except (
            requests.exceptions.ConnectionError,
            requests.exceptions.ChunkedEncodingError,
        ) as error:
            raise _Transient(f"connection failed: {request_cause(error)}") from None
        except requests.exceptions.RequestException as error:
            raise RMError(f"{redact(url)}: request failed: {request_cause(error)}") from None
        status = response.status_code
        if 300 <= status < 400:
            raise _Standby(response.headers.get("Location"))
        head = body[:4096].decode("utf-8", "replace")
        if not _looks_like_json(body) and (
            _STANDBY_MARKER in head.lower() or "Refresh" in response.headers
        ):
            raise _Standby(_standby_target(response.headers.get("Refresh", ""), head))
        if status >= 500:
            raise _Transient(f"HTTP {status} {response.reason or ''}".rstrip())
        if status >= 400:
            raise RMError(f"{redact(url)}: HTTP {status} {response.reason or ''}: {_snippet(head)}")
        active = _base_of(url, path)
        if active != self.active_url:
            logger.info("active server is now %s", redact(active))
            self.active_url = active
        try:
            text = body.decode("utf-8")  # JSON is UTF-8 (RFC 8259)
        except UnicodeDecodeError as error:
            raise RMError(f"{redact(url)}: response is not UTF-8 JSON: {error}") from None
        try:
            # Strict JSON first; the shared repair fixes only the comma typos seen in
            # Hadoop's own examples, and logs each repair.
            decoded = loads_lenient(text, source=redact(url))
        except TraceFormatError as error:
            raise RMError(str(error)) from None
        return JSONResponse(decoded, response.headers, url)


def _check_base_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RMError(
            f"{redact(url)}: expected an http:// or https:// address such as http://rm:8088"
        )
    return url.rstrip("/")


def _join(base: str, path: str, params: Mapping[str, object] | None) -> str:
    url = base.rstrip("/") + "/" + path.lstrip("/")
    query = {k: v for k, v in (params or {}).items() if v is not None}
    return url + ("?" + urlencode(query, safe=",") if query else "")


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _base_of(url: str, path: str) -> str:
    """The base URL of `url`: what precedes the API path (keeps a gateway prefix)."""
    parts = urlsplit(url)
    prefix = parts.path
    suffix = "/" + path.lstrip("/")
    if suffix != "/" and prefix.endswith(suffix):
        prefix = prefix[: -len(suffix)]
    elif suffix != "/":
        prefix = prefix[: prefix.find("/ws/")] if "/ws/" in prefix else ""
    return f"{parts.scheme}://{parts.netloc}{prefix}".rstrip("/")


def _standby_target(refresh: str, text: str) -> str | None:
    match = _REFRESH_URL.search(refresh)
    if match:
        return match.group("url")
    match = _BODY_URL.search(text)
    return match.group(0) if match else None


def _looks_like_json(body: bytes) -> bool:
    return body.lstrip()[:1] in (b"{", b"[")


def _snippet(text: str) -> str:
    return redact(" ".join(text.split())[:200]) or "(empty body)"


def request_cause(error: BaseException) -> str:
    """The innermost useful reason of a requests exception, redacted, on one line."""
    reason: object = error.args[0] if error.args else error
    reason = getattr(reason, "reason", None) or reason
    text = _OBJECT_REPR.sub("", str(reason)) or type(reason).__name__
    return redact(" ".join(text.split()))
