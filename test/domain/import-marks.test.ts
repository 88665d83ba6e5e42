// ImportService.readMarks on a real store: the customers the store marks as importing (an import of another process
// sharing it) answer isImporting once read, and no longer once their mark is gone and read again; a read that
// answers after a newer one has answered is left, so an out-of-date list never replaces a newer one.
import { ImportService } from '../../src/domain/import';
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
