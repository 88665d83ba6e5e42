// ImportService.readMarks on a real store: the customers the store marks as importing (an import of another process
// sharing it) answer isImporting once read, and no longer once their mark is gone and read again; a read that
// answers after a newer one has answered is left, so an out-of-date list never replaces a newer one.
import { exportRecords, type ImportLine, ImportService } from '../../src/domain/import';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store';

let store: SqliteStore;
beforeEach(() => {
  store = new SqliteStore({ path: ':memory:' });
});
afterEach(() => store.close());

test('when another process marks a customer as importing, then isImporting answers so once the marks are read, and not once its mark is gone and they are read again', async () => {
  const imports = new ImportService(store, { nodeMaxIds: 100 });
  await store.beginImport('elsewhere');
  expect(imports.isImporting('elsewhere')).toBe(false);
  await imports.readMarks();
  expect(imports.isImporting('elsewhere')).toBe(true);
  expect(imports.isImporting('another')).toBe(false);
  await store.abandonImport('elsewhere');
  await imports.readMarks();
  expect(imports.isImporting('elsewhere')).toBe(false);
});

test('when a read of the marks answers after a newer read has answered, then the older answer is left', async () => {
  let openGate = (): void => undefined;
  const gate = new Promise<void>((resolve) => {
    openGate = resolve;
  });
  let reads = 0;
  // The store's own answer, held back at the first read only.
  const slowFirstRead = Object.assign(Object.create(store) as SqliteStore, {
    unfinishedImports: async (idleMs: number) => {
      reads += 1;
      const answer = await store.unfinishedImports(idleMs);
      if (reads === 1) await gate;
      return answer;
    },
  });
  const imports = new ImportService(slowFirstRead, { nodeMaxIds: 100 });
  await store.beginImport('elsewhere');
  const older = imports.readMarks();
  await store.abandonImport('elsewhere');
  await imports.readMarks();
  openGate();
  await older;
  expect(reads).toBe(2);
  expect(imports.isImporting('elsewhere')).toBe(false);
});

test('when an import of this process ends while a read of the marks is under way, then that read does not mark its customer as importing', async () => {
  let openRead = (): void => undefined;
  const readHeld = new Promise<void>((resolve) => {
    openRead = resolve;
  });
  // The store's answer, read at once and given only when the test says so.
  const heldRead = Object.assign(Object.create(store) as SqliteStore, {
    unfinishedImports: async (idleMs: number) => {
      const answer = await store.unfinishedImports(idleMs);
      await readHeld;
      return answer;
    },
  });
  const imports = new ImportService(heldRead, { nodeMaxIds: 100 });
  let openLines = (): void => undefined;
  const linesHeld = new Promise<void>((resolve) => {
    openLines = resolve;
  });
  async function* held(): AsyncGenerator<ImportLine> {
    await linesHeld;
    yield* exportRecords((async function* () {})());
  }
  const importing = imports.import({ kind: 'admin' }, 'here', held(), new AbortController().signal);
  while (!(await store.unfinishedImports(0)).includes('here')) await new Promise<void>((resolve) => setImmediate(resolve));
  const reading = imports.readMarks();
  openLines();
  expect(await importing).toMatchObject({ nodes: 0 });
  openRead();
  await reading;
  expect(await store.unfinishedImports(0)).toEqual([]);
  expect(imports.isImporting('here')).toBe(false);
});
