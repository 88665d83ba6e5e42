// RecentMapiTokens (src/store/neo4j/neo4j-tokens.ts): which token lookups of the Neo4j store read the graph, and
// which a token an earlier lookup found answers.
import type { StoredToken } from '../../src/domain/ports/tokens';
import { RecentMapiTokens } from '../../src/store/neo4j/neo4j-tokens';

const token = (kind: 'mapi' | 'bearer', tokenHash: string): StoredToken => ({
  tokenId: `tok-${tokenHash}`,
  customerId: 'acme',
  kind,
  label: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  tokenHash,
});

/** A graph of `tokens` (changed by the test between lookups), and the hashes read from it. */
function graphOf(tokens: Map<string, StoredToken>) {
  const reads: string[] = [];
  const recent = new RecentMapiTokens(async (tokenHash) => {
    reads.push(tokenHash);
    return tokens.get(tokenHash);
  });
  return { recent, reads };
}

test('when a mapi token was found, then a lookup a recent answer will do for is answered without a read, and a plain one reads it', async () => {
  const tokens = new Map([['m', token('mapi', 'm')]]);
  const { recent, reads } = graphOf(tokens);
  expect(await recent.find('m', { recent: true })).toEqual(token('mapi', 'm'));
  expect(await recent.find('m', { recent: true })).toEqual(token('mapi', 'm'));
  expect(await recent.find('m')).toEqual(token('mapi', 'm'));
  expect(reads).toEqual(['m', 'm']);
});

test('when a plain lookup no longer finds a mapi token, then it is forgotten: the next recent lookup reads it', async () => {
  const tokens = new Map([['m', token('mapi', 'm')]]);
  const { recent, reads } = graphOf(tokens);
  await recent.find('m');
  tokens.delete('m');
  expect(await recent.find('m', { recent: true })).toEqual(token('mapi', 'm'));
  expect(await recent.find('m')).toBeUndefined();
  expect(await recent.find('m', { recent: true })).toBeUndefined();
  expect(reads).toEqual(['m', 'm', 'm']);
});

test('when a bearer token is found, then it is not kept: no statement checks a bearer token again', async () => {
  const { recent, reads } = graphOf(new Map([['b', token('bearer', 'b')]]));
  await recent.find('b', { recent: true });
  await recent.find('b', { recent: true });
  expect(reads).toEqual(['b', 'b']);
});
