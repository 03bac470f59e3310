#!/usr/bin/env python3
"""One payment through the Payments API, the careful way, in Python 3.8+ with the standard library only.

A client program for `payments-contract-kit client -- python3 examples/python-client/pay.py`: it reads the
payment to make from its environment (PAYMENTS_BASE_URL, PAYMENTS_API_KEY, PAYMENTS_OPERATION,
PAYMENTS_RECIPIENT_ID, PAYMENTS_SCENARIO) and follows the provider's rules (sections 3 and 7):

- one Idempotency-Key per payment, derived from the payment's own stable id, on every attempt: never a new
  key after an unknown outcome (a timeout, a dropped connection, the edge's 502/504, a 5xx);
- after a transfer's temporary 503, at least 60 s before the retry, then longer waits with jitter;
- after a rate limit (429, or a card's 503 provider_rate_limited), exactly its Retry-After;
- no retry of a definite answer (a 4xx, checkout_pix_not_available); a transfer pending review is asked
  about again later with the same key, never paid again under a new one.

With `--test-clock` the kit also sets PAYMENTS_ORGANIZATION_ID, SANDBOX_URL and SANDBOX_ADMIN_TOKEN: a wait
then advances the sandbox's clock for the organization instead of sleeping, so 60-second rules take
milliseconds. `python3 pay.py --rules` prints what it takes from the spec (paths, retry rules, the codes it
names) as JSON: a test compares them with the spec's, so they cannot drift from it.

Exit 0: paid. 1: not paid (the reason on stdout). 2: usage.
"""
import http.client
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request
import uuid

# What is retried, by status or by code (a code's entry wins over its status's), and the spec's minimum wait
# after a temporary 503: the same values as @payments/client's generated/spec-rules.ts (`retryOn`,
# `unavailableMinDelayMs`), which reads them from the OpenAPI document. "backoff": outcome unknown;
# "unavailable": a temporary 503; "retryAfter": a rate limit; False: a definite answer.
RETRY_ON = {
    "*": {"429": "retryAfter", "502": "backoff", "503": "unavailable", "504": "backoff"},
    "createCheckoutSession": {"checkout_pix_not_available": False},
}
UNAVAILABLE_MIN_DELAY_MS = {"createTransfer": 60000}
# Ours, from the provider's prose (section 7): a card's provider_rate_limited waits exactly its Retry-After.
OWN_RETRY_ON = {"issueCard": {"provider_rate_limited": "retryAfter"}}

# @payments/client's KEY_NAMESPACE and its name format: both derive the same key for one payment.
KEY_NAMESPACE = uuid.UUID("3a8f7c52-9d1e-4b6a-8f2c-5e7d9a1b3c40")

PATHS = {"createTransfer": "/v1/banking/transfers", "issueCard": "/v1/cards", "createCheckoutSession": "/v1/checkout/sessions"}
# The 409 of a transfer attempt still being confirmed (section 3): ask again later with the SAME key.
PENDING_REVIEW = {"status": 409, "code": "banking_transfer_attempt_pending_review"}
# Our own waits, as @payments/client's defaults: transfers wait out provider outages longer.
MAX_ATTEMPTS = {"createTransfer": 10}  # else 5
DEADLINE_MS = {"createTransfer": 30 * 60000}  # else 2 minutes
MAX_DELAY_MS = {"createTransfer": 10 * 60000}  # else 30 s
BASE_DELAY_MS, TIMEOUT_S = 500, 30


def derive_key(operation, stable_id, namespace=KEY_NAMESPACE):
    """UUIDv5 of "<UTF-8 length of operation>:<operation>:<stable id>", as deriveIdempotencyKey() makes it."""
    return str(uuid.uuid5(namespace, f"{len(operation.encode('utf-8'))}:{operation}:{stable_id}"))


class Clock:
    """Real time, or the sandbox's test clock for the organization (advanced by each wait)."""

    def __init__(self, env):
        self.env = env
        self.virtual = env.get("PAYMENTS_ORGANIZATION_ID") is not None
        self.now_ms = time.time() * 1000

    def now(self):
        return self.now_ms if self.virtual else time.time() * 1000

    def sleep(self, ms):
        if not self.virtual:
            return time.sleep(ms / 1000)
        self.now_ms += ms
        url = f"{self.env['SANDBOX_URL']}/admin/organizations/{self.env['PAYMENTS_ORGANIZATION_ID']}/clock/advance"
        body = json.dumps({"milliseconds": round(ms)}).encode()
        headers = {"authorization": "Bearer " + self.env["SANDBOX_ADMIN_TOKEN"], "content-type": "application/json"}
        urllib.request.urlopen(urllib.request.Request(url, body, headers, method="POST"), timeout=TIMEOUT_S).read()


def send(base_url, api_key, operation, body, key):
    """One attempt: (status, code, retry_after_ms, body), or (None, None, None, error) when no answer came."""
    headers = {"x-api-key": api_key, "Idempotency-Key": key, "content-type": "application/json"}
    request = urllib.request.Request(base_url + PATHS[operation], json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return response.status, None, None, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return error_answer(err)
    except (OSError, http.client.HTTPException, ValueError) as err:  # refused, reset, dropped, timed out, cut off
        return None, None, None, err


def error_answer(err):
    """A non-2xx answer: its status, the error body's code (None without one: the edge's HTML page), Retry-After."""
    try:
        text = err.read()
    except (OSError, http.client.HTTPException) as cut:  # the body was cut off: no answer after all
        return None, None, None, cut
    try:
        answer = json.loads(text)
    except ValueError:
        answer = None
    code = answer.get("code") if isinstance(answer, dict) else None
    retry_after = (err.headers.get("retry-after") or "").strip()
    retry_after_ms = int(retry_after) * 1000 if retry_after.isdigit() else None
    return err.code, code, retry_after_ms, answer


def mode_of(operation, status, code):
    """The retry mode of an answer: its code's entry, else its status's (None: not retried)."""
    rules = {**RETRY_ON["*"], **RETRY_ON.get(operation, {}), **OWN_RETRY_ON.get(operation, {})}
    return rules[code] if code in rules else rules.get(str(status))


def delay_ms(operation, mode, attempt, unavailable_count, retry_after_ms):
    """How long to wait before the next attempt, by mode; None when the answer is final."""
    max_delay = MAX_DELAY_MS.get(operation, 30000)
    backoff = min(max_delay, BASE_DELAY_MS * 2 ** (attempt - 1))
    jittered = backoff / 2 + random.random() * backoff / 2
    if mode == "backoff":
        return jittered
    if mode == "retryAfter":
        return retry_after_ms if retry_after_ms is not None else jittered
    if mode == "unavailable":
        minimum = UNAVAILABLE_MIN_DELAY_MS.get(operation, 1000)
        nominal = max(minimum, min(max_delay, minimum * 2 ** unavailable_count))
        return max(retry_after_ms or 0, nominal + random.random() * nominal * 0.25)  # jitter only upwards
    return None


def pay(env, clock):
    operation, scenario = env["PAYMENTS_OPERATION"], env.get("PAYMENTS_SCENARIO", "payment")
    body = {
        "createTransfer": {"recipientId": env.get("PAYMENTS_RECIPIENT_ID"), "amount": "150.00"},
        "issueCard": {},
        "createCheckoutSession": {"amount": "37.45", "paymentMethod": "pix"},
    }[operation]
    key = derive_key(operation, "order-" + scenario)  # the same on every attempt and every run
    started, unavailable_count = clock.now(), 0
    for attempt in range(1, MAX_ATTEMPTS.get(operation, 5) + 1):
        status, code, retry_after_ms, answer = send(env["PAYMENTS_BASE_URL"], env["PAYMENTS_API_KEY"], operation, body, key)
        if status is not None and status < 300:
            return 0, f"{scenario}: paid ({answer.get('id')})"
        if status == PENDING_REVIEW["status"] and code == PENDING_REVIEW["code"]:
            return 1, f"{scenario}: pending review; ask again later with the same key {key}, never a new one"
        mode = "backoff" if status is None else mode_of(operation, status, code)  # no answer: outcome unknown
        if mode is None and status >= 500:
            mode = "backoff"  # another 5xx: outcome unknown too
        wait = delay_ms(operation, mode, attempt, unavailable_count, retry_after_ms)
        if wait is None:
            return 1, f"{scenario}: {status} {code}, a definite answer: not retried"
        if clock.now() - started + wait > DEADLINE_MS.get(operation, 2 * 60000):
            break
        unavailable_count += mode == "unavailable"
        clock.sleep(wait)
    return 1, f"{scenario}: outcome still unknown; retry later with the same key {key}"


def main(argv, env):
    if argv[1:] == ["--rules"]:
        print(json.dumps({"paths": PATHS, "retryOn": RETRY_ON, "unavailableMinDelayMs": UNAVAILABLE_MIN_DELAY_MS, "ownRetryOn": OWN_RETRY_ON, "pendingReview": PENDING_REVIEW}))
        return 0
    if len(argv) == 4 and argv[1] == "--derive":
        print(derive_key(argv[2], argv[3]))
        return 0
    missing = [name for name in ("PAYMENTS_BASE_URL", "PAYMENTS_API_KEY", "PAYMENTS_OPERATION") if not env.get(name)]
    if argv[1:] or missing or env["PAYMENTS_OPERATION"] not in PATHS:
        needs = ", ".join(missing or ["a known PAYMENTS_OPERATION"])
        print(f"usage: pay.py [--rules | --derive OPERATION STABLE_ID], with {needs} in the environment", file=sys.stderr)
        return 2
    code, message = pay(env, Clock(env))
    print(message)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv, os.environ))
