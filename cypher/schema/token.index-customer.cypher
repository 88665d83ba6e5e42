// params:
// Lists the tokens of a customer.
CREATE INDEX token_customer IF NOT EXISTS
FOR (token:Token) ON (token.customer)
