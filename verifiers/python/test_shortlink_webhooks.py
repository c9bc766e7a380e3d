"""Tests of shortlink_webhooks.py (standard library unittest): every case of verifiers/vectors.json,
the receiver's mistakes that do raise, the docstrings' examples, and, when
SHORTLINK_WEBHOOK_DELIVERIES names a file of deliveries a running Shortlink server signed (written
by test/webhooks/verifiers-other-languages.test.ts, in the vectors' format), each of those.

    python3 verifiers/python/test_shortlink_webhooks.py -v
"""

import base64
import doctest
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import shortlink_webhooks  # noqa: E402
from shortlink_webhooks import verify_variant_a, verify_variant_b  # noqa: E402

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vectors.json")


def load_cases(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["cases"]


def run_case(case):
    """What the verifier answers for one case (the vectors' fields, see test/support/webhook-vectors.ts)."""
    body = base64.b64decode(case["bodyBase64"])
    if case["variant"] == "A":
        extra = {"tolerance_seconds": case["toleranceSeconds"]} if "toleranceSeconds" in case else {}
        return verify_variant_a(body, case["header"], case["secret"], now=case["now"], **extra)
    return verify_variant_b(body, case["header"], case["secret"])


class Vectors(unittest.TestCase):
    def test_every_vector(self):
        cases = load_cases(VECTORS)
        self.assertGreater(len(cases), 50)
        for case in cases:
            with self.subTest(case["name"]):
                self.assertIs(run_case(case), case["expected"])

    def test_text_and_bytes_give_the_same_answer(self):
        # A str body is signed as its UTF-8 bytes, a str secret likewise.
        for case in load_cases(VECTORS):
            if "body" not in case:
                continue
            with self.subTest(case["name"]):
                as_text = dict(case, bodyBase64=base64.b64encode(case["body"].encode("utf-8")).decode("ascii"))
                self.assertIs(run_case(as_text), case["expected"])
                if case["variant"] == "B":
                    answer = verify_variant_b(case["body"], case["header"], case["secret"].encode("utf-8"))
                    self.assertIs(answer, case["expected"])


class ReceiverMistakes(unittest.TestCase):
    """Only what the receiver passes raises; nothing a sender sends does."""

    def test_no_secret_raises(self):
        for verify in (lambda s: verify_variant_a(b"{}", "t=1,v1=" + "0" * 64, s), lambda s: verify_variant_b(b"{}", "0" * 64, s)):
            with self.assertRaises(ValueError):
                verify("")
            with self.assertRaises(ValueError):
                verify(b"")
            with self.assertRaises(TypeError):
                verify(None)

    def test_parsed_json_raises(self):
        with self.assertRaises(TypeError):
            verify_variant_b({"id": "evt_1"}, "0" * 64, "whsec_x")

    def test_nan_tolerance_raises(self):
        with self.assertRaises(ValueError):
            verify_variant_a(b"{}", "t=1,v1=" + "0" * 64, "whsec_x", tolerance_seconds=float("nan"))

    def test_header_of_another_type_is_false(self):
        self.assertIs(verify_variant_b(b"{}", 123, "whsec_x"), False)
        self.assertIs(verify_variant_a(b"{}", ["t=1"], "whsec_x"), False)

    def test_header_as_bytes_is_read_as_latin_1(self):
        case = next(c for c in load_cases(VECTORS) if c["name"] == "B valid")
        body = base64.b64decode(case["bodyBase64"])
        self.assertIs(verify_variant_b(body, case["header"].encode("ascii"), case["secret"]), True)

    def test_now_as_datetime_and_default_clock(self):
        from datetime import datetime, timezone

        case = next(c for c in load_cases(VECTORS) if c["name"] == "A valid")
        body = base64.b64decode(case["bodyBase64"])
        at = datetime.fromtimestamp(case["now"] + 200, tz=timezone.utc)
        self.assertIs(verify_variant_a(body, case["header"], case["secret"], now=at), True)
        # The vectors are signed in 2026-01-01: the real clock is far from it.
        self.assertIs(verify_variant_a(body, case["header"], case["secret"]), False)
        self.assertIs(verify_variant_a(body, case["header"], case["secret"], now=float("inf")), False)


class Deliveries(unittest.TestCase):
    def test_deliveries_of_a_running_server(self):
        path = os.environ.get("SHORTLINK_WEBHOOK_DELIVERIES")
        if not path:
            self.skipTest("SHORTLINK_WEBHOOK_DELIVERIES not set")
        cases = load_cases(path)
        self.assertGreater(len(cases), 0)
        for case in cases:
            answer = run_case(case)
            # The calling test reads these lines, so it can tell every delivery was checked.
            print(f"delivery {case['name']}: {'true' if answer else 'false'}", flush=True)
            with self.subTest(case["name"]):
                self.assertIs(answer, case["expected"])


def load_tests(loader, tests, ignore):
    tests.addTests(doctest.DocTestSuite(shortlink_webhooks))
    return tests


if __name__ == "__main__":
    unittest.main()
