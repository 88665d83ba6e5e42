// Time-zone names for a customer's per-day caps: which are accepted, and how they are spelled back.
import { ianaTimeZone } from '../../src/domain/timezone';

describe('IANA time-zone names', () => {
  test.each(['Europe/Berlin', 'UTC', 'Asia/Tokyo', 'America/Port-au-Prince', 'America/North_Dakota/New_Salem'])(
    'when the name is %s, then it is accepted as written',
    (name) => {
      expect(ianaTimeZone(name)).toBe(name);
    },
  );

  test('when a name is written in the wrong case, then it comes back as IANA spells it', () => {
    expect(ianaTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(ianaTimeZone('ASIA/TOKYO')).toBe('Asia/Tokyo');
    expect(ianaTimeZone('utc')).toBe('UTC');
  });

  test('when the name is Etc/GMT+1, then it is accepted: it is an IANA name, not an offset', () => {
    expect(ianaTimeZone('Etc/GMT+1')).toBe('Etc/GMT+1');
    expect(ianaTimeZone('etc/gmt+1')).toBe('Etc/GMT+1');
  });

  test('when the name is an alias, then it comes back as given, whatever zone the runtime calls canonical', () => {
    expect(ianaTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(ianaTimeZone('Asia/Calcutta')).toBe('Asia/Calcutta');
    expect(ianaTimeZone('Etc/UTC')).toBe('Etc/UTC');
  });

  test.each([
    ['an unknown zone', 'Mars/Olympus'],
    ['an offset', '+01:00'],
    ['a bare hour offset', '-05'],
    ['an offset written like a name', 'GMT+1'],
    ['an offset after UTC', 'UTC-05:00'],
    ['an empty string', ''],
    ['65 characters', 'a'.repeat(65)],
    ['a path', '../../etc/passwd'],
    ['a name with spaces', 'Europe/ Berlin'],
  ])('when the name is %s, then it is refused', (_what, name) => {
    expect(ianaTimeZone(name)).toBeUndefined();
  });
});
