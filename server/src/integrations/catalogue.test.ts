import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  integrationCatalogue,
  integrationsMarkdownTable,
  integrationTypeInfo,
  README_TABLE_END,
  README_TABLE_START,
} from '@shared/integrations';
import { INTEGRATION_TYPES } from '@shared/statuses';
import { driverFor } from './registry';

describe('connector catalogue', () => {
  it('the README integrations table is the one generated from the catalogue (npm run docs:integrations)', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const block = readme
      .slice(readme.indexOf(README_TABLE_START) + README_TABLE_START.length, readme.indexOf(README_TABLE_END))
      .trim();
    expect(block).toBe(integrationsMarkdownTable(integrationTypeInfo));
    for (const type of INTEGRATION_TYPES) expect(block).toContain(integrationTypeInfo[type]!.label);
  });

  it("declares each connector's capabilities as its driver has them", () => {
    for (const type of INTEGRATION_TYPES) {
      const driver = driverFor(type)!;
      const { capabilities } = integrationCatalogue[type];
      const polls = driver.async !== false && typeof driver.checkStatus === 'function';
      expect([type, 'status', capabilities.status]).toEqual([type, 'status', polls]);
      expect([type, 'cancel', capabilities.cancel]).toEqual([type, 'cancel', typeof driver.cancel === 'function']);
    }
  });
});
