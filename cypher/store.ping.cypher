// params:
// Readiness probe: the database answers a trivial read.
RETURN 1 AS ok
