# $IDEMPOTENCY_KEY: 8–200 characters (letters, digits, . _ : -), derived from your own id for this cart.
curl -sS -X POST "$BASE_URL/v1/checkout/sessions" \
  -H "x-api-key: $API_KEY" \
  -H "Idempotency-Key: $IDEMPOTENCY_KEY" \
  -H "Content-Type: application/json" \
  --data-binary '{"amount": "37.45", "paymentMethod": "pix"}'
