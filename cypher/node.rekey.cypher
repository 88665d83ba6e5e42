// params: node, keyId
// Changes the node's key id (the idnode_key_unique constraint refuses a key in use).
MATCH (node:IdNode)
WHERE elementId(node) = $node
SET node.keyId = $keyId
