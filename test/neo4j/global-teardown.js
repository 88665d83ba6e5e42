// Global teardown of `npm run test:neo4j`: stops the container global-setup.js started (none with NEO4J_URI).
module.exports = async function globalTeardown() {
  const container = globalThis.__IDLINK_NEO4J_CONTAINER__;
  if (container) await container.stop();
};
