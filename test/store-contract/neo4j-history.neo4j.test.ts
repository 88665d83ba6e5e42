// Runs the history, change feed, graph, separation and _why contracts against Neo4j: `npm run test:neo4j` (jest.neo4j.config.js).
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { neo4jConnectionFromEnv } from '../helpers/store';
import { describeHistoryContract } from './history-contract';
import { describeChangesContract } from './changes-contract';
import { describeGraphContract } from './graph-contract';
import { describeSeparationContract } from './separation-contract';
import { describeWhyContract } from './why-contract';

const openNeo4j = () => Neo4jStore.connect(neo4jConnectionFromEnv());

describeHistoryContract('neo4j', openNeo4j);
describeChangesContract('neo4j', openNeo4j);
describeGraphContract('neo4j', openNeo4j);
describeSeparationContract('neo4j', openNeo4j);
describeWhyContract('neo4j', openNeo4j);
