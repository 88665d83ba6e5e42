package dev.idlink.neo4jlocal;

import org.neo4j.bolt.BoltServer;
import org.neo4j.kernel.extension.ExtensionFactory;
import org.neo4j.kernel.extension.context.ExtensionContext;
import org.neo4j.kernel.lifecycle.Lifecycle;
import org.neo4j.kernel.lifecycle.LifecycleAdapter;

/**
 * Installs BoltOriginGuard before Bolt listens. Neo4j loads global extensions with the ServiceLoader
 * (META-INF/services beside the classes) and starts them before the Bolt server, whose connectors exist by then (they
 * are made at its init) but bind their port only at its start: no connection is ever accepted unguarded.
 */
public final class BoltGuardExtension extends ExtensionFactory<BoltGuardExtension.Dependencies> {
  /** What the extension needs from Neo4j's global dependencies. */
  public interface Dependencies {
    BoltServer boltServer();
  }

  public BoltGuardExtension() {
    super("idlink-bolt-origin-guard");
  }

  @Override
  public Lifecycle newInstance(ExtensionContext context, Dependencies dependencies) {
    return new LifecycleAdapter() {
      @Override
      public void start() {
        BoltOriginGuard.install(dependencies.boltServer());
      }
    };
  }
}
