// Runs the import contract against Neo4j: `npm run test:neo4j` (jest.neo4j.config.js).
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { neo4jConnectionFromEnv } from '../helpers/store';
import { describeImportContract } from './import-contract';

describeImportContract('neo4j', () => Neo4jStore.connect(neo4jConnectionFromEnv()));
