// Set by global-setup.js when it starts a server of its own, called by global-teardown.js to stop it.
// eslint-disable-next-line no-var -- only `var` declares a property of globalThis
declare var __IDLINK_NEO4J_STOP__: (() => Promise<unknown>) | undefined;
