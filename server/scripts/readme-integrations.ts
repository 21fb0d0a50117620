// Rewrites the integrations table of README.md from the connector catalogue.
import { readFileSync, writeFileSync } from 'node:fs';
import {
  integrationsMarkdownTable,
  integrationTypeInfo,
  README_TABLE_END,
  README_TABLE_START,
} from '@shared/integrations';

const path = new URL('../../README.md', import.meta.url);
const readme = readFileSync(path, 'utf8');
const start = readme.indexOf(README_TABLE_START);
const end = readme.indexOf(README_TABLE_END);
if (start < 0 || end < start) throw new Error(`README.md has no ${README_TABLE_START} … ${README_TABLE_END} block`);
const next = `${readme.slice(0, start + README_TABLE_START.length)}\n${integrationsMarkdownTable(integrationTypeInfo)}\n${readme.slice(end)}`;
writeFileSync(path, next);
console.log(next === readme ? 'README.md integrations table is current' : 'README.md integrations table rewritten');
