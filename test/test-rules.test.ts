// House rules about the tests themselves, read from their sources: a test waits for the condition it needs (through
// waitFor in test/helpers/settling.ts, or an event), not for a set time. The few fixed sleeps left each say, in a
// comment starting "Fixed sleep:" on the line above or at the end of the line, why no condition can be awaited there.
import fs from 'node:fs';
import path from 'node:path';

const TEST = __dirname;
const MAX_FIXED_SLEEPS = 8;
/** waitFor's own pause between two looks at its condition, the one wait for a set time that stands for no event. */
const WAIT_FOR = path.join('helpers', 'settling.ts');
const REASON = /\/\/ Fixed sleep: \S.{15,}/;

/** Every .ts and .js file under test/, relative to it, but this one (whose samples break the rules on purpose). */
function testSources(dir = TEST): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testSources(full);
    return /\.(ts|js)$/.test(entry.name) && full !== __filename ? [path.relative(TEST, full)] : [];
  });
}

/**
 * A line that waits for a set time: a promise resolved by setTimeout, a sleep, delay or pause helper called, or
 * Node's timers/promises. A deadline (a setTimeout that rejects or gives up) and a socket's pause() are not.
 */
const SLEEP = /setTimeout\(\s*(?:\(\)\s*=>\s*)?(?:resolve|res|r|done)\b|(?<![.\w])(?:sleep|delay|pause)\(|timers\/promises/;

interface FixedSleep {
  line: number;
  text: string;
  /** The "Fixed sleep:" comment that says why, if there is one. */
  reason?: string;
}

/** The fixed sleeps of one source, each with its reason comment when it has one. */
function fixedSleeps(source: string): FixedSleep[] {
  const lines = source.split('\n');
  return lines.flatMap((text, i) => {
    const code = text.replace(/\/\/.*$/, '');
    if (!SLEEP.test(code) || /^\s*\*/.test(text)) return [];
    const reason = REASON.exec(text)?.[0] ?? REASON.exec(lines[i - 1] ?? '')?.[0];
    return [{ line: i + 1, text: text.trim(), ...(reason ? { reason } : {}) }];
  });
}

/** What breaks the rules in these sources: a sleep without its reason, more than MAX_FIXED_SLEEPS, waitFor's pause gone. */
function ruleBreaks(sources: Record<string, string>): string[] {
  const sleeps = Object.entries(sources).flatMap(([file, source]) =>
    fixedSleeps(source)
      .filter((sleep) => !(file === WAIT_FOR && /everyMs/.test(sleep.text)))
      .map((sleep) => ({ ...sleep, file })),
  );
  const breaks = sleeps
    .filter((sleep) => !sleep.reason)
    .map((sleep) => `${sleep.file}:${sleep.line} sleeps with no "// Fixed sleep: <why>" comment: ${sleep.text}`);
  if (sleeps.length > MAX_FIXED_SLEEPS) {
    breaks.push(`${sleeps.length} fixed sleeps, more than ${MAX_FIXED_SLEEPS}: ${sleeps.map((sleep) => `${sleep.file}:${sleep.line}`).join(', ')}`);
  }
  return breaks;
}

const sleepLine = '  await new Promise((resolve) => setTimeout(resolve, 100));';
const withReason = `  // Fixed sleep: the pace of the body is what this test sends.\n${sleepLine}`;

describe('tests wait for conditions, not for set times', () => {
  test('when a source sleeps, then the rule sees it, and sees its reason only in a "Fixed sleep:" comment', () => {
    expect(fixedSleeps(sleepLine)).toEqual([{ line: 1, text: sleepLine.trim() }]);
    expect(fixedSleeps(withReason)).toEqual([{ line: 2, text: sleepLine.trim(), reason: '// Fixed sleep: the pace of the body is what this test sends.' }]);
    expect(fixedSleeps(`${sleepLine} // Fixed sleep: a ping that must never come marks no moment.`)).toHaveLength(1);
    expect(fixedSleeps(`  // Let the lines land.\n${sleepLine}`)[0]?.reason).toBeUndefined();
    for (const sleeping of [
      'await sleep(1500);',
      'await delay(50);',
      "import { setTimeout } from 'node:timers/promises';",
      'await new Promise<void>((r) => setTimeout(r, 5));',
      'await new Promise((resolve) => setTimeout(() => resolve(undefined), 20));',
    ]) {
      expect([sleeping, fixedSleeps(sleeping)]).toEqual([sleeping, [expect.objectContaining({ line: 1 })]]);
    }
    for (const waiting of [
      "await waitFor('the access line', () => lines().length > 0);",
      'socket.pause();',
      'timer = setTimeout(() => reject(new Error("still pending")), ms);',
      'await settle();',
      ' * waits 5 s for room, then sleep(…) is refused',
    ]) {
      expect([waiting, fixedSleeps(waiting)]).toEqual([waiting, []]);
    }
  });

  test('when sleeps lack their reason or are too many, then the rule says which', () => {
    expect(ruleBreaks({ 'a.test.ts': withReason })).toEqual([]);
    expect(ruleBreaks({ 'a.test.ts': sleepLine })).toEqual([`a.test.ts:1 sleeps with no "// Fixed sleep: <why>" comment: ${sleepLine.trim()}`]);
    const many = Array.from({ length: MAX_FIXED_SLEEPS + 1 }, () => withReason).join('\n');
    expect(ruleBreaks({ 'a.test.ts': many })).toEqual([
      expect.stringMatching(new RegExp(`^${MAX_FIXED_SLEEPS + 1} fixed sleeps, more than ${MAX_FIXED_SLEEPS}: a\\.test\\.ts:2, `)),
    ]);
  });

  test(`when the tests are read, then at most ${MAX_FIXED_SLEEPS} fixed sleeps are left, each saying why no condition can be awaited there`, () => {
    const files = testSources();
    expect(files).toContain(WAIT_FOR);
    const sources = Object.fromEntries(files.map((file) => [file, fs.readFileSync(path.join(TEST, file), 'utf8')]));
    // waitFor's pause between two looks is there: the rule below leaves out that one line and no other.
    expect(fixedSleeps(sources[WAIT_FOR] ?? '').filter((sleep) => /everyMs/.test(sleep.text))).toHaveLength(1);
    expect(ruleBreaks(sources)).toEqual([]);
  });
});
