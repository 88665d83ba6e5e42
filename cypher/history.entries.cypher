// params: elements
// The JSON of entries an erase has locked (history.mentioning.cypher): a statement of its own, so that it reads
// what is committed now that the locks are held. An entry retention deleted meanwhile is left out.
UNWIND $elements AS element
MATCH (entry:HistoryEntry)
WHERE elementId(entry) = element AND entry.entry IS NOT NULL
RETURN element, entry.entry AS entry
