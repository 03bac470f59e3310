curl -sS "$BASE_URL/v1/banking/transfers/$TRANSFER_ID" \
  -H "x-api-key: $API_KEY"
