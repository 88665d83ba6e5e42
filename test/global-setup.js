// Builds dist/ once per run: the child-process tests start the real server exactly as `npm start` does, and
// GET /explore serves dist/explorer (explorer/build.mjs), in-process too.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

module.exports = async function globalSetup() {
  const root = path.resolve(__dirname, '..');
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(root, 'explorer', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  process.stdout.write(
    '\nNeo4j suites not run here: npm run test:neo4j (a local Neo4j from Maven Central, Docker, or NEO4J_TEST_URI=bolt://… NEO4J_TEST_PASSWORD=…)\n',
  );
};
