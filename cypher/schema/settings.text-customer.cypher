// params:
// The customer of a Settings vertex in a text index, beside the uniqueness constraint's own index: a statement that
// writes reads settings through it (impression.count.cypher), which takes no lock, where a read through the
// constraint's index would lock the entry of a customer without settings until its commit.
CREATE TEXT INDEX settings_customer_text IF NOT EXISTS
FOR (settings:Settings) ON (settings.customer)
