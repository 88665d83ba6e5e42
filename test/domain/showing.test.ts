// The rules of showing deliveries (docs/deliveries.md), without HTTP or a store: the calendar day of an instant in a
// customer's time zone (per-day caps), why a delivery is not shown (the first rule of §4.1 that holds), and which cap
// an impression would pass (in the order maxDeliveryCount, maxTotalCount, max_total_count_per_day).
import type { Delivery, PersonCounts } from '../../src/domain/deliveries';
import { calendarDay, capReached, exclusionReason } from '../../src/domain/showing';

const at = (iso: string): number => {
  const instant = Date.parse(iso);
  if (Number.isNaN(instant)) throw new Error(`not an instant: ${iso}`);
  return instant;
};

type Moment = Parameters<typeof exclusionReason>[1];
type ConditionOverrides = Partial<Omit<Delivery['condition'], 'trigger' | 'target'>> & {
  eventName?: string[];
  period?: Array<{ start: string; end: string }>;
  segmentationId?: number;
};

/** A delivery shown on app_open through 2026 to segment 7, with no count yet and generous caps. */
function delivery(overrides: ConditionOverrides = {}): Delivery {
  const { eventName = ['app_open'], period = [{ start: '2026-01-01T00:00:00Z', end: '2027-01-01T00:00:00Z' }], segmentationId = 7, ...rest } = overrides;
  return {
    name: 'd',
    priority: 1,
    deliveryId: 1,
    condition: {
      trigger: { eventName, period },
      target: { segmentationId },
      iphoneDeliveryCount: 0,
      androidDeliveryCount: 0,
      deliveryCount: 0,
      maxDeliveryCount: 10,
      maxTotalCount: 5,
      maxTotalCountPerDay: 2,
      category: 'c',
      conditionId: 1,
      isActive: true,
      ...rest,
    },
    message: [],
  };
}

const moment = (overrides: Partial<{ eventName: string; at: string; segments: number[] }> = {}): Moment => ({
  eventName: overrides.eventName ?? 'app_open',
  at: at(overrides.at ?? '2026-06-15T12:00:00Z'),
  segments: overrides.segments === undefined ? undefined : new Set(overrides.segments),
});
const person = (total = 0, today = 0): PersonCounts => ({ total, today });

describe('calendarDay: the day of an instant in a time zone', () => {
  test.each([
    // UTC, and the year boundary in both directions.
    ['2026-06-15T00:00:00Z', 'UTC', '2026-06-15'],
    ['2026-12-31T23:59:59.999Z', 'UTC', '2026-12-31'],
    ['2027-01-01T00:00:00Z', 'UTC', '2027-01-01'],
    ['2026-12-31T23:59:59.999Z', 'Etc/UTC', '2026-12-31'],
    // Europe/Berlin, spring switch (2026-03-29, 02:00 CET → 03:00 CEST): the day is 23 hours, 23:00Z to 22:00Z.
    ['2026-03-28T22:59:59.999Z', 'Europe/Berlin', '2026-03-28'],
    ['2026-03-28T23:00:00Z', 'Europe/Berlin', '2026-03-29'],
    ['2026-03-28T23:30:00Z', 'Europe/Berlin', '2026-03-29'],
    ['2026-03-29T00:59:59Z', 'Europe/Berlin', '2026-03-29'],
    ['2026-03-29T01:00:00Z', 'Europe/Berlin', '2026-03-29'],
    ['2026-03-29T21:30:00Z', 'Europe/Berlin', '2026-03-29'],
    ['2026-03-29T21:59:59.999Z', 'Europe/Berlin', '2026-03-29'],
    ['2026-03-29T22:00:00Z', 'Europe/Berlin', '2026-03-30'],
    ['2026-03-29T22:30:00Z', 'Europe/Berlin', '2026-03-30'],
    // Europe/Berlin, autumn switch (2026-10-25, 03:00 CEST → 02:00 CET): the day is 25 hours, 22:00Z to 23:00Z.
    ['2026-10-24T21:59:59.999Z', 'Europe/Berlin', '2026-10-24'],
    ['2026-10-24T22:00:00Z', 'Europe/Berlin', '2026-10-25'],
    ['2026-10-25T00:30:00Z', 'Europe/Berlin', '2026-10-25'],
    ['2026-10-25T01:30:00Z', 'Europe/Berlin', '2026-10-25'],
    ['2026-10-25T22:59:59.999Z', 'Europe/Berlin', '2026-10-25'],
    ['2026-10-25T23:00:00Z', 'Europe/Berlin', '2026-10-26'],
    // Berlin's new year is an hour before UTC's.
    ['2026-12-31T22:59:59Z', 'Europe/Berlin', '2026-12-31'],
    ['2026-12-31T23:00:00Z', 'Europe/Berlin', '2027-01-01'],
    // America/New_York: the day starts at 05:00Z in winter, 04:00Z in summer; the year ends later than in UTC.
    ['2027-01-01T04:59:59Z', 'America/New_York', '2026-12-31'],
    ['2027-01-01T05:00:00Z', 'America/New_York', '2027-01-01'],
    ['2026-07-01T03:59:59Z', 'America/New_York', '2026-06-30'],
    ['2026-07-01T04:00:00Z', 'America/New_York', '2026-07-01'],
    // Asia/Tokyo (+09:00, no DST).
    ['2026-12-01T14:59:59Z', 'Asia/Tokyo', '2026-12-01'],
    ['2026-12-01T15:00:00Z', 'Asia/Tokyo', '2026-12-02'],
    ['2026-12-31T15:00:00Z', 'Asia/Tokyo', '2027-01-01'],
    // Asia/Kolkata (+05:30): the day changes at 18:30Z.
    ['2026-12-31T18:29:59.999Z', 'Asia/Kolkata', '2026-12-31'],
    ['2026-12-31T18:30:00Z', 'Asia/Kolkata', '2027-01-01'],
    ['2026-06-15T18:29:59Z', 'Asia/Calcutta', '2026-06-15'],
    ['2026-06-15T18:30:00Z', 'Asia/Calcutta', '2026-06-16'],
    // Asia/Kathmandu (+05:45).
    ['2026-06-15T18:14:59Z', 'Asia/Kathmandu', '2026-06-15'],
    ['2026-06-15T18:15:00Z', 'Asia/Kathmandu', '2026-06-16'],
    // Pacific/Chatham: +13:45 in the southern summer (new year at 10:15Z), +12:45 in winter.
    ['2026-12-31T10:14:59Z', 'Pacific/Chatham', '2026-12-31'],
    ['2026-12-31T10:15:00Z', 'Pacific/Chatham', '2027-01-01'],
    ['2026-06-15T11:14:59Z', 'Pacific/Chatham', '2026-06-15'],
    ['2026-06-15T11:15:00Z', 'Pacific/Chatham', '2026-06-16'],
    // Pacific/Kiritimati (+14:00) and Pacific/Pago_Pago (-11:00): one instant, three days apart at most.
    ['2026-06-15T10:00:00Z', 'Pacific/Kiritimati', '2026-06-16'],
    ['2026-06-15T10:00:00Z', 'Pacific/Pago_Pago', '2026-06-14'],
    // Etc/GMT+5 is five hours behind UTC (the POSIX sign).
    ['2026-06-15T04:59:59Z', 'Etc/GMT+5', '2026-06-14'],
    ['2026-06-15T05:00:00Z', 'Etc/GMT+5', '2026-06-15'],
    // A leap day.
    ['2028-02-29T12:00:00Z', 'UTC', '2028-02-29'],
    ['2028-02-29T15:00:00Z', 'Asia/Tokyo', '2028-03-01'],
    // Four-digit years before 1000 keep their zeros.
    ['0999-12-31T23:59:59Z', 'UTC', '0999-12-31'],
  ])('when the instant is %s in %s, then the day is %s', (iso, zone, day) => {
    expect(calendarDay(at(iso), zone)).toBe(day);
  });

  test('when the zone is written in another case, then the day is the same', () => {
    expect(calendarDay(at('2026-12-31T18:30:00Z'), 'asia/kolkata')).toBe('2027-01-01');
    expect(calendarDay(at('2026-03-29T22:00:00Z'), 'EUROPE/BERLIN')).toBe('2026-03-30');
  });

  test('when one zone is asked between others, then each answer is its own zone (the formatter cache never mixes them)', () => {
    const instant = at('2026-12-01T15:00:00Z');
    expect([
      calendarDay(instant, 'UTC'),
      calendarDay(instant, 'Asia/Tokyo'),
      calendarDay(instant, 'UTC'),
      calendarDay(instant, 'America/Los_Angeles'),
      calendarDay(instant, 'Asia/Tokyo'),
    ]).toEqual(['2026-12-01', '2026-12-02', '2026-12-01', '2026-12-01', '2026-12-02']);
  });

  test('when every hour of 2026 is read in Europe/Berlin, then each day is 24 hours but the two switch days (23 and 25), and the days follow each other', () => {
    const hoursPerDay = new Map<string, number>();
    for (let t = at('2025-12-31T23:00:00Z'); t < at('2026-12-31T23:00:00Z'); t += 3_600_000) {
      const day = calendarDay(t, 'Europe/Berlin');
      hoursPerDay.set(day, (hoursPerDay.get(day) ?? 0) + 1);
    }
    expect(hoursPerDay.size).toBe(365);
    const odd = [...hoursPerDay.entries()].filter(([, hours]) => hours !== 24);
    expect(odd).toEqual([
      ['2026-03-29', 23],
      ['2026-10-25', 25],
    ]);
    const days = [...hoursPerDay.keys()];
    expect(days[0]).toBe('2026-01-01');
    expect(days[days.length - 1]).toBe('2026-12-31');
    expect([...days].sort()).toEqual(days);
  });
});

describe('exclusionReason: the first rule of §4.1 that holds', () => {
  test('when no rule holds, then the delivery is eligible (undefined)', () => {
    expect(exclusionReason(delivery(), moment(), person())).toBeUndefined();
    expect(exclusionReason(delivery(), moment({ segments: [7] }), person(4, 1))).toBeUndefined();
  });

  test.each<[string, ConditionOverrides, Parameters<typeof moment>[0], PersonCounts, string]>([
    ['is_active is false', { isActive: false }, {}, person(), 'inactive'],
    ['the event is not a trigger', { eventName: ['purchase', 'app_close'] }, {}, person(), 'event_not_matched'],
    ['the event differs in case', {}, { eventName: 'App_Open' }, person(), 'event_not_matched'],
    ['the trigger has no events', { eventName: [] }, {}, person(), 'event_not_matched'],
    ['at is before the period', {}, { at: '2025-12-31T23:59:59.999Z' }, person(), 'outside_period'],
    ['at is the end of the period', {}, { at: '2027-01-01T00:00:00Z' }, person(), 'outside_period'],
    ['the period list is empty', { period: [] }, {}, person(), 'outside_period'],
    ['segments are given without 7', {}, { segments: [1, 2, 3] }, person(), 'not_in_segment'],
    ['segments are an empty list', {}, { segments: [] }, person(), 'not_in_segment'],
    ['delivery_count has reached max_delivery_count', { deliveryCount: 10 }, {}, person(), 'delivery_cap_reached'],
    ['delivery_count is past max_delivery_count (a lowered cap)', { deliveryCount: 11 }, {}, person(), 'delivery_cap_reached'],
    ['the person has reached max_total_count', {}, {}, person(5, 0), 'person_cap_reached'],
    ['the person is past max_total_count', {}, {}, person(9, 0), 'person_cap_reached'],
    ['the person has reached max_total_count_per_day', {}, {}, person(2, 2), 'person_daily_cap_reached'],
  ])('when %s, then the reason is its rule', (_name, overrides, m, p, reason) => {
    expect(exclusionReason(delivery(overrides), moment(m), p)).toBe(reason);
  });

  test('when segments are absent, then the target segment is not checked', () => {
    expect(exclusionReason(delivery({ segmentationId: 123456 }), moment(), person())).toBeUndefined();
    expect(exclusionReason(delivery({ segmentationId: 0 }), moment({ segments: [0] }), person())).toBeUndefined();
  });

  test('when one below a cap, then it is not reached', () => {
    expect(exclusionReason(delivery({ deliveryCount: 9 }), moment(), person(4, 1))).toBeUndefined();
  });

  test('when every rule holds, then each rule lifted in turn reveals the next, in §4.1 order', () => {
    const outside = [{ start: '2020-01-01T00:00:00Z', end: '2020-02-01T00:00:00Z' }];
    const steps: Array<{ condition: ConditionOverrides; counts: PersonCounts; expected: string | undefined }> = [
      {
        condition: { isActive: false, eventName: ['purchase'], period: outside, segmentationId: 99, deliveryCount: 10 },
        counts: person(5, 2),
        expected: 'inactive',
      },
      { condition: { eventName: ['purchase'], period: outside, segmentationId: 99, deliveryCount: 10 }, counts: person(5, 2), expected: 'event_not_matched' },
      { condition: { period: outside, segmentationId: 99, deliveryCount: 10 }, counts: person(5, 2), expected: 'outside_period' },
      { condition: { segmentationId: 99, deliveryCount: 10 }, counts: person(5, 2), expected: 'not_in_segment' },
      { condition: { deliveryCount: 10 }, counts: person(5, 2), expected: 'delivery_cap_reached' },
      { condition: { deliveryCount: 9 }, counts: person(5, 2), expected: 'person_cap_reached' },
      { condition: { deliveryCount: 9 }, counts: person(4, 2), expected: 'person_daily_cap_reached' },
      { condition: { deliveryCount: 9 }, counts: person(4, 1), expected: undefined },
    ];
    expect(steps.map((s) => exclusionReason(delivery(s.condition), moment({ segments: [7, 8] }), s.counts))).toEqual(steps.map((s) => s.expected));
  });

  describe('periods, compared as instants whatever their offsets', () => {
    // [2026-06-01T00:00Z, 2026-06-01T01:00Z), start written in +09:00, end in -05:00.
    const period = { start: '2026-06-01T09:00:00+09:00', end: '2026-05-31T20:00:00-05:00' };
    test.each([
      ['2026-05-31T23:59:59.999Z', false],
      ['2026-06-01T00:00:00Z', true],
      ['2026-06-01T08:00:00+08:00', true],
      ['2026-05-31T14:00:00-10:00', true],
      ['2026-06-01T00:59:59.999Z', true],
      ['2026-06-01T01:00:00Z', false],
      ['2026-05-31T20:00:00-05:00', false],
      ['2026-06-01T09:59:59.999+09:00', true],
      ['2026-06-01T06:29:59+05:30', true],
      ['2026-06-01T06:30:00+05:30', false],
    ])('when at is %s, then inside is %s', (when, inside) => {
      expect(exclusionReason(delivery({ period: [period] }), moment({ at: when }), person())).toBe(inside ? undefined : 'outside_period');
    });

    test('when a period end has fractional seconds, then the last millisecond before it is inside', () => {
      const p = { start: '2026-06-01T00:00:00.250Z', end: '2026-06-01T00:00:00.750+00:00' };
      expect(exclusionReason(delivery({ period: [p] }), moment({ at: '2026-06-01T00:00:00.249Z' }), person())).toBe('outside_period');
      expect(exclusionReason(delivery({ period: [p] }), moment({ at: '2026-06-01T00:00:00.250Z' }), person())).toBeUndefined();
      expect(exclusionReason(delivery({ period: [p] }), moment({ at: '2026-06-01T00:00:00.749Z' }), person())).toBeUndefined();
      expect(exclusionReason(delivery({ period: [p] }), moment({ at: '2026-06-01T00:00:00.750Z' }), person())).toBe('outside_period');
    });

    test('when there are several periods, then any one containing at is enough, and a gap between them is outside', () => {
      const periods = [
        { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' },
        { start: '2026-03-01T00:00:00+01:00', end: '2026-03-02T00:00:00+01:00' },
      ];
      const reason = (when: string) => exclusionReason(delivery({ period: periods }), moment({ at: when }), person());
      expect(reason('2026-01-01T12:00:00Z')).toBeUndefined();
      expect(reason('2026-02-01T00:00:00Z')).toBe('outside_period');
      expect(reason('2026-02-28T23:00:00Z')).toBeUndefined();
      expect(reason('2026-02-28T22:59:59Z')).toBe('outside_period');
      expect(reason('2026-03-01T23:00:00Z')).toBe('outside_period');
    });
  });
});

describe('capReached: the first cap an impression would pass', () => {
  test.each<[string, string | undefined, ConditionOverrides, PersonCounts]>([
    ['nothing is counted', undefined, {}, person(0, 0)],
    ['every count is one below its cap', undefined, { deliveryCount: 9 }, person(4, 1)],
    ['delivery_count equals max_delivery_count', 'max_delivery_count', { deliveryCount: 10 }, person(0, 0)],
    ['delivery_count is past max_delivery_count', 'max_delivery_count', { deliveryCount: 12 }, person(0, 0)],
    ['the person total equals max_total_count', 'max_total_count', {}, person(5, 0)],
    ['the person today equals max_total_count_per_day', 'max_total_count_per_day', {}, person(2, 2)],
    ['all three are reached', 'max_delivery_count', { deliveryCount: 10 }, person(5, 2)],
    ['both person caps are reached', 'max_total_count', {}, person(5, 2)],
    ['the delivery and the daily cap are reached', 'max_delivery_count', { deliveryCount: 10 }, person(1, 2)],
    ['caps are 1 and nothing is counted', undefined, { maxDeliveryCount: 1, maxTotalCount: 1, maxTotalCountPerDay: 1 }, person(0, 0)],
    ['caps are 1 and the person has one today', 'max_total_count', { maxDeliveryCount: 1000, maxTotalCount: 1, maxTotalCountPerDay: 1 }, person(1, 1)],
    ['the daily cap is above the total cap and the total is reached', 'max_total_count', { maxTotalCount: 2, maxTotalCountPerDay: 5 }, person(2, 2)],
  ])('when %s, then the cap is %s', (_name, cap, overrides, p) => {
    expect(capReached(delivery(overrides), p)).toBe(cap);
  });

  test('when the platform counters are high, then they are no cap', () => {
    expect(capReached(delivery({ iphoneDeliveryCount: 1000, androidDeliveryCount: 1000, deliveryCount: 0 }), person())).toBeUndefined();
  });
});

describe('calendarDay at the edges of the years RFC 3339 can write', () => {
  test('when instants fall in year 0000 (1 BC) and year 0001, then they are different days, numbered as RFC 3339 writes them', () => {
    expect(calendarDay(Date.parse('0000-06-01T00:00:00Z'), 'UTC')).toBe('0000-06-01');
    expect(calendarDay(Date.parse('0001-06-01T00:00:00Z'), 'UTC')).toBe('0001-06-01');
    // The first instant RFC 3339 can write with an offset east of UTC lies in the year before 0000 in UTC.
    expect(calendarDay(Date.parse('0000-01-01T00:00:00+09:00'), 'UTC')).toBe('-0001-12-31');
    expect(calendarDay(Date.parse('0000-01-01T00:00:00+09:00'), 'Asia/Tokyo')).toBe('0000-01-01');
    expect(calendarDay(Date.parse('9999-12-31T23:59:59Z'), 'UTC')).toBe('9999-12-31');
  });
});

describe('calendarDay, asked again within a minute', () => {
  test('when instants of one UTC minute straddle a local midnight, then each still gets its own day (offsets are whole minutes)', () => {
    // 2026-03-29T22:00:00Z is midnight in Berlin (CEST, +02:00): the minute before and the one that starts there.
    expect(calendarDay(Date.parse('2026-03-29T21:59:59.999Z'), 'Europe/Berlin')).toBe('2026-03-29');
    expect(calendarDay(Date.parse('2026-03-29T22:00:00.000Z'), 'Europe/Berlin')).toBe('2026-03-30');
    expect(calendarDay(Date.parse('2026-03-29T21:59:30.000Z'), 'Europe/Berlin')).toBe('2026-03-29');
    // Kathmandu (+05:45): its midnight is at 18:15 UTC.
    expect(calendarDay(Date.parse('2026-06-01T18:14:59.999Z'), 'Asia/Kathmandu')).toBe('2026-06-01');
    expect(calendarDay(Date.parse('2026-06-01T18:15:00.000Z'), 'Asia/Kathmandu')).toBe('2026-06-02');
    expect(calendarDay(Date.parse('2026-06-01T18:14:00.000Z'), 'Asia/Kathmandu')).toBe('2026-06-01');
  });

  test('when an instant is before 1980, then its day comes from the zone rules of the time, offsets with seconds included', () => {
    // Monrovia kept -00:44:30 until 1972: 00:44:30 UTC was its midnight.
    expect(calendarDay(Date.parse('1970-06-02T00:44:29Z'), 'Africa/Monrovia')).toBe('1970-06-01');
    expect(calendarDay(Date.parse('1970-06-02T00:44:30Z'), 'Africa/Monrovia')).toBe('1970-06-02');
  });
});
