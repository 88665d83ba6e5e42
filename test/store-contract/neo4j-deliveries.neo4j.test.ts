// Runs the delivery and showing contracts against Neo4j: `npm run test:neo4j` (jest.neo4j.config.js).
import { Neo4jStore } from '../../src/store/neo4j/neo4j-store';
import { neo4jConnectionFromEnv } from '../helpers/store';
import { describeDeliveryContract } from './deliveries-contract';
import { describeShowingContract } from './showing-contract';

const openNeo4j = () => Neo4jStore.connect(neo4jConnectionFromEnv());

describeDeliveryContract('neo4j', openNeo4j);
describeShowingContract('neo4j', openNeo4j);
