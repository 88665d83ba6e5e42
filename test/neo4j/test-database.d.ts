/** The guard of the Neo4j suites' database (test-database.js). */
import type { Driver } from 'neo4j-driver';

export declare const MARKER_LABEL: string;
export declare class ForeignDatabaseError extends Error {}
export declare function claimTestDatabase(driver: Driver, database: string, where: string): Promise<void>;
export declare function emptyTestDatabase(driver: Driver, database: string, where: string): Promise<void>;
