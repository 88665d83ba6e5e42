import { compareCodePoints } from '../../src/domain/code-point-order';

/** UTF-8 bytes order as code points do: the reference the comparison must agree with. */
const byUtf8 = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));

/** Characters from each range where UTF-16 units and code points may order differently. */
const ALPHABET = ['a', 'z', '0', 'é', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffef', '\ufffd', '\uffff', '😀', '\u{10000}', '\u{10ffff}', '𝄞'];

describe('code-point order', () => {
  test('when well-formed strings from every range are compared, then the order is that of their UTF-8 bytes', () => {
    // A fixed pseudo-random walk, so that a failure repeats.
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const word = () => Array.from({ length: next(5) }, () => ALPHABET[next(ALPHABET.length)] as string).join('');
    let compared = 0;
    for (let i = 0; i < 20_000; i += 1) {
      const a = word();
      // Often a common prefix, so that the first difference falls anywhere, in a pair too.
      const b = next(2) === 0 ? a.slice(0, next(a.length + 1)) + word() : word();
      expect([a, b, Math.sign(compareCodePoints(a, b))]).toEqual([a, b, byUtf8(a, b)]);
      compared += 1;
    }
    expect(compared).toBe(20_000);
  });

  test('when a string is compared with itself or its prefix, then equal or after', () => {
    expect(compareCodePoints('a😀', 'a😀')).toBe(0);
    expect(compareCodePoints('a😀', 'a')).toBe(1);
    expect(compareCodePoints('', 'a')).toBe(-1);
  });
});
