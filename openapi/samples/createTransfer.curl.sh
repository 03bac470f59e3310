# $IDEMPOTENCY_KEY: derived from your own id for this payment (e.g. the order's); store it BEFORE sending and
# reuse it only to retry this same request (timeout, network error, 502/504, temporary 503).
curl -sS -X POST "$BASE_URL/v1/banking/transfers" \
  -H "x-api-key: $API_KEY" \
  -H "Idempotency-Key: $IDEMPOTENCY_KEY" \
  -H "Content-Type: application/json" \
  --data-binary @- <<JSON
{"recipientId": "$RECIPIENT_ID", "amount": "150.00"}
JSON
