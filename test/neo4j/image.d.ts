/** The pinned Neo4j image of the Neo4j suites and docker-compose.yml (image.js). */
export declare const NEO4J_TEST_IMAGE: string;
