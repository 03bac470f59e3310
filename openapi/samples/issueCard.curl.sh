# $IDEMPOTENCY_KEY: derived from your own id for this card; reuse it only to retry this same request.
curl -sS -X POST "$BASE_URL/v1/cards" \
  -H "x-api-key: $API_KEY" \
  -H "Idempotency-Key: $IDEMPOTENCY_KEY" \
  -H "Content-Type: application/json" \
  --data-binary '{}'
