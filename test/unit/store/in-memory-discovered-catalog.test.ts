import { InMemoryDiscoveredCatalog } from '../../../lambda/store/in-memory-discovered-catalog.js';
import { discoveredCatalogContract } from '../../contract/discovered-catalog-contract.js';

discoveredCatalogContract('InMemoryDiscoveredCatalog', () => new InMemoryDiscoveredCatalog());
