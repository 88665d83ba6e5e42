// Reading back the JSON texts a store wrote itself (delivery documents, history's ID lists, blocklist rules).

/**
 * `json`, parsed as the T it was written from: the store made it with JSON.stringify of a T, in a column or property
 * only the store writes, so no input reaches it unchecked. The one place that trusts a stored text's shape, rather
 * than a cast in every reader; what clients send is checked by the contract's validators instead.
 */
export function parseStored<T>(json: string): T {
  return JSON.parse(json) as T;
}
