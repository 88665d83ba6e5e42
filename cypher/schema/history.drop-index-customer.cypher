// params:
// Drops the index on the customer of history entries that earlier versions' erase read every entry of the
// customer through; it finds them by history_mention now, and nothing else reads entries by customer alone.
DROP INDEX history_customer IF EXISTS
