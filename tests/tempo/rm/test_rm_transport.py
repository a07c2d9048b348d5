"""The HTTP transport against a real local server: retries, HA failover, timeouts, TLS, redaction."""

from __future__ import annotations

import dataclasses
import logging
import sys
import types

import numpy as np
import pytest
import requests
from fake_rm import FAST, Reply, rest_fixture

from tempo import RMError
from tempo.rm import RetryPolicy, TransportOptions

METRICS = "/ws/v1/cluster/metrics"


def test_get_json_decodes_the_response(rm_server, make_transport):
    """A 200 JSON answer is decoded and returned."""
    rm_server.script(METRICS, Reply(body=rest_fixture("rm-metrics.json")))
    body = make_transport(rm_server.url).get_json(METRICS)
    assert body["clusterMetrics"]["totalMB"] == 17408


def test_query_parameters_are_sent(rm_server, make_transport):
    """Parameters reach the server; None values are left out; commas stay literal."""
    rm_server.script("/ws/v1/cluster/apps", Reply(body='{"apps": null}'))
    make_transport(rm_server.url).get_json(
        "/ws/v1/cluster/apps", {"states": "FINISHED,KILLED", "queue": None, "limit": 5}
    )
    assert rm_server.seen[0].query == {"states": ["FINISHED,KILLED"], "limit": ["5"]}


def test_unreachable_rm_raises_after_bounded_retries(dead_url, make_transport, fake_time):
    """Connection refused is retried max_attempts rounds, then one RMError names the URL."""
    transport = make_transport(dead_url)
    with pytest.raises(RMError, match=r"failed after 3 round.*127\.0\.0\.1.*connection failed"):
        transport.get_json(METRICS)
    assert len(fake_time.sleeps) == 2


def test_http_500_then_success_is_retried(rm_server, make_transport, fake_time):
    """A 5xx is transient: the next round succeeds after one backoff."""
    rm_server.script(METRICS, Reply(500, "boom"), Reply(body=rest_fixture("rm-metrics.json")))
    body = make_transport(rm_server.url).get_json(METRICS)
    assert body["clusterMetrics"]["activeNodes"] == 1
    assert len(rm_server.seen) == 2 and len(fake_time.sleeps) == 1


def test_http_500_forever_raises_after_bounded_retries(rm_server, make_transport, fake_time):
    """A persistent 5xx gives exactly max_attempts requests and then an RMError with the status."""
    rm_server.script(METRICS, Reply(503, "down"))
    with pytest.raises(RMError, match=r"HTTP 503"):
        make_transport(rm_server.url).get_json(METRICS)
    assert len(rm_server.seen) == FAST.retry.max_attempts


def test_slow_response_times_out(rm_server, make_transport):
    """An answer slower than the read timeout is an RMError saying it timed out."""
    rm_server.script(METRICS, Reply(body="{}", delay_s=0.35))
    options = dataclasses.replace(FAST, retry=RetryPolicy(max_attempts=1))
    with pytest.raises(RMError, match=r"timed out \(connect 0.2 s, read 0.2 s\)"):
        make_transport(rm_server.url, options).get_json(METRICS)


def test_slow_then_fast_response_succeeds_on_retry(rm_server, make_transport):
    """A timeout is transient: the retry gets the answer."""
    rm_server.script(METRICS, Reply(body="{}", delay_s=0.35), Reply(body='{"ok": 1}'))
    assert make_transport(rm_server.url).get_json(METRICS) == {"ok": 1}


def test_truncated_json_is_an_error_without_retry(rm_server, make_transport):
    """A complete HTTP answer whose JSON is cut off is not retried and names the URL."""
    body = rest_fixture("rm-metrics.json")[:200]
    rm_server.script(METRICS, Reply(body=body))
    with pytest.raises(
        RMError, match=r"127\.0\.0\.1:\d+/ws/v1/cluster/metrics:\d+:\d+: invalid JSON"
    ):
        make_transport(rm_server.url).get_json(METRICS)
    assert len(rm_server.seen) == 1


def test_connection_cut_mid_body_is_retried(rm_server, make_transport):
    """A body shorter than its Content-Length (connection cut) is transient and retried."""
    rm_server.script(METRICS, Reply(body='{"clus', declared_length=500), Reply(body='{"ok": 2}'))
    assert make_transport(rm_server.url).get_json(METRICS) == {"ok": 2}


def test_client_error_is_not_retried(rm_server, make_transport, fake_time):
    """HTTP 404 is final: one request, an RMError with the status, no backoff."""
    with pytest.raises(RMError, match=r"/ws/v1/nothing: HTTP 404"):
        make_transport(rm_server.url).get_json("/ws/v1/nothing")
    assert len(rm_server.seen) == 1 and fake_time.sleeps == []


def test_standby_redirect_is_followed_and_remembered(rm_server, standby_server, make_transport):
    """A standby's 307 leads to the active RM, which later calls go to directly."""
    standby_server.script(
        METRICS, Reply(307, "This is standby RM.", {"Location": rm_server.url + METRICS})
    )
    rm_server.script(METRICS, Reply(body='{"ok": 3}'))
    transport = make_transport([standby_server.url, rm_server.url])
    assert transport.get_json(METRICS) == {"ok": 3}
    assert transport.get_json(METRICS) == {"ok": 3}
    assert transport.active_url == rm_server.url
    assert len(standby_server.seen) == 1 and len(rm_server.seen) == 2


def test_standby_page_with_refresh_header_is_followed(rm_server, standby_server, make_transport):
    """A 200 "This is standby RM" page with a Refresh header is followed to the active RM."""
    standby_server.script(
        METRICS,
        Reply(
            200,
            "This is standby RM. Redirecting to the current active RM: " + rm_server.url,
            {"Content-Type": "text/plain", "Refresh": f"3; url={rm_server.url}{METRICS}"},
        ),
    )
    rm_server.script(METRICS, Reply(body='{"ok": 4}'))
    transport = make_transport([standby_server.url, rm_server.url])
    assert transport.get_json(METRICS) == {"ok": 4}
    assert transport.active_url == rm_server.url


def test_standby_without_target_fails_over_to_next_address(
    rm_server, standby_server, make_transport, fake_time
):
    """A standby page naming no active RM moves on to the next configured address."""
    standby_server.script(
        METRICS, Reply(200, "This is standby RM.", {"Content-Type": "text/plain"})
    )
    rm_server.script(METRICS, Reply(body='{"ok": 5}'))
    transport = make_transport([standby_server.url, rm_server.url])
    assert transport.get_json(METRICS) == {"ok": 5}
    assert transport.active_url == rm_server.url and fake_time.sleeps == []


def test_dead_first_address_fails_over_without_backoff(
    dead_url, rm_server, make_transport, fake_time
):
    """HA: a dead first RM is skipped within the same round."""
    rm_server.script(METRICS, Reply(body='{"ok": 6}'))
    transport = make_transport([dead_url, rm_server.url])
    assert transport.get_json(METRICS) == {"ok": 6}
    assert fake_time.sleeps == [] and transport.active_url == rm_server.url


def test_json_body_mentioning_standby_is_not_a_standby_page(rm_server, make_transport):
    """Diagnostics text in a JSON answer that says "standby RM" is still data."""
    rm_server.script(METRICS, Reply(body='{"diagnostics": "This is standby RM"}'))
    assert make_transport(rm_server.url).get_json(METRICS) == {"diagnostics": "This is standby RM"}


def test_redirect_loop_is_bounded(rm_server, make_transport):
    """A server redirecting to itself forever ends in an RMError, not a hang."""
    rm_server.script(METRICS, Reply(307, "", {"Location": METRICS}))
    options = dataclasses.replace(FAST, retry=RetryPolicy(max_attempts=1))
    with pytest.raises(RMError, match="standby redirects"):
        make_transport(rm_server.url, options).get_json(METRICS)


def test_backoff_is_full_jitter_bounded_and_seeded(rm_server, make_transport, fake_time):
    """Delays are uniform in [0, min(cap, base*2**k)] and reproducible under a seed."""
    rm_server.script(METRICS, Reply(500))
    policy = RetryPolicy(max_attempts=6, base_delay_s=0.5, max_delay_s=2.0, max_total_s=1e9)
    options = dataclasses.replace(FAST, retry=policy)
    with pytest.raises(RMError):
        make_transport(rm_server.url, options, rng=np.random.default_rng(1)).get_json(METRICS)
    caps = [0.5, 1.0, 2.0, 2.0, 2.0]
    assert all(0 <= d <= c for d, c in zip(fake_time.sleeps, caps, strict=True))
    rng = np.random.default_rng(1)
    assert fake_time.sleeps == [rng.uniform(0, c) for c in caps]


def test_total_retry_time_is_bounded(rm_server, make_transport, fake_time):
    """No retry round starts past max_total_s, however many attempts remain."""
    rm_server.script(METRICS, Reply(500))
    policy = RetryPolicy(max_attempts=100, base_delay_s=1.0, max_delay_s=1.0, max_total_s=3.0)
    with pytest.raises(RMError, match=r"failed after \d+ round\(s\).*gave up after 3 s"):
        make_transport(rm_server.url, dataclasses.replace(FAST, retry=policy)).get_json(METRICS)
    assert sum(fake_time.sleeps) <= 3.0 and len(rm_server.seen) < 100


def test_credentials_and_tokens_never_logged(rm_server, make_transport, caplog):
    """user:password and a delegation token appear in no log line and no error message."""
    rm_server.script(METRICS, Reply(500))
    secret_url = rm_server.url.replace("http://", "http://alice:hunter2@")
    caplog.set_level(logging.DEBUG)
    with pytest.raises(RMError) as caught:
        make_transport(secret_url).get_json(METRICS, {"delegation": "TOKEN123", "limit": 1})
    assert rm_server.seen[0].query["delegation"] == ["TOKEN123"]
    text = caplog.text + str(caught.value)
    assert "GET" in caplog.text and "delegation=***" in text
    assert "hunter2" not in text and "TOKEN123" not in text


def test_kerberos_without_extra_is_a_clear_error(rm_server, monkeypatch):
    """kerberos=True without requests-gssapi names the extra to install."""
    from tempo.rm import HTTPTransport

    monkeypatch.setitem(sys.modules, "requests_gssapi", None)
    with pytest.raises(RMError, match=r"tempo-yarn\[kerberos\]"):
        HTTPTransport(rm_server.url, TransportOptions(kerberos=True))


def test_kerberos_uses_spnego_auth(rm_server, make_transport, monkeypatch):
    """kerberos=True authenticates every request with requests-gssapi's SPNEGO auth."""

    class FakeSPNEGO(requests.auth.AuthBase):
        def __init__(self, mutual_authentication: object) -> None:
            self.mutual = mutual_authentication

        def __call__(self, request):
            request.headers["Authorization"] = "Negotiate ZmFrZQ=="
            return request

    fake = types.SimpleNamespace(HTTPSPNEGOAuth=FakeSPNEGO, OPTIONAL="optional")
    monkeypatch.setitem(sys.modules, "requests_gssapi", fake)
    rm_server.script(METRICS, Reply(body="{}"))
    make_transport(rm_server.url, dataclasses.replace(FAST, kerberos=True)).get_json(METRICS)
    assert rm_server.seen[0].headers["Authorization"] == "Negotiate ZmFrZQ=="


def test_missing_ca_bundle_is_a_clear_error(rm_server, tmp_path):
    """A ca_bundle path that does not exist is named in the error."""
    from tempo.rm import HTTPTransport

    missing = tmp_path / "ca.pem"
    with pytest.raises(RMError, match=r"ca_bundle: .*ca\.pem: no such file"):
        HTTPTransport(rm_server.url, TransportOptions(ca_bundle=missing))


def test_tls_verification_off_is_logged(rm_server, make_transport, caplog):
    """Turning verification off is allowed but warned about."""
    make_transport(rm_server.url, dataclasses.replace(FAST, verify_tls=False))
    assert "TLS certificate verification is OFF" in caplog.text


@pytest.mark.parametrize(
    "url", ["rm:8088", "ftp://rm:21", "http://"], ids=["no-scheme", "ftp", "no-host"]
)
def test_bad_base_url_is_rejected(url):
    """A base URL must be http(s)://host[:port]."""
    from tempo.rm import HTTPTransport

    with pytest.raises(RMError, match="expected an http:// or https:// address"):
        HTTPTransport(url)


def test_retry_policy_rejects_nonsense():
    """max_attempts below 1 is refused, naming the field."""
    with pytest.raises(RMError, match="max_attempts"):
        RetryPolicy(max_attempts=0)


def _self_signed(tmp_path):
    """A self-signed certificate for 127.0.0.1 and its key, as PEM files."""
    crypto = pytest.importorskip("cryptography")
    del crypto
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "rm.pem", tmp_path / "rm.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def tls_server(rm_server, tmp_path):
    """The scripted server behind TLS with a self-signed certificate; yields (server, cert)."""
    import ssl

    cert, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    rm_server.httpd.socket = context.wrap_socket(rm_server.httpd.socket, server_side=True)
    rm_server.script(METRICS, Reply(body='{"ok": 7}'))
    return rm_server, cert


def test_tls_is_verified_by_default(tls_server, make_transport):
    """An https RM with an unknown certificate is refused at once (no retry) with a TLS error."""
    server, _ = tls_server
    with pytest.raises(RMError, match=r"https://127\.0\.0\.1:\d+/ws/v1/cluster/metrics: TLS error"):
        make_transport(server.url.replace("http://", "https://")).get_json(METRICS)


def test_ca_bundle_trusts_the_rm_certificate(tls_server, make_transport):
    """With its CA in ca_bundle, the same https RM answers."""
    server, cert = tls_server
    options = dataclasses.replace(FAST, ca_bundle=cert)
    transport = make_transport(server.url.replace("http://", "https://"), options)
    assert transport.get_json(METRICS) == {"ok": 7}
