import { InMemoryDeclaredCatalog } from '../../../lambda/store/in-memory-declared-catalog.js';
import { declaredCatalogContract } from '../../contract/declared-catalog-contract.js';

declaredCatalogContract('InMemoryDeclaredCatalog', () => new InMemoryDeclaredCatalog());
