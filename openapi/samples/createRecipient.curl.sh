# $IDEMPOTENCY_KEY: derived from your own id for this recipient; reuse it only to retry this same request.
curl -sS -X POST "$BASE_URL/v1/banking/recipients" \
  -H "x-api-key: $API_KEY" \
  -H "Idempotency-Key: $IDEMPOTENCY_KEY" \
  -H "Content-Type: application/json" \
  --data-binary @- <<JSON
{"rail": "brl_pix", "nickname": "Maria Souza (supplier)", "pixKey": "maria.souza@example.com"}
JSON
