curl -sS "$BASE_URL/v1/banking/balance" \
  -H "x-api-key: $API_KEY"
