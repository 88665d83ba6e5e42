// The port of showing messages (docs/deliveries.md), and the records the domain and the stores exchange.
// Impressions are counted per delivery and per ID they were recorded against, by calendar day; a person's counts
// are the sums over the IDs of its component. An erase removes the impressions of every value it erases.
import type { CustomerPolicy, IdPair } from '../model';
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
   * The hash of the mapi token that authorised the call: the call takes effect only while it is an active mapi token
   * of the customer. The store checks that in the statement or transaction that reads the person's counts, and
   * refuses the call with invalid_token otherwise. The domain always sends it; a call without one checks no token.
   */
  mapiToken?: string;
}

/**
 * A showing call as the domain asks for it: `check` holds the customer's rules for it (a secure user needs a bearer
 * token) and answers, from the customer's policy, the person to read and the call's calendar day in the customer's
 * time zone, or throws the refusal; it is pure and synchronous. A store answers the call as if `check` ran against
 * the policy of the moment it reads the person's counts.
 */
export interface CheckedPerson {
  customerId: string;
  check: (policy: CustomerPolicy) => { person: PersonRequest; day: string };
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

/** An impression as the domain asks for it: its person and day follow from the customer's policy (CheckedPerson). */
export type CheckedImpression = Omit<ImpressionRequest, 'person' | 'day'> & { person: CheckedPerson };

/** The impression as its check makes it against `policy` (CheckedPerson.check). */
export const impressionChecked = (r: CheckedImpression, policy: CustomerPolicy): ImpressionRequest => ({ ...r, ...r.person.check(policy) });

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
  eligibility(person: CheckedPerson, showable?: (delivery: Delivery) => boolean): Promise<EligibilityState>;
  /**
   * One atomic change: delivery_not_found when the customer has no such delivery; the earlier answer, counting
   * nothing, when the idempotency key was used for this delivery; else the impression is counted, unless counting
   * it would pass a cap of the delivery, judged on its live counts and the person's (refuseOverCap in ../showing.ts
   * throws cap_reached, and nothing is counted). Impressions of one delivery are applied one at a time, so
   * concurrent ones never pass a cap.
   */
  recordImpression(request: CheckedImpression): Promise<ImpressionOutcome>;
  /** Deletes up to `limit` idempotency keys stored before `before` (an ISO instant); answers how many it deleted. */
  pruneImpressionKeys(before: string, limit: number): Promise<number>;
}
