// How the blocklist reads text: values and rules are normalized alike before they are compared, so that a value
// cannot slip past a rule by a spelling that shows the same (fullwidth letters, a zero-width space, a control
// character, Arabic-Indic digits, a trailing space or dot, `İ` for `I`). docs/keeping-people-apart.md (Blocked
// values) lists the steps.
import { RE2JS } from 're2js';
import unhomoglyph from 'unhomoglyph';

/**
 * What normalizing removes: default-ignorable code points, and control characters (`\p{Cc}`: U+0000–U+001F,
 * U+007F–U+009F), which show nothing either, so that `test@test.com` followed by a NUL is still `test@test.com`.
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cc}]/gu;
const DIGIT = /\p{Nd}/u;
const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/gu;
/** Printable ASCII, which every step but case folding leaves as it is. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Full Unicode case folding, from the runtime's own case mappings: lower, upper, then lower again gives, code point
 * by code point, exactly the classes of CaseFolding.txt (statuses C and F: `ß`, `ẞ` and `SS` fold alike, `ŉ` to
 * `ʼn`, `ς` with `σ`), checked over every code point on Node 20; it also folds the dotless `ı` with `i`, as does
 * `İ`, which is mapped to `I` first (Turkic folding) so that `ADMİN` folds to `admin`. No npm package of folding
 * tables is both kept up and loadable from CommonJS.
 */
export function foldCase(text: string): string {
  return text.replaceAll('\u0130', 'I').toLowerCase().toUpperCase().toLowerCase();
}

const digitValues = new Map<number, string>();

/**
 * The ASCII digit of a decimal digit (`\p{Nd}`) of any script. Unicode encodes decimal digits in contiguous runs of
 * ten that start at zero (a stability guarantee), so a digit's value is its distance from the start of its run of
 * digits, modulo ten when runs touch.
 */
function asciiDigit(digit: string): string {
  const codePoint = digit.codePointAt(0) ?? 0;
  let value = digitValues.get(codePoint);
  if (value === undefined) {
    let before = 0;
    while (DIGIT.test(String.fromCodePoint(codePoint - before - 1))) before++;
    value = String(before % 10);
    digitValues.set(codePoint, value);
  }
  return value;
}

/**
 * The steps that apply to each character alone, also to the literal characters of a pattern: default-ignorable
 * code points and control characters removed, NFKC, full case folding when `ignoreCase` (then NFKC again), every
 * decimal digit to ASCII.
 */
export function normalizeCharacters(text: string, ignoreCase: boolean): string {
  if (PRINTABLE_ASCII.test(text)) return ignoreCase ? text.toLowerCase() : text;
  let normal = text.replace(INVISIBLE, '').normalize('NFKC');
  if (ignoreCase) normal = foldCase(normal).normalize('NFKC');
  return normal.replace(INVISIBLE, '').replace(NON_ASCII_DIGIT, asciiDigit);
}

/** A value or a listed value as the blocklist compares it: its characters normalized, trimmed, one trailing dot removed. */
export function normalizeValue(value: string, ignoreCase: boolean): string {
  const trimmed = normalizeCharacters(value, ignoreCase).trim();
  return trimmed.length > 1 && trimmed.endsWith('.') ? trimmed.slice(0, -1).trimEnd() : trimmed;
}

/**
 * The UTS #39 skeleton of a normalized value (NFD, each character to its prototype in Unicode's confusables.txt,
 * NFD): two values look alike when their skeletons are equal, as a Latin `e` and a Cyrillic `е` do, or `rn` and `m`.
 */
export function skeleton(normalized: string): string {
  return unhomoglyph(normalized.normalize('NFD')).normalize('NFD');
}

// ---- patterns

/** A pattern with its literal characters normalized for RE2, and what could not be normalized (empty when all could). */
export interface RewrittenPattern {
  source: string;
  problems: string[];
}

const META = /[\\.+*?()|[\]{}^$-]/g;
const quote = (text: string): string => text.replace(META, (c) => `\\${c}`);
const show = (text: string): string => (text === '' ? 'nothing' : `\`${text}\``);

/**
 * A cursor over a pattern that RE2 compiles, reading it by code points. Only what the rewrite needs is told apart:
 * literal characters (also `\x` escapes and the text of `\Q…\E`), character classes, and everything else, which is
 * copied as written.
 */
class PatternReader {
  private at = 0;
  constructor(private readonly text: string) {}

  get done(): boolean {
    return this.at >= this.text.length;
  }

  peek(offset = 0): string {
    let i = this.at;
    for (let k = 0; k < offset && i < this.text.length; k++) i += (this.text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    const codePoint = this.text.codePointAt(i);
    return codePoint === undefined ? '' : String.fromCodePoint(codePoint);
  }

  next(): string {
    const c = this.peek();
    this.at += c.length;
    return c;
  }

  startsWith(text: string): boolean {
    return this.text.startsWith(text, this.at);
  }

  /** Reads up to and including `end`, or to the end of the pattern. */
  until(end: string): string {
    const found = this.text.indexOf(end, this.at);
    const stop = found < 0 ? this.text.length : found + end.length;
    const read = this.text.slice(this.at, stop);
    this.at = stop;
    return read;
  }

  /** After a `(`, the rest of a `(?` opening: `?:`, `?P<name>`, `?<name>`, or flags such as `?i:` or `?i)`. */
  groupOpening(): string {
    if (this.startsWith('?P<') || this.startsWith('?<')) return this.until('>');
    const flags = /^\?[a-zA-Z-]*[:)]?/.exec(this.text.slice(this.at))?.[0] ?? '?';
    this.at += flags.length;
    return flags;
  }

  /** After a `\`: a `\x` escape's character, or undefined (and nothing read) when the escape is anything else. */
  hexEscape(): string | undefined {
    if (this.peek() !== 'x') return undefined;
    const braced = /^x\{([0-9A-Fa-f]{1,6})\}/.exec(this.text.slice(this.at, this.at + 10));
    const plain = /^x([0-9A-Fa-f]{2})/.exec(this.text.slice(this.at, this.at + 3));
    const match = braced ?? plain;
    if (match?.[1] === undefined) return undefined;
    const codePoint = Number.parseInt(match[1], 16);
    if (codePoint > 0x10ffff) return undefined;
    this.at += match[0].length;
    return String.fromCodePoint(codePoint);
  }
}

/**
 * Whether RE2 matches a literal `c` of a pattern against `c` as normalizeCharacters leaves it in a value: when it is
 * left as it is, and under ignore_case also when it only changes case in a way RE2's own folding follows (`É`).
 */
function readAlike(c: string, ignoreCase: boolean): boolean {
  if (PRINTABLE_ASCII.test(c)) return true;
  const normal = normalizeCharacters(c, ignoreCase);
  if (normal === c) return true;
  if (!ignoreCase || normalizeCharacters(c, false) !== c || [...normal].length !== 1) return false;
  return RE2JS.compile(quote(c), RE2JS.CASE_INSENSITIVE).matches(normal);
}

/**
 * The pattern RE2 runs for a rule: each literal character outside a class becomes what normalizeCharacters makes of
 * it (grouped, so that a quantifier after it applies to all of it), and each one inside a class too when that is one
 * character. A character in a class that normalizes to none or to several (`ß` under ignore_case), and a range with
 * an end that normalization changes (`Ａ-Ｚ`), cannot be rewritten, nor can an invisible character that values lose
 * (`\x{200B}`): they are named in `problems`.
 * Escapes other than `\x` and `\Q…\E`, and ranges, are matched as written against the normalized value.
 */
export function rewritePattern(pattern: string, ignoreCase: boolean): RewrittenPattern {
  const reader = new PatternReader(pattern);
  const problems: string[] = [];
  let source = '';
  const literal = (c: string, written: string): void => {
    if (readAlike(c, ignoreCase)) {
      source += written;
      return;
    }
    const normal = normalizeCharacters(c, ignoreCase);
    // Left out, it would make the pattern match as if the character were not asked for at all.
    if (normal === '') problems.push(`has ${show(c)}, an invisible character that values lose when normalized; a pattern cannot ask for it`);
    source += `(?:${quote(normal)})`;
  };
  while (!reader.done) {
    const c = reader.next();
    if (c === '\\') {
      if (reader.startsWith('Q')) {
        reader.next();
        const quoted = reader.until('\\E');
        for (const q of quoted.endsWith('\\E') ? quoted.slice(0, -2) : quoted) literal(q, quote(q));
        continue;
      }
      const hex = reader.hexEscape();
      if (hex !== undefined) literal(hex, `\\x{${hex.codePointAt(0)?.toString(16)}}`);
      else source += c + reader.next();
    } else if (c === '[') {
      source += readClass(reader, ignoreCase, problems);
    } else if (c === '(' && reader.startsWith('?')) {
      source += c + reader.groupOpening();
    } else {
      literal(c, c);
    }
  }
  return { source, problems };
}

/** Reads a class after its `[`, up to its `]`, rewriting the characters it can; see rewritePattern. */
function readClass(reader: PatternReader, ignoreCase: boolean, problems: string[]): string {
  let source = '[';
  if (reader.startsWith('^')) source += reader.next();
  let first = true;
  while (!reader.done && (first || !reader.startsWith(']'))) {
    first = false;
    if (reader.startsWith('[:')) {
      source += reader.until(':]');
      continue;
    }
    const [low, lowWritten] = classAtom(reader);
    if (low === undefined) {
      source += lowWritten;
      continue;
    }
    if (reader.startsWith('-') && reader.peek(1) !== ']' && reader.peek(1) !== '') {
      reader.next();
      const [high, highWritten] = classAtom(reader);
      const changed = [low, high].filter((end) => end !== undefined && !readAlike(end, ignoreCase));
      if (changed.length > 0) {
        problems.push(
          `has a range, ${lowWritten}-${highWritten}, with an end that matching reads as another character; values are ` +
            'normalized before they are matched, so write the range with normalized characters',
        );
      }
      source += `${lowWritten}-${highWritten}`;
      continue;
    }
    const normal = normalizeCharacters(low, ignoreCase);
    if (readAlike(low, ignoreCase)) {
      source += lowWritten;
    } else if ([...normal].length === 1) {
      source += quote(normal);
    } else {
      problems.push(
        `has ${show(low)} in a character class, which matching reads as ${show(normal)}; values are normalized ` +
          'before they are matched, so write the normalized text outside the class',
      );
      source += lowWritten;
    }
  }
  if (!reader.done) source += reader.next();
  return source;
}

/** One member of a class: its character and how it was written, or no character (a `\d`, `\pL`, …) and its text. */
function classAtom(reader: PatternReader): [string | undefined, string] {
  const c = reader.next();
  if (c !== '\\') return [c, c];
  const hex = reader.hexEscape();
  if (hex !== undefined) return [hex, `\\x{${hex.codePointAt(0)?.toString(16)}}`];
  const escaped = reader.next();
  if (escaped === 'p' || escaped === 'P') return [undefined, `\\${escaped}${reader.startsWith('{') ? reader.until('}') : reader.next()}`];
  return /^[a-zA-Z0-9]$/.test(escaped) ? [undefined, `\\${escaped}`] : [escaped, `\\${escaped}`];
}

/** The pattern with group names taken out, for a checker that reads JavaScript syntax: names change no match. */
export function withoutGroupNames(pattern: string): string {
  const reader = new PatternReader(pattern);
  let source = '';
  while (!reader.done) {
    const c = reader.next();
    if (c === '\\') {
      source += c + reader.next();
    } else if (c === '[') {
      source += c;
      if (reader.startsWith('^')) source += reader.next();
      if (reader.startsWith(']')) source += reader.next();
      while (!reader.done && !reader.startsWith(']')) {
        const member = reader.next();
        source += member === '\\' || (member === '[' && reader.startsWith(':')) ? member + (member === '\\' ? reader.next() : reader.until(':]')) : member;
      }
      if (!reader.done) source += reader.next();
    } else if (c === '(' && (reader.startsWith('?P<') || reader.startsWith('?<')) && !reader.startsWith('?<=') && !reader.startsWith('?<!')) {
      reader.until('>');
      source += '(';
    } else {
      source += c;
    }
  }
  return source;
}
