// Showing messages on SQLite (docs/deliveries.md): eligibility and impressions, over the deliveries' tables
// (./sqlite-deliveries.ts) and the person's component (./sqlite-search.ts). Each method runs inside a transaction
// the store opens (src/store/sqlite/sqlite-store.ts).
import type Database from 'better-sqlite3';
import {
  deliveryNotFound,
  type EligibilityState,
  type ImpressionOutcome,
  type ImpressionRequest,
  type PersonCounts,
  type PersonRequest,
  type Delivery,
} from '../../domain/deliveries';
import { isDomainError } from '../../domain/errors';
import { refuseOverCap } from '../../domain/showing';
import { mapiTokenRevoked, personTooLarge } from '../../domain/refusals';
import type { SqliteDeliveries } from './sqlite-deliveries';
import { PERSON_SEARCH, type SqliteSearch } from './sqlite-search';

/** A person's impressions of one delivery: [delivery_id, total, on the day]. */
type ImpressionsRow = [deliveryId: number, total: number, today: number];
/** The day counted, and the one delivery asked about (null: all). */
type ImpressionsOf = { customer: string; day: string; delivery: number | null };

export class SqliteShowing {
  private readonly s;

  constructor(
    db: Database.Database,
    private readonly deliveries: SqliteDeliveries,
    private readonly reader: SqliteSearch,
  ) {
    this.s = {
      // PersonRequest.mapiToken: still an active mapi token of the customer.
      mapiTokenActive: db
        .prepare<[tokenHash: string, customerId: string], 1>(
          "SELECT 1 FROM tokens WHERE token_hash = ? AND customer_id = ? AND kind = 'mapi' AND revoked_at IS NULL",
        )
        .pluck(),
      // A person's impressions per delivery (one delivery's, when @delivery is not null): the counts recorded
      // against the person's IDs, by their ids rows (a range of the primary key each), or against the one ID no node holds.
      impressionsOfIdPks: db
        .prepare<ImpressionsOf & { pks: string }, ImpressionsRow>(
          'SELECT c.delivery_id, SUM(c.count), SUM(CASE WHEN c.day = @day THEN c.count ELSE 0 END) ' +
            'FROM ids i JOIN impression_counts c ON c.customer_id = i.customer_id AND c.id_type = i.type AND c.id_value = i.value ' +
            'WHERE i.id_pk IN (SELECT value FROM json_each(@pks)) AND (@delivery IS NULL OR c.delivery_id = @delivery) GROUP BY c.delivery_id',
        )
        .raw(),
      impressionsOfId: db
        .prepare<ImpressionsOf & { type: string; value: string }, ImpressionsRow>(
          'SELECT delivery_id, SUM(count), SUM(CASE WHEN day = @day THEN count ELSE 0 END) FROM impression_counts ' +
            'WHERE customer_id = @customer AND id_type = @type AND id_value = @value AND (@delivery IS NULL OR delivery_id = @delivery) GROUP BY delivery_id',
        )
        .raw(),
    };
  }

  /** invalid_token when the call's mapi token is active no more (PersonRequest.mapiToken). */
  private refuseRevokedToken(person: PersonRequest): void {
    if (person.mapiToken !== undefined && this.s.mapiTokenActive.get(person.mapiToken, person.customerId) === undefined) throw mapiTokenRevoked();
  }

  /** Store.eligibility. Call inside one read transaction: the counts of the deliveries and of the person agree. */
  eligibility(person: PersonRequest, day: string, showable: (delivery: Delivery) => boolean): EligibilityState {
    this.refuseRevokedToken(person);
    const { shown: deliveries, others } = this.deliveries.split(person.customerId, showable);
    const counts = new Map<number, PersonCounts>();
    if (deliveries.length === 0) return { deliveries, others, person: counts };
    // Not those of deleted deliveries whose impressions are still to sweep (deleteDelivery).
    const existing = new Set([...deliveries, ...others].map((d) => d.deliveryId));
    for (const [deliveryId, total, today] of this.personImpressions(person, day)) {
      if (existing.has(deliveryId)) counts.set(deliveryId, { total, today });
    }
    return { deliveries, others, person: counts };
  }

  /** Store.recordImpression. Call inside a write transaction: concurrent impressions are applied in turn. */
  record(r: ImpressionRequest): ImpressionOutcome {
    this.refuseRevokedToken(r.person);
    const c = r.person.customerId;
    const delivery = this.deliveries.one(c, r.deliveryId);
    if (delivery === undefined) throw deliveryNotFound(r.deliveryId);
    if (r.idempotencyKey !== undefined) {
      const earlier = this.deliveries.answerOf(c, r.deliveryId, r.idempotencyKey);
      if (earlier !== undefined) return { answer: earlier, replayed: true };
    }
    // One row for this delivery, or none when the person never saw it.
    const [, total, today] = this.personImpressions(r.person, r.day, r.deliveryId)[0] ?? [r.deliveryId, 0, 0];
    refuseOverCap({ delivery, person: { total, today } });
    const answer = {
      deliveryId: r.deliveryId,
      deliveryCount: this.deliveries.count(c, r.deliveryId, r.person.user, r.day, r.platform),
      personTotal: total + 1,
      personToday: today + 1,
    };
    if (r.idempotencyKey !== undefined) this.deliveries.rememberKey(c, r.deliveryId, r.idempotencyKey, answer, r.receivedAt, r.person.user);
    return { answer, replayed: false };
  }

  /** The person's impressions, per delivery (only `deliveryId`'s when given): [delivery_id, total, on `day`]. */
  private personImpressions(p: PersonRequest, day: string, deliveryId?: number): ImpressionsRow[] {
    const pks = this.personIdPks(p);
    const params = { customer: p.customerId, day, delivery: deliveryId ?? null };
    return pks === undefined
      ? this.s.impressionsOfId.all({ ...params, type: p.user.type, value: p.user.id })
      : this.s.impressionsOfIdPks.all({ ...params, pks: JSON.stringify(pks) });
  }

  /**
   * The ids rows of a person's IDs (docs/deliveries.md): every ID the nodes of the component of the user's holders hold;
   * undefined when no node holds the user's ID (the person is that ID alone).
   */
  private personIdPks(p: PersonRequest): number[] | undefined {
    const holders = this.reader.holdersOf(p.customerId, p.user);
    if (holders.length === 0) return undefined;
    try {
      return [...this.reader.traverse(holders, { ...PERSON_SEARCH, ...p }).ids];
    } catch (e) {
      throw isDomainError(e) && e.code === 'component_too_large' ? personTooLarge(p) : e;
    }
  }
}
