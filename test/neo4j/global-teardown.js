// Global teardown of `npm run test:neo4j`: stops the container or local server global-setup.js started (none with NEO4J_URI).
module.exports = async function globalTeardown() {
  const stop = globalThis.__IDLINK_NEO4J_STOP__;
  if (stop) await stop();
};
