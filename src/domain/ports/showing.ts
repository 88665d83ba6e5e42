// The port of showing messages (docs/deliveries.md), and the records the domain and the stores exchange.
// Impressions are counted per delivery and per ID they were recorded against, by calendar day; a person's counts
// are the sums over the IDs of its component. An erase removes the impressions of every value it erases.
import type { IdPair } from '../model';
import type { Delivery } from './deliveries';

export type Platform = 'ios' | 'android' | 'other';

/** A person: the component of `user` (step ALL, never through `links: false` types); an ID no node holds alone. */
export interface PersonRequest {
  customerId: string;
  user: IdPair;
  unlinkedTypes: string[];
  /** TRAVERSAL_MAX_NODES and TRAVERSAL_MAX_IDS: component_too_large past them, as for a search. */
  maxNodes: number;
  maxIds: number;
  /**
   * Set when the person (unlinkedTypes), the day and the secure check came from a policy the store kept (its
   * showingPolicy mark): the store uses counts it reads only while the policy is still that one, and refuses the
   * call with schema_changed otherwise.
   */
  policyMark?: string;
  /**
   * Set when the call's mapi token was one its process kept from an earlier request (TokenService), not read
   * afresh: the hash of that token. The store checks, in the statement or transaction that reads the person's
   * counts, that it is still an active mapi token of the customer, and refuses the call with invalid_token otherwise.
   */
  keptToken?: string;
}

/** A person's impressions of one delivery: in all, and on one calendar day. */
export interface PersonCounts {
  total: number;
  today: number;
}

/**
 * What eligibility is decided on, read together: the deliveries that could be shown (ShowingStore.eligibility's `showable`)
 * with their live counts, the others as stored (their counts not read), and the person's counts by delivery id
 * (read only when some delivery could be shown).
 */
export interface EligibilityState {
  deliveries: Delivery[];
  others: Delivery[];
  person: Map<number, PersonCounts>;
}

/** One display to count (docs/deliveries.md), checked. */
export interface ImpressionRequest {
  person: PersonRequest;
  deliveryId: number;
  platform: Platform;
  /** The calendar day of the impression's `at` in the customer's time zone, YYYY-MM-DD. */
  day: string;
  idempotencyKey?: string;
  /** When the store received it (ISO instant): how old an idempotency key is. */
  receivedAt: string;
}

/** What a counted impression answers (its 201 body), also kept with its idempotency key. */
export interface ImpressionAnswer {
  deliveryId: number;
  deliveryCount: number;
  personTotal: number;
  personToday: number;
}

/** What an impression is checked against inside its transaction, before anything is counted. */
export interface ImpressionState {
  delivery: Delivery;
  person: PersonCounts;
}

export interface ImpressionOutcome {
  answer: ImpressionAnswer;
  /** The answer of an earlier impression with the same idempotency key; nothing was counted. */
  replayed: boolean;
}

export interface ShowingStore {
  /**
   * The customer's deliveries, in delivery_id order, split by `showable` (the rules that need no counts): those it
   * accepts with their live counts, the others as stored; and when any is showable, the person's counts (on `day`)
   * of each delivery they saw, read together. component_too_large past the person's bounds.
   */
  eligibility(person: PersonRequest, day: string, showable?: (delivery: Delivery) => boolean): Promise<EligibilityState>;
  /**
   * One atomic change: delivery_not_found when the customer has no such delivery; the earlier answer, counting
   * nothing, when the idempotency key was used for this delivery; else the impression is counted, unless counting
   * it would pass a cap of the delivery, judged on its live counts and the person's (refuseOverCap in ../showing.ts
   * throws cap_reached, and nothing is counted). Impressions of one delivery are applied one at a time, so
   * concurrent ones never pass a cap.
   */
  recordImpression(request: ImpressionRequest): Promise<ImpressionOutcome>;
  /** Deletes up to `limit` idempotency keys stored before `before` (an ISO instant); answers how many it deleted. */
  pruneImpressionKeys(before: string, limit: number): Promise<number>;
}
