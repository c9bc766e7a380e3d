"""Reference verifier of Shortlink webhooks for Python receivers: one file, standard library only.

Copy this file into your project. It implements "Verifying a delivery" of both contracts,
asyncapi/variant-a.yaml (header ``X-Webhook-Signature: t=<unix seconds>,v1=<hex>``) and
asyncapi/variant-b.yaml (header ``X-Service-Signature: <hex>``), with the same answers as the
JavaScript reference (src/webhooks/verify.mjs, ``shortlink/webhooks``) and the Go one
(verifiers/go/shortlinkwebhooks/verify.go): all three are tested against the same vectors,
verifiers/vectors.json (tests: verifiers/python/test_shortlink_webhooks.py), and in CI against
deliveries a running Shortlink server signed (test/webhooks/verifiers-other-languages.test.ts).

Both functions take the RAW request body, the bytes as received, before any JSON parsing
(re-serialised JSON is not the signed bytes), and return True or False. They never raise for
what a sender controls (a missing, malformed or wrong header, a tampered or non-UTF-8 body).
They raise only for the receiver's own mistakes: no secret or an empty one, or a body that is
not bytes (for example the parsed JSON).

Flask::

    import json, os
    from flask import Flask, abort, request
    from shortlink_webhooks import verify_variant_a

    app = Flask(__name__)

    @app.post("/hooks/shortlink")
    def shortlink_hook():
        raw = request.get_data()  # the raw bytes; read them before request.get_json()
        if not verify_variant_a(raw, request.headers.get("X-Webhook-Signature"), os.environ["SHORTLINK_SECRET"]):
            abort(400)
        event = json.loads(raw)
        # Deliveries are at-least-once: deduplicate on event + data.id (asyncapi/variant-a.yaml).
        return "", 204

http.server (Variant B)::

    import json, os
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from shortlink_webhooks import verify_variant_b

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if not verify_variant_b(raw, self.headers.get("X-Service-Signature"), os.environ["SHORTLINK_SECRET"]):
                self.send_response(400)
                self.end_headers()
                return
            event = json.loads(raw)
            # Retries and replays repeat a delivery: deduplicate on X-Service-Delivery-Id.
            self.send_response(204)
            self.end_headers()

    HTTPServer(("", 3000), Hook).serve_forever()
"""

import hashlib
import hmac
import math
import re
import time
from datetime import datetime

__all__ = ["DEFAULT_TOLERANCE_SECONDS", "verify_variant_a", "verify_variant_b"]

#: How far Variant A's ``t`` may be from the receiver's clock, in seconds (asyncapi/variant-a.yaml).
DEFAULT_TOLERANCE_SECONDS = 300

# fullmatch only: with re.match, "$" would also match before a final newline. In a str pattern
# [0-9] is ASCII only, unlike \d or str.isdigit(), which take "١٧٦" for digits.
_HEX_DIGEST = re.compile(r"[0-9a-f]{64}")
_UNIX_SECONDS = re.compile(r"[0-9]{1,12}")

# The characters JavaScript's String.prototype.trim removes, which the JavaScript reference
# trims each part with. str.strip() without arguments differs (it also removes U+001C..U+001F
# and U+0085 and keeps U+FEFF), so the set is spelled out to give the same answers.
_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_LOWER_HEX = str.maketrans("ABCDEF", "abcdef")


def _secret_bytes(secret):
    if isinstance(secret, str):
        secret = secret.encode("utf-8")
    elif isinstance(secret, (bytes, bytearray, memoryview)):
        secret = bytes(secret)
    else:
        raise TypeError("a webhook secret (non-empty str or bytes) is required")
    if not secret:
        raise ValueError("a webhook secret (non-empty str or bytes) is required")
    return secret


def _body_bytes(raw_body):
    if isinstance(raw_body, (bytes, bytearray, memoryview)):
        return bytes(raw_body)
    if isinstance(raw_body, str):
        # A text body is signed as its UTF-8 bytes (as the JavaScript reference does). A body
        # decoded with errors="surrogateescape" gets its original bytes back.
        try:
            return raw_body.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return None
    raise TypeError("pass the raw request body (bytes, as received), not the parsed JSON")


def _header_text(signature_header):
    # HTTP header values are bytes on the wire; frameworks that hand them over undecoded get
    # the same text WSGI would give (ISO-8859-1).
    if isinstance(signature_header, (bytes, bytearray)):
        return bytes(signature_header).decode("latin-1")
    return signature_header if isinstance(signature_header, str) else None


def verify_variant_a(raw_body, signature_header, secret, tolerance_seconds=DEFAULT_TOLERANCE_SECONDS, now=None):
    """Check a Variant A delivery: ``X-Webhook-Signature: t=<unix seconds>,v1=<hex>``.

    True when one ``v1`` equals the lower-case hex of HMAC-SHA256(secret, "<t>." + raw body),
    compared in constant time, and ``t`` is at most ``tolerance_seconds`` (default 300) from
    ``now``: seconds since the epoch (int or float) or an aware datetime; default the current
    time. Several ``v1`` may be given (one right is enough); unknown keys are ignored; a second
    ``t``, a ``t`` that is not 1 to 12 ASCII digits, or a part without "=" makes it False.

    >>> import hashlib, hmac
    >>> body = b'{"event":"link.created"}'
    >>> v1 = hmac.new(b"whsec_x", b"1767268800." + body, hashlib.sha256).hexdigest()
    >>> verify_variant_a(body, "t=1767268800,v1=" + v1, "whsec_x", now=1767268800 + 299)
    True
    >>> verify_variant_a(body, "t=1767268800,v1=" + v1, "whsec_x", now=1767268800 + 301)
    False
    """
    key = _secret_bytes(secret)
    body = _body_bytes(raw_body)
    if isinstance(tolerance_seconds, bool) or not isinstance(tolerance_seconds, (int, float)):
        raise TypeError("tolerance_seconds must be a number of seconds")
    if tolerance_seconds != tolerance_seconds:
        # NaN would compare false with every age and so accept any t.
        raise ValueError("tolerance_seconds must not be NaN")
    if now is None:
        now_seconds = time.time()
    elif isinstance(now, datetime):
        now_seconds = now.timestamp()
    elif isinstance(now, (int, float)) and not isinstance(now, bool):
        now_seconds = now
    else:
        raise TypeError("now must be seconds since the epoch or a datetime")
    if isinstance(now_seconds, float) and not math.isfinite(now_seconds):
        return False
    header = _header_text(signature_header)
    if header is None or body is None:
        return False

    t = None
    candidates = []
    for part in header.split(","):
        name, eq, value = part.partition("=")
        if not eq:
            return False
        name = name.strip(_WHITESPACE)
        value = value.strip(_WHITESPACE)
        if name == "t":
            if t is not None or not _UNIX_SECONDS.fullmatch(value):
                return False
            t = value
        elif name == "v1":
            # A v1 that is not 64 lower-case hex digits is skipped, not fatal: another v1 (a
            # rotated secret's) may still match.
            if _HEX_DIGEST.fullmatch(value):
                candidates.append(value)
    if t is None or not candidates:
        return False
    if abs(now_seconds - int(t)) > tolerance_seconds:
        return False
    # t is signed as it was sent (its digits, leading zeros and all), not as a number.
    expected = hmac.new(key, t.encode("ascii") + b"." + body, hashlib.sha256).hexdigest()
    matched = False
    # Every candidate is compared, so the time taken does not tell which one matched.
    for candidate in candidates:
        matched = hmac.compare_digest(expected, candidate) or matched
    return matched


def verify_variant_b(raw_body, signature_header, secret):
    """Check a Variant B delivery: ``X-Service-Signature: <hex HMAC-SHA256(secret, raw body)>``.

    The hex may be in either case; surrounding whitespace is ignored; the comparison takes
    constant time. False for a missing, malformed or wrong header or a tampered body.

    >>> import hashlib, hmac
    >>> body = b'{"id":"evt_1","type":"link.created"}'
    >>> signature = hmac.new(b"whsec_x", body, hashlib.sha256).hexdigest()
    >>> verify_variant_b(body, signature, "whsec_x"), verify_variant_b(body + b" ", signature, "whsec_x")
    (True, False)
    """
    key = _secret_bytes(secret)
    body = _body_bytes(raw_body)
    header = _header_text(signature_header)
    if header is None or body is None:
        return False
    given = header.strip(_WHITESPACE).translate(_LOWER_HEX)
    if not _HEX_DIGEST.fullmatch(given):
        return False
    return hmac.compare_digest(hmac.new(key, body, hashlib.sha256).hexdigest(), given)
