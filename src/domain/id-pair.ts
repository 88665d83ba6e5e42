// One identifier, in a file of its own so that what model.ts names (the blocklist's rules) can name it too.

/** One identifier: a (type, id) pair. */
export interface IdPair {
  type: string;
  id: string;
}
