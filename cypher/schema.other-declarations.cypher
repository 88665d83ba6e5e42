// params: customer, schemaId, idTypes
// How the other schemas of the customer declare the types of `idTypes`: one row per declared type and other schema
// that declares it, in declaration order and then by schema id (the order SQLite reports conflicts in). The
// options live on the customer's IdType vertex, one value per type (docs/keeping-people-apart.md); a vertex stored before
// `links` existed has none, which means true. The store decides secure_flag_conflict and type_option_conflict.
UNWIND range(0, size($idTypes) - 1) AS position
WITH position, $idTypes[position] AS declared
MATCH (idType:IdType {customer: $customer, name: declared.type})<-[:DECLARES]-(other:Schema)
WHERE other.schemaId <> $schemaId
RETURN other.schemaId AS schemaId,
       {type: idType.name, secure: idType.secure, links: coalesce(idType.links, true), maxHolders: idType.maxHolders} AS declaration
ORDER BY position, schemaId
