// The `_why` hub attack both stores are tested under (test/process/why-hub.test.ts on SQLite,
// test/neo4j/why-hub.neo4j.test.ts on Neo4j): 9,998 nodes each hold the shared device `fan` and a device of their
// own, and a hub holds all of those own devices, so from `where: fan` to the hub there are 9,998 equal one-hop chains.
import { waitFor } from './settling';

export const FANS = 9998;
export const ATTACKERS = 8;
export const VICTIM_SEARCHES = 40;

export const device = (id: string) => ({ type: 'device', id });
export const memberKey = (id: string) => ({ type: 'member_id', id });

/** The answer every `_why` from `fan` to the hub gives: the smallest via is own-0, held by n0 alone. */
export const HUB_CHAIN = {
  linked: true,
  hops: 1,
  path: [{ node: { schema: 'member', key: memberKey('n0') } }, { via: device('own-0') }, { node: { schema: 'member', key: memberKey('hub') } }],
};

/**
 * The hub graph as `_bulk` lines: the hub in lines of 999 IDs (a line holds at most 1,000), one every 900 fans, so
 * that no batch of lines applied together holds more than one of them (on Neo4j a batch of 100 lines holding ten,
 * 10,000 new IDs in one transaction, passed NEO4J_CALL_TIMEOUT_MS on a busy machine).
 */
export function hubGraph(): string {
  const own = Array.from({ length: FANS }, (_, i) => device(`own-${i}`));
  const hub = Array.from({ length: Math.ceil(FANS / 999) }, (_, k) =>
    JSON.stringify({ op: k === 0 ? 'create' : 'insert', body: { schema: 'member', key: memberKey('hub'), ids: own.slice(k * 999, (k + 1) * 999) } }),
  );
  const fans = own.map((ownDevice, i) =>
    JSON.stringify({ op: 'create', body: { schema: 'member', key: memberKey(`n${i}`), ids: [device('fan'), ownDevice] } }),
  );
  return hub.flatMap((line, k) => [line, ...fans.slice(k * 900, k === hub.length - 1 ? FANS : (k + 1) * 900)]).join('\n');
}

/** The milliseconds `work` takes. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

export const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;

type Answer = { status: number; json: unknown };

/** What the attack measured: each `_why` with /healthz probed beside it, the attackers' answers, the victim's searches. */
export interface WhyHubTimes {
  first: { ms: number };
  one: { ms: number };
  probes: number[];
  attackerAnswers: Answer[];
  victim: number[];
}

/**
 * A `_why` with /healthz asked back to back meanwhile, twice (the first starts what later ones find ready: a read
 * worker, the statements' plans); then ATTACKERS clients repeating it and, once each has had an answer, another
 * customer's searches one after the other (one first, unmeasured, as their app would have made one before).
 */
export async function whyUnderAttack(
  why: () => Promise<Answer>,
  healthz: () => Promise<{ ms: number; value: number }>,
  search: () => Promise<{ ms: number; value: Answer }>,
  { attackersAnsweredWithinMs }: { attackersAnsweredWithinMs: number },
): Promise<WhyHubTimes> {
  const probes: number[] = [];
  const probed = async () => {
    let answered = false;
    const asked = timed(why).finally(() => (answered = true));
    while (!answered) {
      const probe = await healthz();
      expect(probe.value).toBe(200);
      probes.push(probe.ms);
    }
    const answer = await asked;
    expect(answer.value).toEqual({ status: 200, json: HUB_CHAIN });
    return answer;
  };
  const first = await probed();
  const one = await probed();

  let attacking = true;
  const attackerAnswers: Answer[] = [];
  const attackers = Array.from({ length: ATTACKERS }, async () => {
    while (attacking) attackerAnswers.push(await why());
  });
  await waitFor('an answer for each attacker', () => attackerAnswers.length >= ATTACKERS, { timeoutMs: attackersAnsweredWithinMs, everyMs: 20 });
  expect((await search()).value.status).toBe(200);
  const victim: number[] = [];
  for (let i = 0; i < VICTIM_SEARCHES; i += 1) {
    const answer = await search();
    expect(answer.value.status).toBe(200);
    victim.push(answer.ms);
  }
  attacking = false;
  await Promise.all(attackers);
  return { first, one, probes, attackerAnswers, victim };
}
