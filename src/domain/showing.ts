// Showing messages (docs/deliveries.md): which deliveries a person should see now, and counting a display against the
// caps, per person: every ID linked to them in the customer's identity graph. The rules are decided here; the
// stores read the counts, and count an impression in one transaction that checks it with `capExceeded`.
import {
  type Delivery,
  type EligibilityState,
  type ImpressionOutcome,
  type ImpressionState,
  NO_IMPRESSIONS,
  type PersonCounts,
  type PersonRequest,
  type Platform,
} from './deliveries';
import { DomainError } from './errors';
import type { CustomerPolicy, IdPair } from './model';
import type { CheckedPerson, ShowingStore } from './ports/showing';

export interface EligibleBody {
  user: IdPair;
  event_name: string;
  platform?: Platform;
  at?: string;
  segments?: number[];
  explain?: boolean;
}

export interface ImpressionBody {
  user: IdPair;
  platform?: Platform;
  at?: string;
  idempotency_key?: string;
}

export type ExclusionReason =
  'inactive' | 'event_not_matched' | 'outside_period' | 'not_in_segment' | 'delivery_cap_reached' | 'person_cap_reached' | 'person_daily_cap_reached';

export interface Eligibility {
  deliveries: Delivery[];
  excluded?: Array<{ deliveryId: number; reason: ExclusionReason }>;
}

export type CapName = 'max_delivery_count' | 'max_total_count' | 'max_total_count_per_day';

/**
 * Who asks: the customer the mapi token names; `authenticated`: the caller also sent a bearer token of the customer
 * (or the administrator token); `mapiToken`: the mapi token's hash, which the call carries (PersonRequest.mapiToken).
 */
export interface ShowingCaller {
  customerId: string;
  authenticated: boolean;
  mapiToken: string;
}

export interface ShowingLimits {
  traversalMaxNodes: number;
  traversalMaxIds: number;
}

/** What a request asks eligibility about, with `at` as an instant. */
interface Moment {
  eventName: string;
  at: number;
  segments: ReadonlySet<number> | undefined;
}

/** The first cap a delivery and a person's counts have reached, in the order docs/deliveries.md gives; undefined when none. */
export function capReached(delivery: Delivery, person: PersonCounts): CapName | undefined {
  const c = delivery.condition;
  if (c.deliveryCount >= c.maxDeliveryCount) return 'max_delivery_count';
  if (person.total >= c.maxTotalCount) return 'max_total_count';
  if (person.today >= c.maxTotalCountPerDay) return 'max_total_count_per_day';
  return undefined;
}

const REASON_OF_CAP: Record<CapName, ExclusionReason> = {
  max_delivery_count: 'delivery_cap_reached',
  max_total_count: 'person_cap_reached',
  max_total_count_per_day: 'person_daily_cap_reached',
};

/**
 * A trigger's periods as instants: a period's offsets only say how it was written. Kept per trigger object, which
 * the stores keep with the parsed document, so a delivery's periods are parsed once, not on every request.
 */
const parsedPeriods = new WeakMap<Delivery['condition']['trigger'], Array<[number, number]>>();

function periodsOf(trigger: Delivery['condition']['trigger']): Array<[number, number]> {
  let periods = parsedPeriods.get(trigger);
  if (periods === undefined) {
    periods = trigger.period.map((p): [number, number] => [Date.parse(p.start), Date.parse(p.end)]);
    parsedPeriods.set(trigger, periods);
  }
  return periods;
}

/** The first of the rules of docs/deliveries.md that need no counts that holds at `moment`, or undefined when none does. */
function uncountedReason(delivery: Delivery, moment: Moment): ExclusionReason | undefined {
  const c = delivery.condition;
  if (!c.isActive) return 'inactive';
  if (!c.trigger.eventName.includes(moment.eventName)) return 'event_not_matched';
  if (!periodsOf(c.trigger).some(([start, end]) => start <= moment.at && moment.at < end)) return 'outside_period';
  if (moment.segments !== undefined && !moment.segments.has(c.target.segmentationId)) return 'not_in_segment';
  return undefined;
}

/** Why a delivery is not shown at `moment` (the first rule of docs/deliveries.md that holds), or undefined when it is eligible. */
export function exclusionReason(delivery: Delivery, moment: Moment, person: PersonCounts): ExclusionReason | undefined {
  const reason = uncountedReason(delivery, moment);
  if (reason !== undefined) return reason;
  const cap = capReached(delivery, person);
  return cap === undefined ? undefined : REASON_OF_CAP[cap];
}

/** Highest priority first, then delivery_id ascending. */
const showingOrder = (a: Delivery, b: Delivery): number => b.priority - a.priority || a.deliveryId - b.deliveryId;

/** One formatter per time zone: building one costs far more than using it. */
const dayFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * Each time zone's last answer, by UTC minute. Since 1980 every zone's offset is a whole number of minutes, so a
 * day starts on a whole UTC minute and one minute's instants share a day; most requests are about now, so the
 * formatter (a few microseconds) runs about once a minute. Earlier instants (local mean times had seconds) skip it.
 */
const lastDays = new Map<string, { minute: number; day: string }>();
const WHOLE_MINUTE_OFFSETS_SINCE = Date.UTC(1980, 0, 1);

/** The calendar day (YYYY-MM-DD) of the instant `at` in the IANA time zone `timeZone`. */
export function calendarDay(at: number, timeZone: string): string {
  if (at < WHOLE_MINUTE_OFFSETS_SINCE) return formatDay(at, timeZone);
  const minute = Math.floor(at / 60_000);
  const last = lastDays.get(timeZone);
  if (last?.minute === minute) return last.day;
  const day = formatDay(at, timeZone);
  lastDays.set(timeZone, { minute, day });
  return day;
}

function formatDay(at: number, timeZone: string): string {
  let format = dayFormats.get(timeZone);
  if (format === undefined) {
    // The parts are read by type below, so the layout is not relied on. The era tells 1 BC (RFC 3339's year 0000)
    // from AD 1, which the year alone does not.
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      era: 'short',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      calendar: 'gregory',
      numberingSystem: 'latn',
    });
    dayFormats.set(timeZone, format);
  }
  const parts: Record<string, string> = {};
  for (const part of format.formatToParts(at)) parts[part.type] = part.value;
  // Astronomical year numbering, as RFC 3339 and ISO 8601 count: 1 BC is 0, 2 BC is -1.
  const year = parts.era === 'BC' ? 1 - Number(parts.year) : Number(parts.year);
  return `${year < 0 ? '-' : ''}${String(Math.abs(year)).padStart(4, '0')}-${parts.month}-${parts.day}`;
}

/** `at` as an instant; the request time when absent. 400 for a leap second, which JavaScript cannot place. */
function instantOf(at: string | undefined, path: string): number {
  if (at === undefined) return Date.now();
  const instant = Date.parse(at);
  if (Number.isNaN(instant)) {
    throw new DomainError('validation_failed', 'at must be a time this service can compare.', [
      { path, message: 'is a leap second (:60), which cannot be compared with other times here; use :59' },
    ]);
  }
  return instant;
}

export class ShowingService {
  constructor(
    private readonly store: ShowingStore,
    private readonly limits: ShowingLimits,
  ) {}

  /**
   * The call's check: the person of `user`, and the calendar day of `at` in the customer's time zone, from the
   * customer's policy. A secure `user` needs a bearer token (`authenticated`): the answers' counts would tell a
   * holder of the mapi token alone whether a secure value belongs to someone.
   */
  private checkedPerson(caller: ShowingCaller, user: IdPair, at: number): CheckedPerson {
    return {
      customerId: caller.customerId,
      check: (policy) => {
        const { person, timeZone } = this.personOf(caller, user, policy);
        return { person, day: calendarDay(at, timeZone) };
      },
    };
  }

  private personOf(
    { customerId, authenticated, mapiToken }: ShowingCaller,
    user: IdPair,
    { settings, unlinkedTypes, secureTypes }: CustomerPolicy,
  ): { person: PersonRequest; timeZone: string } {
    if (secureTypes.has(user.type) && !authenticated) {
      throw new DomainError(
        'authentication_required',
        'A user of a secure ID type needs a bearer token of the customer in Authorization, beside the mapi token in X-SERVICE-MAPI-TOKEN.',
      );
    }
    const bounds = { maxNodes: this.limits.traversalMaxNodes, maxIds: this.limits.traversalMaxIds };
    return {
      person: { customerId, user, unlinkedTypes: [...unlinkedTypes], ...bounds, mapiToken },
      timeZone: settings.timezone,
    };
  }

  async eligible(caller: ShowingCaller, body: EligibleBody): Promise<Eligibility> {
    const at = instantOf(body.at, '/body/at');
    const moment: Moment = { eventName: body.event_name, at, segments: body.segments === undefined ? undefined : new Set(body.segments) };
    // The store reads counts, and the person, only for deliveries the other rules leave.
    const state: EligibilityState = await this.store.eligibility(this.checkedPerson(caller, body.user, at), (d) => uncountedReason(d, moment) === undefined);
    const deliveries: Delivery[] = [];
    const excluded: Array<{ deliveryId: number; reason: ExclusionReason }> = [];
    for (const delivery of state.deliveries) {
      const reason = exclusionReason(delivery, moment, state.person.get(delivery.deliveryId) ?? NO_IMPRESSIONS);
      if (reason === undefined) deliveries.push(delivery);
      else excluded.push({ deliveryId: delivery.deliveryId, reason });
    }
    if (body.explain !== true) return { deliveries: deliveries.sort(showingOrder) };
    for (const delivery of state.others) excluded.push({ deliveryId: delivery.deliveryId, reason: uncountedReason(delivery, moment) as ExclusionReason });
    return { deliveries: deliveries.sort(showingOrder), excluded: excluded.sort((a, b) => a.deliveryId - b.deliveryId) };
  }

  /** A refusal comes before anything is counted, so nothing is counted and no key stored. */
  async impression(caller: ShowingCaller, deliveryId: number, body: ImpressionBody): Promise<ImpressionOutcome> {
    const at = instantOf(body.at, '/body/at');
    return this.store.recordImpression({
      person: this.checkedPerson(caller, body.user, at),
      deliveryId,
      platform: body.platform ?? 'other',
      ...(body.idempotency_key !== undefined ? { idempotencyKey: body.idempotency_key } : {}),
      receivedAt: new Date().toISOString(),
    });
  }
}

/**
 * The rule every store applies to an impression before it counts it, in the same transaction: 409 cap_reached,
 * naming the cap, when counting it would pass one (capReached). The Neo4j store applies capReached inside its
 * statement, and this names the refusal.
 */
export function refuseOverCap({ delivery, person }: ImpressionState): void {
  const cap = capReached(delivery, person);
  if (cap !== undefined) {
    throw new DomainError('cap_reached', `Counting this display would pass the delivery's ${cap}; nothing was counted.`, undefined, { cap });
  }
}
