// params: customer, requireToken, timezone
// Replaces the customer's settings (one Settings vertex per customer: settings_customer_unique).
MERGE (settings:Settings {customer: $customer})
SET settings.requireToken = $requireToken, settings.timezone = $timezone
