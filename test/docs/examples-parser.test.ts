// How the docs' examples are read, run and compared (test/helpers/doc-examples.ts), on small made-up docs: the
// conventions docs/contributing.md describes, and the failures a drifted example must give.
import fs from 'node:fs';
import path from 'node:path';
import { compareSegment, lineMatches, parseDoc, runDoc } from '../helpers/doc-examples';
import { freshDir, installCleanup } from '../helpers/server-process';

installCleanup();

const fence = '```';

const doc = (...lines: string[]): string => lines.join('\n') + '\n';

describe('reading the sh blocks of a doc', () => {
  test('when # lines follow a command line directly, then they are its output; after a blank line they are narrative', () => {
    const parsed = parseDoc(
      'docs/guide.md',
      doc('# Guide', '', '## Step one', '', `${fence}sh`, 'A=1', '', '# 1. Say hello.', 'echo hello', 'echo world', '# hello', '# world', 'true', `${fence}`),
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.blocks).toHaveLength(1);
    const [block] = parsed.blocks;
    expect(block?.heading).toBe('Step one');
    expect(block?.line).toBe(5);
    expect(block?.segments).toEqual([
      { firstLine: 6, lastLine: 10, expectedLine: 11, expected: ['hello', 'world'] },
      { firstLine: 13, lastLine: 13, expectedLine: 14, expected: [] },
    ]);
  });

  test('when a marker stands right before the fence, then the block is not run and keeps its reason; other fences are not sh blocks', () => {
    const parsed = parseDoc(
      'README.md',
      doc('## Docker', '<!-- example: not run (needs Docker) -->', `${fence}sh`, 'docker compose up', `${fence}`, '', `${fence}json`, '{}', `${fence}`),
    );
    expect(parsed.problems).toEqual([]);
    expect(parsed.blocks.map((b) => [b.heading, b.notRun, b.segments])).toEqual([['Docker', 'needs Docker', []]]);
  });

  test('when a marker is misspelt or stands before no sh fence, or a shell block is fenced as bash, then each is a problem naming its line', () => {
    const parsed = parseDoc(
      'docs/x.md',
      doc('<!-- example: skip -->', `${fence}sh`, 'true', `${fence}`, '<!-- example: not run (why) -->', '', `${fence}bash`, 'true', `${fence}`),
    );
    expect(parsed.problems).toEqual([
      'docs/x.md:1: write the marker as <!-- example: not run (reason) -->',
      'docs/x.md:5: the not-run marker is not right before a ```sh fence',
      'docs/x.md:7: a shell block fenced as `bash`: fence it as `sh` so the test runs it (marked not run if it cannot run in a test)',
    ]);
  });
});

describe('comparing what was printed', () => {
  test('when an expected line holds …, then it matches any text within that line, and only within it', () => {
    expect(lineMatches('{"token_id":"tok_…","token":"idl_bearer_…"}', '{"token_id":"tok_ab12","token":"idl_bearer_xyz"}')).toBe(true);
    expect(lineMatches('{"request_id":"…"}', '{"request_id":""}')).toBe(true);
    expect(lineMatches('204', '204   ')).toBe(true);
    expect(lineMatches('{"a":1}', '{"a":12}')).toBe(false);
    expect(lineMatches('a.c', 'abc')).toBe(false);
  });

  test('when the walkthrough\'s schema line lacks "links":true, then the diff names the file, the block and the line', () => {
    const parsed = parseDoc(
      'README.md',
      doc(
        '## Walkthrough',
        `${fence}sh`,
        "curl -s -w '\\n' -X PUT $BASE/v1/$C/schema/member",
        '# {"schema_id":"member","id_types":[{"type":"member_id","secure":false}]}',
        `${fence}`,
      ),
    );
    const block = parsed.blocks[0];
    const segment = block?.segments[0];
    if (!block || !segment) throw new Error('no block parsed');
    expect(compareSegment(block, segment, ['{"schema_id":"member","id_types":[{"type":"member_id","secure":false,"links":true}]}'])).toBe(
      [
        'README.md, block "Walkthrough" (line 2), command of line 3, output written at line 4:',
        '- 4  # {"schema_id":"member","id_types":[{"type":"member_id","secure":false}]}',
        '+ printed  # {"schema_id":"member","id_types":[{"type":"member_id","secure":false,"links":true}]}',
      ].join('\n'),
    );
    expect(compareSegment(block, segment, [])).toContain('+ (nothing printed)');
    expect(compareSegment(block, segment, undefined)).toContain('the commands never ran');
  });
});

describe('running the sh blocks of a doc in bash', () => {
  const markdown = doc(
    '# Doc',
    '## First',
    `${fence}sh`,
    'BASE=http://localhost:8080',
    'GREETING=hello    # kept for the next block',
    'echo "$BASE"',
    '# http://127.0.0.1:…',
    '',
    '# Narrative, not output.',
    "printf '%s\\n' one two; printf 'three'",
    '# one',
    '# two',
    '# three',
    `${fence}`,
    '## Skipped',
    '<!-- example: not run (a terminal of its own) -->',
    `${fence}sh`,
    'echo never',
    `${fence}`,
    '## Second',
    `${fence}sh`,
    'echo "$GREETING again"',
    'cat data/admin-token',
    '# hello again',
    '# admin-secret',
    'echo surprise',
    'no-such-command-here',
    `${fence}`,
  );

  test('when a file is run, then variables carry from block to block, BASE names the service, a marked block is left out, and each segment gets what it printed', async () => {
    const cwd = freshDir('idlink-doc-examples-unit-');
    fs.mkdirSync(path.join(cwd, 'data'));
    fs.writeFileSync(path.join(cwd, 'data', 'admin-token'), 'admin-secret\n');
    const parsed = parseDoc('docs/doc.md', markdown);
    const run = await runDoc(parsed, markdown, 'http://127.0.0.1:4567', cwd, 20_000);
    const [first, second] = parsed.blocks.filter((b) => b.notRun === undefined);
    if (!first || !second) throw new Error('blocks not parsed');
    // Had the marked block run, its `never` would have been printed into the first block's last segment.
    expect(first.segments.map((s) => compareSegment(first, s, run.printed.get(s)))).toEqual([undefined, undefined]);
    const [greeting, unexpected] = second.segments;
    if (!greeting || !unexpected) throw new Error('segments not parsed');
    expect(compareSegment(second, greeting, run.printed.get(greeting))).toBeUndefined();
    // Commands under which nothing is written must print nothing; bash's own message names the doc's line.
    expect(run.printed.get(unexpected)).toEqual(['surprise', 'docs/doc.md: line 27: no-such-command-here: command not found']);
    expect(compareSegment(second, unexpected, run.printed.get(unexpected))).toBe(
      [
        'docs/doc.md, block "Second" (line 21), commands of lines 26-27, which should print nothing:',
        '- (nothing written)',
        '+ printed  # surprise',
        '+ printed  # docs/doc.md: line 27: no-such-command-here: command not found',
      ].join('\n'),
    );
  });

  test('when an example hangs, then bash and what it started are stopped at the time limit, and the segments not reached say so', async () => {
    const hanging = doc('## Hang', `${fence}sh`, 'echo before', '# before', 'sleep 600 & wait', 'echo after', '# after', `${fence}`);
    const parsed = parseDoc('docs/hang.md', hanging);
    const run = await runDoc(parsed, hanging, 'http://127.0.0.1:4567', freshDir('idlink-doc-examples-unit-'), 1_000);
    expect(run.ending).toBe('stopped after 1000 ms');
    const [block] = parsed.blocks;
    const [before, after] = block?.segments ?? [];
    if (!block || !before || !after) throw new Error('segments not parsed');
    expect(compareSegment(block, before, run.printed.get(before))).toBeUndefined();
    expect(compareSegment(block, after, run.printed.get(after))).toBe(
      'docs/hang.md, block "Hang" (line 2), commands of lines 5-6, output written at line 7:\n- 7  # after\n+ (nothing printed)',
    );
  });
});
