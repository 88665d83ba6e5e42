// params: timeoutSeconds
// Waits, at start-up, until the indexes and constraints just applied are online.
CALL db.awaitIndexes($timeoutSeconds)
