# $IDEMPOTENCY_KEY: 8–200 characters (letters, digits, . _ : -), derived from your own id for this product.
curl -sS -X POST "$BASE_URL/v1/checkout/products" \
  -H "x-api-key: $API_KEY" \
  -H "Idempotency-Key: $IDEMPOTENCY_KEY" \
  -H "Content-Type: application/json" \
  --data-binary '{}'
