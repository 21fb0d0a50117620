import type { FullstoryConfig } from '@shared/integrations/fullstory';
import { isSuccessStatus } from '../runtime/http-client';
import { collectPages, deletionFailure, statusFailure, testWith } from '../saas';
import type { Driver, DriverContext, Outcome } from '../types';
import { credential, jsonBody } from '../runtime/vendor-http';
import { fullstoryClient, fullstoryStyle as style, usersOf } from './client';

const clientFor = (ctx: Pick<DriverContext<FullstoryConfig>, 'http' | 'config' | 'secrets'>) =>
  fullstoryClient(ctx.http, ctx.config, credential(ctx, 'apiKey'));

/** What a Fullstory-generated user id is made of (the document's example: "987654321"). */
const FULLSTORY_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Pages of users with one uid read at most; more fails rather than follow part of them. */
const MAX_PAGES = 20;

/** The Fullstory ids of every user with this uid, or why the list failed. */
function usersWithUid(ctx: DriverContext<FullstoryConfig>): Promise<string[] | Outcome> {
  const client = clientFor(ctx);
  return collectPages<string>(
    MAX_PAGES,
    `Fullstory lists more than ${MAX_PAGES} pages of users with this uid; nothing was deleted`,
    async (cursor) => {
      const response = await client.listByUid(ctx.identifier, cursor);
      if (!isSuccessStatus(response.status)) return { failure: deletionFailure(style, response, ctx.now) };
      const { users, next } = usersOf(jsonBody(response));
      return { ids: users.map((user) => user.id), next };
    },
  );
}

const nothingToDelete = (what: string): Outcome => ({
  kind: 'success',
  message: `Fullstory has no user with this ${what}: nothing to delete`,
  evidence: { userFound: false },
});

/**
 * Asks Fullstory to delete the users (by uid: every user with it; by id: that one user), then
 * follows each by GetUser: `is_being_deleted` while Fullstory removes it, 404 once it is gone,
 * which is the proof. Fullstory's users API publishes no operation to poll for a deletion.
 */
export const fullstoryDriver: Driver<FullstoryConfig> = {
  type: 'FULLSTORY',
  async: true,
  canCancel: () => false,
  expectedCompletion: 'minutes to days (Fullstory removes a user and its sessions in the background)',

  async requestDeletion(ctx) {
    const client = clientFor(ctx);
    if (ctx.config.identifierType === 'id') {
      // Part of the path: a value like ".." would address another resource, so only an id's characters pass.
      if (!FULLSTORY_ID.test(ctx.identifier))
        return { kind: 'failed', reason: 'The identifier is not a Fullstory user id (letters, digits, - and _)' };
      const deleted = await client.deleteById(ctx.identifier);
      if (deleted.status === 404) return nothingToDelete('id');
      if (!isSuccessStatus(deleted.status)) return deletionFailure(style, deleted, ctx.now);
      return {
        kind: 'accepted',
        trackingId: ctx.identifier,
        status: 'PROCESSING',
        message: 'Fullstory accepted the deletion of the user',
      };
    }
    const ids = await usersWithUid(ctx);
    if (!Array.isArray(ids)) return ids;
    if (ids.length === 0) return nothingToDelete('uid');
    const deleted = await client.deleteByUid(ctx.identifier);
    // 404: removed meanwhile (a retry of this step, or someone else), which the status check confirms.
    if (!isSuccessStatus(deleted.status) && deleted.status !== 404) return deletionFailure(style, deleted, ctx.now);
    return {
      kind: 'accepted',
      trackingId: ids.join(','),
      status: 'PROCESSING',
      message: `Fullstory accepted the deletion of ${ids.length} user(s) with this uid`,
    };
  },

  async checkStatus(ctx) {
    const client = clientFor(ctx);
    const ids = (ctx.trackingId ?? '').split(',').filter(Boolean);
    let beingDeleted = 0;
    let askedAgain = 0;
    for (const id of ids) {
      const user = await client.getUser(id);
      if (user.status === 404) continue;
      if (!isSuccessStatus(user.status)) return statusFailure(style, user, ctx.now);
      if ((jsonBody(user) as { is_being_deleted?: unknown } | undefined)?.is_being_deleted === true) {
        beingDeleted++;
        continue;
      }
      // Listed and not being deleted: the deletion did not take. DELETE is idempotent, so ask again.
      const again = await client.deleteById(id);
      if (!isSuccessStatus(again.status) && again.status !== 404) return statusFailure(style, again, ctx.now);
      askedAgain++;
    }
    if (beingDeleted + askedAgain > 0)
      return {
        kind: 'pending',
        status: 'PROCESSING',
        message: `Fullstory is deleting ${beingDeleted} user(s)${askedAgain ? `; asked again for ${askedAgain} it listed as not being deleted` : ''}`,
      };
    return {
      kind: 'success',
      message: `Fullstory deleted ${ids.length} user(s); each now answers 404`,
      evidence: { fullstoryUserIds: ids, verifiedGone: true, lookupAfterDelete: 'HTTP 404' },
    };
  },

  testConnection: (ctx) =>
    // A read of users with a uid no one has: proves the key without changing anything.
    testWith(style, () => clientFor(ctx).listByUid('connection-test'), 'Fullstory accepted the API key'),
};
