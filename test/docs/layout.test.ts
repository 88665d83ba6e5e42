// The docs stay a front page and guides that say what is true now (docs/contributing.md, "Docs"): README.md is
// short, every relative link resolves, nothing refers outside the repository, and no issue numbers or dated
// diaries sit in the prose or in code comments. Each rule is a function on text, shown to refuse what it should.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const README_MAX_LINES = 300;
/** A decision record says context, decision, consequences, the deciding figure and the alternatives, briefly. */
const DECISION_MAX_LINES = 40;
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'dist-bench', 'data', 'test-artifacts', 'target', 'coverage']);

/** Files under `dir` (relative to ROOT) whose names pass `keep`, skipping build output and dependencies. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const full = path.join(ROOT, dir);
  if (!fs.existsSync(full)) return [];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : filesUnder(relative, keep);
    return keep(entry.name) ? [relative] : [];
  });
}

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const markdownFiles = () => filesUnder('.', (name) => name.endsWith('.md'));
/** README.md and docs/: the user's documentation, held to the prose rules. */
const userDocs = () => ['README.md', ...filesUnder('docs', (name) => name.endsWith('.md'))];
const codeFiles = () =>
  ['src', 'test', 'bench', 'scripts', 'explorer', 'neo4j-local', 'cypher'].flatMap((dir) => filesUnder(dir, (name) => /\.(ts|js|mjs|cypher)$/.test(name)));

/** Markdown without its fenced blocks (each line kept, blanked, so line numbers hold). */
export function withoutFences(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const open = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && open !== undefined) {
        fence = open;
        return '';
      }
      if (fence !== undefined) {
        if (line.trim().startsWith(fence) && /^(`+|~+)$/.test(line.trim())) fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** Prose: Markdown without fenced blocks and without inline code spans, where example values live. */
export const prose = (markdown: string) => withoutFences(markdown).replace(/(`+)[^`]*?\1/g, (code) => ' '.repeat(code.length));

/** The comments of a source file: `//` to the end of the line, and `/* … *\/` blocks. */
export function comments(source: string): string {
  return (source.match(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*/g) ?? []).join('\n');
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings, repeated ones numbered as GitHub numbers them. */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(match[1] ?? '');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** Relative links of a Markdown file that do not resolve: a missing file, or an anchor no heading has. */
export function brokenLinks(file: string, markdown: string, exists: (file: string) => boolean, textOf: (file: string) => string): string[] {
  const broken: string[] = [];
  for (const match of prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [pathPart = '', anchor] = target.split('#', 2);
    const resolved = pathPart === '' ? file : path.normalize(path.join(path.dirname(file), decodeURIComponent(pathPart)));
    if (resolved.startsWith('..') || path.isAbsolute(resolved)) {
      broken.push(`${file}: ${target} (outside the repository)`);
    } else if (!exists(resolved)) {
      broken.push(`${file}: ${target} (no such file)`);
    } else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(textOf(resolved)).has(anchor)) {
      broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  return broken;
}

// Built from parts, so that this file does not hold what it refuses.
const OUTSIDE = new RegExp(
  ['\\.\\./' + 'shared', 'extensions' + '\\.md', 'extensions' + ' §', 'decisions' + '\\.md', 'decisions' + ' §', 'service-' + 'interface'].join('|'),
  'i',
);
const ISSUE = new RegExp('\\b' + 'issue' + '\\s+#?\\d+', 'i');
const DATE = /(?<![\d-])20\d\d-[01]\d-[0-3]\d(?![\d])/;
const CLOCK = /(?<![\d.:])[0-2]?\d:[0-5]\d(?![\d:])/;

/** What a text must not hold, with the line of each finding. */
export function findings(text: string, rules: Record<string, RegExp>): string[] {
  return text.split('\n').flatMap((line, i) =>
    Object.entries(rules)
      .filter(([, rule]) => rule.test(line))
      .map(([name]) => `line ${i + 1}: ${name}: ${line.trim().slice(0, 120)}`),
  );
}

const PROSE_RULES = { 'refers outside the repository': OUTSIDE, 'an issue number': ISSUE, 'a date': DATE, 'a clock time': CLOCK };
const COMMENT_RULES = { 'refers outside the repository': OUTSIDE, 'an issue number': ISSUE, 'a date': DATE };

/**
 * Samples the rules must refuse, put together from parts so that this file itself holds no outside reference, issue
 * number or dated diary.
 */
const REFUSED = {
  until: ['Until', '2026-11-25', 'it kept the text.'].join(' '),
  issue: ['Made faster by', 'Issue', '17.'].join(' '),
  outside: ['See', ['..', 'shared', 'spec', 'x.md.'].join('/')].join(' '),
};

describe('the rules, on samples', () => {
  test('when prose holds an issue number, a date or a clock time, then it is refused; in code it is an example', () => {
    expect(findings(prose('The run at 21:58 was slower.'), PROSE_RULES)).toHaveLength(1);
    expect(findings(prose(REFUSED.until), PROSE_RULES)).toHaveLength(1);
    expect(findings(prose(REFUSED.issue), PROSE_RULES)).toHaveLength(1);
    expect(findings(prose(REFUSED.outside), PROSE_RULES)).toHaveLength(1);
    expect(findings(prose('In Berlin `2026-03-29` runs from `2026-03-28T23:00Z`; Bolt on `127.0.0.1:7687`.'), PROSE_RULES)).toEqual([]);
    expect(findings(prose('```sh\ncurl …\n# {"at":"2026-11-24T08:13:42.101Z"}\n```\nAfter it.'), PROSE_RULES)).toEqual([]);
    expect(findings(prose('Served on http://localhost:8080 and 10.0.0.7:7474, ratio 2:1 is 2 to 1.'), { clock: CLOCK })).toEqual([]);
  });

  test('when a comment holds a dated diary or an issue number, then it is refused; code beside it is not read', () => {
    expect(findings(comments('const x = 1; // measured 2026-11-25\n'), COMMENT_RULES)).toHaveLength(1);
    expect(findings(comments(`/**\n * ${REFUSED.issue}\n */\n`), COMMENT_RULES)).toHaveLength(1);
    expect(findings(comments("const url = 'http://x/2026-11-25'; // a link\n"), COMMENT_RULES)).toEqual([]);
  });

  test('when a link names a missing file or heading, then it is broken; a good one is not', () => {
    const files: Record<string, string> = { 'docs/a.md': '# A guide\n\n## Run it: `npm test`, twice\n\n## Run it: `npm test`, twice\n', 'README.md': '' };
    const exists = (file: string) => file in files;
    const textOf = (file: string) => files[file] ?? '';
    const check = (link: string) => brokenLinks('README.md', `See [it](${link}).`, exists, textOf);
    expect(check('docs/a.md')).toEqual([]);
    expect(check('docs/a.md#run-it-npm-test-twice')).toEqual([]);
    expect(check('docs/a.md#run-it-npm-test-twice-1')).toEqual([]);
    expect(check('docs/b.md')).toHaveLength(1);
    expect(check('docs/a.md#run')).toHaveLength(1);
    expect(check('../outside.md')).toHaveLength(1);
    expect(check('https://example.com/x.md')).toEqual([]);
    expect(brokenLinks('README.md', '```sh\n[not a link](nowhere.md)\n```\n', exists, textOf)).toEqual([]);
  });
});

describe('the repository', () => {
  test(`when README.md is read, then it has at most ${README_MAX_LINES} lines`, () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  test('when every Markdown file is read, then each relative link resolves to a file, and each anchor to a heading', () => {
    const exists = (file: string) => fs.existsSync(path.join(ROOT, file));
    const broken = markdownFiles().flatMap((file) => brokenLinks(file, read(file), exists, read));
    expect(broken).toEqual([]);
  });

  test('when README.md and docs/ are read, then their prose names no issue, no date or time of a run, nothing outside the repository', () => {
    const found = userDocs().flatMap((file) => findings(prose(read(file)), PROSE_RULES).map((f) => `${file} ${f}`));
    expect(found).toEqual([]);
  });

  test('when any Markdown file is read, then it refers to nothing outside the repository and names no issue', () => {
    const found = markdownFiles().flatMap((file) =>
      findings(read(file), { 'refers outside the repository': OUTSIDE, 'an issue number': ISSUE }).map((f) => `${file} ${f}`),
    );
    expect(found).toEqual([]);
  });

  test('when the comments of the code are read, then they name no issue and nothing outside the repository, and outside test/ no date', () => {
    const self = path.join('test', 'docs', 'layout.test.ts');
    const found = codeFiles()
      .filter((file) => file !== self)
      .flatMap((file) => {
        // Tests' comments may explain their example dates (a daylight saving switch); the service's may not date a run.
        const { 'a date': date, ...rules } = COMMENT_RULES;
        const applied = file.startsWith(`test${path.sep}`) ? rules : { ...rules, 'a date': date };
        return findings(comments(read(file)), applied).map((f) => `${file} ${f}`);
      });
    expect(found).toEqual([]);
  });

  test(`when docs/decisions/ is read, then each record is numbered, at most ${DECISION_MAX_LINES} lines, and listed in its README`, () => {
    const records = filesUnder(path.join('docs', 'decisions'), (name) => name !== 'README.md' && name.endsWith('.md')).map((file) => path.basename(file));
    expect(records.length).toBeGreaterThan(0);
    const index = read(path.join('docs', 'decisions', 'README.md'));
    const wrong = records.filter((name) => !/^\d{4}-[a-z0-9-]+\.md$/.test(name) || !index.includes(`](${name})`));
    const long = records.filter(
      (name) =>
        read(path.join('docs', 'decisions', name))
          .trimEnd()
          .split('\n').length > DECISION_MAX_LINES,
    );
    expect({ wrong, long }).toEqual({ wrong: [], long: [] });
  });

  test('when docs/errors.md and openapi.yaml are read, then each lists every error code of src/domain/errors.ts', () => {
    const union = /export type ErrorCode =([^;]+);/.exec(read('src/domain/errors.ts'));
    const codes = [...(union?.[1] ?? '').matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    expect(codes.length).toBeGreaterThan(30);
    const errorsDoc = read('docs/errors.md');
    const openapi = read('openapi.yaml');
    expect(codes.filter((code) => !errorsDoc.includes(`\`${code}\``))).toEqual([]);
    expect(codes.filter((code) => !new RegExp(`^\\s+- ${code}$`, 'm').test(openapi))).toEqual([]);
  });
});
