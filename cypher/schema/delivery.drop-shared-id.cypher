// params:
// Drops the constraint from when delivery ids were unique across customers: they are numbered per customer now
// (delivery.unique-customer-id).
DROP CONSTRAINT delivery_id_unique IF EXISTS
