// The shell examples of README.md and docs/: each fenced `sh` block is run, and what it prints is compared with
// the `# …` lines written under its commands. How an example is written so that this works is in
// docs/contributing.md; in short:
// - all `sh` blocks of one file run in order in one bash process, so variables carry from block to block;
// - a run of `#` lines right after a command line (no blank line between) is what the commands since the
//   previous such run print, line by line; `…` matches any text within a line; a `#` line after a blank line
//   is narrative; commands followed by no such run must print nothing;
// - `<!-- example: not run (reason) -->` on the line before the fence leaves a block out, and the test lists it;
// - the line `BASE=http://localhost:8080` is pointed at the test's own service.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freshDir, type ServerProcess, startServer } from './server-process';

export const REPO_ROOT = path.resolve(__dirname, '../..');

/** README.md and every Markdown file under docs/, relative to the repository, in a stable order. */
export function docFiles(root = REPO_ROOT): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) found.push(rel);
    }
  };
  if (fs.existsSync(path.join(root, 'docs'))) walk('docs');
  return ['README.md', ...found];
}

/** What a run of commands should print, and where it is written. */
export interface Segment {
  /** 1-based line numbers in the Markdown file of the segment's first and last command line. */
  firstLine: number;
  lastLine: number;
  /** The line of the first expected `#` line (the line after the commands when none is written). */
  expectedLine: number;
  /** The printed lines expected, `# ` taken off; empty when the commands must print nothing. */
  expected: string[];
}

export interface ShellBlock {
  file: string;
  heading: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's lines, each with its 1-based line in the file. */
  lines: Array<{ line: number; text: string }>;
  /** Why the block is not run (`<!-- example: not run (reason) -->`), else undefined. */
  notRun: string | undefined;
  segments: Segment[];
}

export interface ParsedDoc {
  file: string;
  blocks: ShellBlock[];
  /** Mistakes in how examples are written: a marker that marks no `sh` block, a shell block not fenced as `sh`. */
  problems: string[];
}

const FENCE = /^(\s{0,3})(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^<!--\s*example:\s*not run\s*\((.+)\)\s*-->\s*$/;
/** Info strings that name a shell: such a block must be `sh` (run) or marked not run, never silently left out. */
const OTHER_SHELLS = new Set(['bash', 'shell', 'zsh', 'console', 'shell-session', 'shellsession', 'terminal']);

const isExpectedLine = (text: string): boolean => text === '#' || text.startsWith('# ');
const isCommandLine = (text: string): boolean => text.trim() !== '' && !text.trimStart().startsWith('#');

/** Cuts a block's lines into segments: commands, then the `#` lines directly under them. */
export function segmentsOf(lines: Array<{ line: number; text: string }>): Segment[] {
  const segments: Segment[] = [];
  let commands: number[] = [];
  let i = 0;
  while (i < lines.length) {
    const current = lines[i] as { line: number; text: string };
    const previous = lines[i - 1];
    if (previous !== undefined && isCommandLine(previous.text) && isExpectedLine(current.text)) {
      const expectedLine = current.line;
      const expected: string[] = [];
      while (i < lines.length && isExpectedLine((lines[i] as { text: string }).text)) {
        expected.push((lines[i] as { text: string }).text.slice(2));
        i++;
      }
      segments.push({ firstLine: commands[0] ?? expectedLine, lastLine: commands[commands.length - 1] ?? expectedLine, expectedLine, expected });
      commands = [];
      continue;
    }
    if (isCommandLine(current.text)) commands.push(current.line);
    i++;
  }
  if (commands.length > 0) {
    const last = commands[commands.length - 1] as number;
    segments.push({ firstLine: commands[0] as number, lastLine: last, expectedLine: last + 1, expected: [] });
  }
  return segments;
}

/** The `sh` blocks of one Markdown text, with the heading above each and whether it is marked not run. */
export function parseDoc(file: string, markdown: string): ParsedDoc {
  const source = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  const problems: string[] = [];
  let heading = '(top of the file)';
  let fence: { marker: string; info: string; line: number; notRun: string | undefined; lines: Array<{ line: number; text: string }> } | undefined;
  let pendingMarker: { reason: string; line: number } | undefined;
  source.forEach((text, index) => {
    const line = index + 1;
    if (fence) {
      const close = FENCE.exec(text);
      if (close && close[3] === '' && close[2]?.[0] === fence.marker[0] && (close[2]?.length ?? 0) >= fence.marker.length) {
        if (fence.info === 'sh') {
          blocks.push({ file, heading, line: fence.line, lines: fence.lines, notRun: fence.notRun, segments: fence.notRun ? [] : segmentsOf(fence.lines) });
        }
        fence = undefined;
      } else {
        fence.lines.push({ line, text });
      }
      return;
    }
    const open = FENCE.exec(text);
    if (open) {
      const info = (open[3] ?? '').toLowerCase();
      if (pendingMarker && info !== 'sh') problems.push(`${file}:${pendingMarker.line}: the not-run marker is not right before a \`\`\`sh fence`);
      if (OTHER_SHELLS.has(info))
        problems.push(
          `${file}:${line}: a shell block fenced as \`${info}\`: fence it as \`sh\` so the test runs it (marked not run if it cannot run in a test)`,
        );
      fence = { marker: open[2] ?? '```', info, line, notRun: info === 'sh' ? pendingMarker?.reason : undefined, lines: [] };
      pendingMarker = undefined;
      return;
    }
    if (pendingMarker) problems.push(`${file}:${pendingMarker.line}: the not-run marker is not right before a \`\`\`sh fence`);
    pendingMarker = undefined;
    const marker = MARKER.exec(text);
    if (marker) pendingMarker = { reason: (marker[1] as string).trim(), line };
    else if (/^<!--\s*example\b/.test(text)) problems.push(`${file}:${line}: write the marker as <!-- example: not run (reason) -->`);
    const title = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (title) heading = title[1] as string;
  });
  if (fence) problems.push(`${file}:${fence.line}: a fence that is never closed`);
  if (pendingMarker) problems.push(`${file}:${pendingMarker.line}: the not-run marker is not right before a \`\`\`sh fence`);
  return { file, blocks, problems };
}

/** `BASE=http://localhost:8080` (any port, also `${PORT:-8080}`; a comment may follow): the line pointed at the test's service. */
const BASE_LINE = /^BASE=http:\/\/(localhost|127\.0\.0\.1)(:\S*)?(?=\s|$)/;

/** Whether one printed line matches one expected line: `…` stands for any text, the rest must be equal. */
export function lineMatches(expected: string, actual: string): boolean {
  const pattern = expected
    .trimEnd()
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${pattern}$`, 'su').test(actual.trimEnd());
}

/** The lines a command printed: the last newline ends the last line rather than starting an empty one. */
export function printedLines(output: string): string[] {
  if (output === '') return [];
  const lines = output.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** How many printed lines past those written a diff shows. */
const MAX_EXTRA_LINES = 20;

export const blockName = (block: ShellBlock): string => `${block.file}, block "${block.heading}" (line ${block.line})`;

/**
 * Compares a segment's printed lines with what the doc says; undefined when they agree, else a readable diff that
 * names the file, the block and the lines (`-` written in the doc, `+` printed).
 */
export function compareSegment(block: ShellBlock, segment: Segment, output: string[] | undefined): string | undefined {
  const where =
    `${blockName(block)}, ` +
    (segment.firstLine === segment.lastLine ? `command of line ${segment.firstLine}` : `commands of lines ${segment.firstLine}-${segment.lastLine}`) +
    (segment.expected.length > 0 ? `, output written at line ${segment.expectedLine}` : ', which should print nothing');
  if (output === undefined) return `${where}: the commands never ran (the shell stopped before them)`;
  const length = Math.max(output.length, segment.expected.length);
  const shown = Math.min(length, segment.expected.length + MAX_EXTRA_LINES);
  let same = true;
  const diff: string[] = [];
  for (let i = 0; i < shown; i++) {
    const expected = segment.expected[i];
    const actual = output[i];
    if (expected !== undefined && actual !== undefined && lineMatches(expected, actual)) {
      diff.push(`  ${segment.expectedLine + i}  # ${expected}`);
      continue;
    }
    same = false;
    if (expected !== undefined) diff.push(`- ${segment.expectedLine + i}  # ${expected}`);
    else if (i === segment.expected.length) diff.push(i === 0 ? '- (nothing written)' : '- (nothing more written)');
    if (actual !== undefined) diff.push(`+ printed  # ${actual}`);
    else if (i === output.length) diff.push(i === 0 ? '+ (nothing printed)' : '+ (nothing more printed)');
  }
  if (length > shown) diff.push(`+ … and ${length - shown} more printed lines`);
  return same ? undefined : `${where}:\n${diff.join('\n')}`;
}

/**
 * The bash script of a file's blocks that are run, line for line where they stand in the file (so bash's own
 * messages name the file's lines). Each segment starts by sending what follows to its own output file, and the
 * line `BASE=http://localhost:8080` names `base` instead.
 */
export function scriptOf(doc: ParsedDoc, lineCount: number, base: string, outputDir: string): { script: string; outputs: Map<Segment, string> } {
  const script: string[] = Array.from({ length: lineCount }, () => '');
  const outputs = new Map<Segment, string>();
  let n = 0;
  for (const block of doc.blocks) {
    if (block.notRun) continue;
    for (const { line, text } of block.lines) script[line - 1] = text.replace(BASE_LINE, `BASE=${base}`);
    for (const segment of block.segments) {
      const file = path.join(outputDir, `segment-${++n}.out`);
      outputs.set(segment, file);
      const index = segment.firstLine - 1;
      script[index] = `exec >${JSON.stringify(file)} 2>&1; ${script[index] ?? ''}`;
    }
  }
  return { script: script.join('\n') + '\n', outputs };
}

export interface FileRun {
  /** What each segment printed (undefined: bash never reached it). */
  printed: Map<Segment, string[] | undefined>;
  /** bash's exit, or why it was stopped. */
  ending: string;
}

/** Kills bash's whole process group: a command of the examples may have started children. */
function killGroup(pid: number | undefined): void {
  try {
    if (pid !== undefined) process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

/**
 * Runs the `sh` blocks of one file in one bash process against the service at `base`, in `cwd` (where
 * `data/admin-token` is). bash gets no profile or rc file and HOME is `cwd`, so nothing of the machine's user
 * (a ~/.curlrc) changes what the examples print.
 */
export async function runDoc(doc: ParsedDoc, markdown: string, base: string, cwd: string, timeoutMs: number): Promise<FileRun> {
  const outputDir = fs.mkdtempSync(path.join(cwd, 'examples-'));
  const scriptFile = path.join(outputDir, 'examples.sh');
  const { script, outputs } = scriptOf(doc, markdown.split('\n').length, base, outputDir);
  fs.writeFileSync(scriptFile, script);
  const child = spawn('bash', ['--noprofile', '--norc', scriptFile], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, LANG: 'C.UTF-8' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let outside = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (outside += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (outside += chunk));
  const ending = await new Promise<string>((resolve) => {
    const timer = setTimeout(() => {
      killGroup(child.pid);
      resolve(`stopped after ${timeoutMs} ms`);
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(signal ? `killed by ${signal}` : `exit ${code}, the status of its last command`);
      // What an example left in the background goes with it.
      killGroup(child.pid);
    });
  });
  const printed = new Map<Segment, string[] | undefined>();
  for (const [segment, file] of outputs) {
    printed.set(segment, fs.existsSync(file) ? printedLines(fs.readFileSync(file, 'utf8').split(scriptFile).join(doc.file)) : undefined);
  }
  return { printed, ending: outside ? `${ending}; printed outside any example: ${outside}` : ending };
}

/** A service the examples of one file run against: its base URL and cwd (holding data/admin-token), and how to stop it. */
export interface ExampleService {
  server: ServerProcess;
  base: string;
  cwd: string;
  stop: () => Promise<void>;
}

/** The built service with `env`, on a free port, in a fresh folder of its own (where data/admin-token is generated). */
export async function exampleService(env: Record<string, string>): Promise<ExampleService> {
  const cwd = freshDir('idlink-doc-examples-');
  const { server, base } = await startServer({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }, cwd);
  return {
    server,
    base,
    cwd,
    stop: async () => {
      server.child.kill('SIGTERM');
      await server.exited;
    },
  };
}

/**
 * One describe per file with `sh` blocks: a fresh service for the file (`start`), its blocks run in one bash,
 * and one test per block that is run, failing with the diff of its segments. The blocks marked not run are
 * printed, with their reasons, by a test of their own.
 */
export function describeDocExamples(store: string, start: (file: string) => Promise<ExampleService>, timeoutMs: number): void {
  const docs = docFiles().map((file) => {
    const markdown = fs.readFileSync(path.join(REPO_ROOT, file), 'utf8');
    return { markdown, doc: parseDoc(file, markdown) };
  });

  test('every shell example is fenced as sh, and every not-run marker marks one', () => {
    expect(docs.flatMap(({ doc }) => doc.problems)).toEqual([]);
  });

  test('the examples not run are listed, each with its reason', () => {
    const notRun = docs.flatMap(({ doc }) => doc.blocks.filter((block) => block.notRun !== undefined));
    process.stdout.write(`Doc examples not run (${store}): ${notRun.length}\n` + notRun.map((block) => `  ${blockName(block)}: ${block.notRun}\n`).join(''));
    expect(notRun.every((block) => (block.notRun ?? '').length > 0)).toBe(true);
  });

  for (const { markdown, doc } of docs) {
    const run = doc.blocks.filter((block) => block.notRun === undefined);
    if (run.length === 0) continue;
    describe(`${doc.file} on ${store}`, () => {
      let result: FileRun | undefined;
      let failure: Error | undefined;

      beforeAll(async () => {
        try {
          const started = Date.now();
          const service = await start(doc.file);
          const ready = Date.now();
          try {
            result = await runDoc(doc, markdown, service.base, service.cwd, timeoutMs);
            process.stdout.write(`Doc examples of ${doc.file} on ${store}: service ready in ${ready - started} ms, examples ran in ${Date.now() - ready} ms\n`);
          } finally {
            await service.stop();
          }
        } catch (e) {
          failure = e instanceof Error ? e : new Error(String(e));
        }
      }, timeoutMs + 60_000);

      for (const block of run) {
        test(`${blockName(block)} prints what it says`, () => {
          if (failure !== undefined) throw failure;
          const done = result as FileRun;
          const diffs = block.segments.flatMap((segment) => compareSegment(block, segment, done.printed.get(segment)) ?? []);
          if (diffs.length > 0) throw new Error(`${diffs.join('\n\n')}\n\n(bash ended: ${done.ending})`);
        });
      }
    });
  }
}
