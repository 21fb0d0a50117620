import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '../tokens/personal-access-tokens';
import { callerFor, createTestEnv, seedOrganization, startTestServer, type TestEnv } from '../../test/harness';

// One person, several requests: found by any identifier as its type compares it, warned of
// (or answered) instead of recorded twice, and listed together across the workspaces.
let env: TestEnv;
let server: Awaited<ReturnType<typeof startTestServer>>;
let org: Awaited<ReturnType<typeof seedOrganization>>;
let other: Awaited<ReturnType<typeof seedOrganization>>;
let secondWorkspace: { id: string; apiKey: string };

const owner = () => callerFor(env.deps, { pat: org.pat }).caller;
const unreachable = { initiate: { url: 'http://127.0.0.1:9/erase' } };

beforeAll(async () => {
  env = await createTestEnv();
  server = await startTestServer(env.deps);
  org = await seedOrganization(env.deps, 'people');
  other = await seedOrganization(env.deps, 'elsewhere');
  // No worker runs in this file: each request stays queued (open) for its workspace's integration.
  const created = await owner().workspaces.create({ name: 'people second' });
  secondWorkspace = { id: created.id, apiKey: created.apiKey };
  for (const workspaceId of [org.workspace.id, secondWorkspace.id])
    await owner().integrations.create({ workspaceId, name: 'CRM', type: 'WEBHOOK', config: unreachable });
  await callerFor(env.deps, { pat: other.pat }).caller.integrations.create({
    workspaceId: other.workspace.id,
    name: 'CRM',
    type: 'WEBHOOK',
    config: unreachable,
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await env?.close();
});

async function postCreate(pat: string, body: Record<string, unknown>) {
  const response = await fetch(`${server.baseUrl}/api/public/deletion-requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': pat },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { id: string; status: string } };
}

const countRequests = (organizationId: string) => env.db.prisma.deletionRequest.count({ where: { organizationId } });

describe('searching requests by identifier', () => {
  it('finds a request by any of its identifiers, emails without case and phones in E.164, never another organization’s', async () => {
    const mine = await owner().deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'Bad-Noah.Search@Example.com',
      identifiers: [
        { type: 'phone', value: '+44 20 7946 0958' },
        { type: 'user_id', value: 'U-Search-1' },
      ],
    });
    const theirs = await callerFor(env.deps, { pat: other.pat }).caller.deletionRequests.createInWorkspace({
      workspaceId: other.workspace.id,
      identifier: 'bad-noah.search@example.com',
    });
    const found = async (identifier: string) =>
      (await owner().dashboard.searchRequests({ filter: { identifier } })).items.map((r) => r.id);

    expect(await found('BAD-NOAH.SEARCH@EXAMPLE.COM')).toEqual([mine.id]);
    expect(await found('  bad-noah.search@example.com ')).toEqual([mine.id]);
    expect(await found('+442079460958')).toEqual([mine.id]);
    expect(await found('+44 (20) 7946-0958')).toEqual([mine.id]);
    expect(await found('U-Search-1')).toEqual([mine.id]);
    // Other types keep their case: a user id is matched as written.
    expect(await found('u-search-1')).toEqual([]);
    expect(await found('bad-noah.search@example')).toEqual([]);
    const foreign = await callerFor(env.deps, { pat: other.pat }).caller.dashboard.searchRequests({
      filter: { identifier: 'BAD-NOAH.SEARCH@example.com' },
    });
    expect(foreign.items.map((r) => r.id)).toEqual([theirs.id]);
    // A bulk action on "every request matching this filter" counts the same requests.
    expect(
      await owner().deletionRequests.countMatching({ filter: { identifier: 'bad-noah.SEARCH@example.com' } }),
    ).toMatchObject({ count: 1 });
  });
});

describe('creating a request for a person with one still open', () => {
  it('return_existing answers the open request with 200 and records nothing; create (the default) records another with 201', async () => {
    const first = await postCreate(org.pat, {
      workspaceApiKey: org.workspaceApiKey,
      identifier: 'twice@example.com',
      identifiers: [{ type: 'user_id', value: 'u_twice' }],
    });
    expect(first.status).toBe(201);
    const before = await countRequests(org.organization.id);

    // Matched through another identifier than the primary one, the email in another case.
    const returned = await postCreate(org.pat, {
      workspaceApiKey: secondWorkspace.apiKey,
      identifier: 'u_twice',
      identifierType: 'user_id',
      onDuplicate: 'return_existing',
    });
    expect(returned.status).toBe(200);
    expect(returned.body.id).toBe(first.body.id);
    const byEmail = await postCreate(org.pat, {
      workspaceApiKey: org.workspaceApiKey,
      identifier: 'someone-else@example.com',
      identifiers: [{ type: 'email', value: 'TWICE@example.com' }],
      onDuplicate: 'return_existing',
    });
    expect([byEmail.status, byEmail.body.id]).toEqual([200, first.body.id]);
    expect(await countRequests(org.organization.id)).toBe(before);

    const again = await postCreate(org.pat, { workspaceApiKey: org.workspaceApiKey, identifier: 'twice@example.com' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.body.id);
    expect(await countRequests(org.organization.id)).toBe(before + 1);
  });

  it('return_existing creates when the person’s requests are all closed, or only another organization has one', async () => {
    const closed = await owner().deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'closed@example.com',
    });
    await owner().deletionRequests.cancel({ deletionRequestId: closed.id, reason: 'withdrawn' });
    const after = await postCreate(org.pat, {
      workspaceApiKey: org.workspaceApiKey,
      identifier: 'Closed@example.com',
      onDuplicate: 'return_existing',
    });
    expect(after.status).toBe(201);
    expect(after.body.id).not.toBe(closed.id);

    await callerFor(env.deps, { pat: other.pat }).caller.deletionRequests.createInWorkspace({
      workspaceId: other.workspace.id,
      identifier: 'only-there@example.com',
    });
    const here = await postCreate(org.pat, {
      workspaceApiKey: org.workspaceApiKey,
      identifier: 'only-there@example.com',
      onDuplicate: 'return_existing',
    });
    expect(here.status).toBe(201);
  });

  it('a token limited to workspaces neither sees nor answers an open request of another workspace', async () => {
    const elsewhere = await postCreate(org.pat, {
      workspaceApiKey: org.workspaceApiKey,
      identifier: 'limited@example.com',
    });
    expect(elsewhere.status).toBe(201);
    const limited = await createPersonalAccessToken(env.deps.prisma, org.actor, {
      name: 'second workspace only',
      workspaceIds: [secondWorkspace.id],
    });
    const answer = await postCreate(limited.token, {
      workspaceApiKey: secondWorkspace.apiKey,
      identifier: 'limited@example.com',
      onDuplicate: 'return_existing',
    });
    expect(answer.status).toBe(201);
    expect(answer.body.id).not.toBe(elsewhere.body.id);
  });

  it('the create form’s check names the open requests sharing any identifier, masked, and none of another organization', async () => {
    const open = await owner().deletionRequests.createInWorkspace({
      workspaceId: secondWorkspace.id,
      identifier: 'u_formcheck',
      identifierType: 'user_id',
      identifiers: [{ type: 'phone', value: '+1 415 555 0177' }],
    });
    await callerFor(env.deps, { pat: other.pat }).caller.deletionRequests.createInWorkspace({
      workspaceId: other.workspace.id,
      identifier: 'formcheck@example.com',
      identifiers: [{ type: 'phone', value: '+14155550177' }],
    });
    const duplicates = await owner().dashboard.openDuplicates({
      identifier: 'FormCheck@example.com',
      identifiers: [{ type: 'phone', value: '+1 (415) 555-0177' }],
    });
    expect(duplicates).toEqual([
      expect.objectContaining({ id: open.id, workspaceName: 'people second', status: 'STAGING' }),
    ]);
    expect(JSON.stringify(duplicates)).not.toContain('u_formcheck');
    expect(await owner().dashboard.openDuplicates({ identifier: 'nobody-yet@example.com' })).toEqual([]);
  });

  it('refuses an identifier check sent in a URL', async () => {
    const { caller, ctx } = callerFor(env.deps, { pat: org.pat });
    ctx.method = 'GET';
    await expect(caller.dashboard.openDuplicates({ identifier: 'url@example.com' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
  });
});

describe("a person's page", () => {
  it('lists every request sharing an identifier with one, across workspaces, masked, and nothing of another organization', async () => {
    const inFirst = await owner().deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'Grouped.Person@example.com',
      identifiers: [{ type: 'user_id', value: 'u_grouped' }],
    });
    const inSecond = await owner().deletionRequests.createInWorkspace({
      workspaceId: secondWorkspace.id,
      identifier: 'u_grouped',
      identifierType: 'user_id',
    });
    const byEmailOnly = await owner().deletionRequests.createInWorkspace({
      workspaceId: secondWorkspace.id,
      identifier: 'grouped.person@EXAMPLE.com',
    });
    await owner().deletionRequests.createInWorkspace({
      workspaceId: org.workspace.id,
      identifier: 'stranger@example.com',
    });
    const foreign = await callerFor(env.deps, { pat: other.pat }).caller.deletionRequests.createInWorkspace({
      workspaceId: other.workspace.id,
      identifier: 'grouped.person@example.com',
      identifiers: [{ type: 'user_id', value: 'u_grouped' }],
    });

    const page = await owner().dashboard.personRequests({ deletionRequestId: inFirst.id });
    expect(page.requests.map((r) => r.id).sort()).toEqual([inFirst.id, inSecond.id, byEmailOnly.id].sort());
    expect(new Set(page.requests.map((r) => r.workspaceName))).toEqual(new Set(['people workspace', 'people second']));
    expect(page.identifiers.map((i) => i.type)).toEqual(['email', 'user_id']);
    const text = JSON.stringify(page);
    for (const value of ['Grouped.Person@example.com', 'grouped.person@EXAMPLE.com', 'u_grouped'])
      expect(text).not.toContain(value);
    expect(text).not.toContain(foreign.id);

    // From the other side: the same person.
    const fromSecond = await owner().dashboard.personRequests({ deletionRequestId: inSecond.id });
    expect(fromSecond.requests.map((r) => r.id)).toContain(inFirst.id);
    // Another organization's request is not found, like an unknown one.
    await expect(
      callerFor(env.deps, { pat: other.pat }).caller.dashboard.personRequests({ deletionRequestId: inFirst.id }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
