import { describe, expect, it } from 'vitest';
import { actionLabel, actorLabel, splitDetails } from './audit';

describe('audit entry presentation', () => {
  it('labels known and unknown actions', () => {
    expect(actionLabel('pat.revoked')).toBe('Access token revoked');
    expect(actionLabel('integration_request.check_status')).toBe('Integration request check status');
  });

  it('names who acted and through what', () => {
    expect(actorLabel({ actorType: 'user:pat', actorId: 'u', actorName: 'Jane' })).toBe('Jane (API token)');
    expect(actorLabel({ actorType: 'system', actorId: null, actorName: null })).toBe('System');
  });

  it('keeps short values inline and HTTP exchanges as expandable blocks', () => {
    const { facts, blocks } = splitDetails({
      workspaceId: 'ws_1',
      request: { method: 'POST', url: 'https://x' },
      sql: 'DELETE FROM users\nWHERE id = $1',
    });
    expect(facts).toEqual([['workspaceId', 'ws_1']]);
    expect(blocks.map(([key]) => key)).toEqual(['request', 'sql']);
  });
});
