import { inviteMemberInputSchema } from '@shared/schemas/members';
import { ROLES, type Role } from '@shared/statuses';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toDisplayError } from '../../lib/errors';
import { useFormSubmit } from '../../lib/use-form-submit';
import { formatDate } from '../../lib/format';
import { useTimeZoneChoice } from '../../lib/use-time-zone';
import { useTRPC, type RouterOutputs } from '../../trpc';
import { CopyableValue } from '../copy-button';
import { ConfirmDialog } from '../dialog';
import { SelectField, TextField } from '../field';
import { useMe } from '../me-context';
import { ErrorState, FormError, Loading } from '../states';

type Member = RouterOutputs['members']['list'][number];

const ROLE_TEXT: Record<Role, string> = {
  OWNER: 'Owner: everything, including members and retention',
  ADMIN: 'Admin: workspaces, integrations and accounts',
  MEMBER: 'Member: create and view requests',
};

/** "an owner", "an admin", "a member". */
const roleName = (role: Role) => (role === 'MEMBER' ? 'a member' : `an ${role.toLowerCase()}`);

/** Members and roles; owners invite with a one-time link, change roles and remove members. */
export function MembersSection() {
  const trpc = useTRPC();
  const me = useMe();
  const members = useQuery(trpc.members.list.queryOptions());
  // What the last confirmed change did, said here: a removed member's row is gone.
  const [done, setDone] = useState<string | null>(null);
  return (
    <section className="card" aria-labelledby="org-members">
      <h2 id="org-members">Members</h2>
      <p className="muted small" role="status">
        {done}
      </p>
      {members.isPending ? (
        <Loading />
      ) : members.isError ? (
        <ErrorState error={members.error} onRetry={() => void members.refetch()} />
      ) : (
        <ul className="list members-list">
          {members.data.map((m) => (
            <MemberRow
              key={m.id}
              member={m}
              isSelf={m.id === me.user.id}
              canManage={me.isOwner}
              onlyOwner={m.role === 'OWNER' && members.data.filter((other) => other.role === 'OWNER').length === 1}
              onDone={setDone}
            />
          ))}
        </ul>
      )}
      {me.isOwner ? <Invitations /> : <p className="muted small">Only owners invite members and change roles.</p>}
    </section>
  );
}

/** `onlyOwner`: the organization's last owner, who can be neither removed nor demoted (the server refuses both). */
function MemberRow({
  member,
  isSelf,
  canManage,
  onlyOwner,
  onDone,
}: {
  member: Member;
  isSelf: boolean;
  canManage: boolean;
  onlyOwner: boolean;
  /** Says what a confirmed change did ("Ada Lovelace is now an admin."). */
  onDone: (message: string) => void;
}) {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [confirm, setConfirm] = useState(false);
  // The role chosen in the select, applied only once confirmed (an arrow key while tabbing must not promote anyone).
  const [newRole, setNewRole] = useState<Role | null>(null);
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
    await queryClient.invalidateQueries({ queryKey: trpc.dashboard.members.queryKey() });
    if (isSelf) await queryClient.invalidateQueries({ queryKey: trpc.auth.session.queryKey() });
  };
  const changeRole = useMutation(
    trpc.members.changeRole.mutationOptions({
      onSuccess: async (_, { role }) => {
        setNewRole(null);
        onDone(`${member.name} is now ${roleName(role)}.`);
        await refresh();
      },
    }),
  );
  const remove = useMutation(
    trpc.members.remove.mutationOptions({
      onSuccess: async () => {
        setConfirm(false);
        onDone(`${member.name} was removed from the organization.`);
        await refresh();
      },
    }),
  );
  return (
    <li className="list-row member-row" aria-label={member.name}>
      <span>
        {member.name}
        {isSelf ? <span className="muted"> (you)</span> : null}
      </span>
      <span className="muted truncate">{member.email}</span>
      {canManage && !onlyOwner ? (
        <SelectField
          label={`Role of ${member.name}`}
          value={newRole ?? member.role}
          disabled={changeRole.isPending}
          onChange={(e) => {
            const role = e.target.value as Role;
            changeRole.reset();
            setNewRole(role === member.role ? null : role);
          }}
        >
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {r.toLowerCase()}
            </option>
          ))}
        </SelectField>
      ) : (
        <span className={`role role-${member.role.toLowerCase()}`}>{member.role.toLowerCase()}</span>
      )}
      <span className="muted small nowrap">since {formatDate(member.joinedAt, zone)}</span>
      {canManage && !onlyOwner ? (
        <button
          type="button"
          className="button button-small button-danger-outline"
          onClick={() => (remove.reset(), setConfirm(true))}
          aria-label={`Remove ${member.name}`}
        >
          Remove
        </button>
      ) : onlyOwner && canManage ? (
        <span className="muted small">The only owner: make someone else owner first to change this role.</span>
      ) : null}
      <ConfirmDialog
        open={confirm}
        title={`Remove ${member.name}?`}
        confirmLabel="Remove member"
        destructive
        busy={remove.isPending}
        error={remove.error ? toDisplayError(remove.error).message : null}
        onCancel={() => setConfirm(false)}
        onConfirm={() => remove.mutate({ userId: member.id })}
      >
        <p>
          {member.email} loses access to this organization at once and their access tokens for it are revoked. Requests
          they created stay.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={newRole !== null}
        title={newRole ? `Make ${member.name} ${roleName(newRole)}?` : ''}
        confirmLabel={newRole ? `Make ${roleName(newRole)}` : 'Change role'}
        cancelLabel={`Keep ${roleName(member.role)}`}
        busy={changeRole.isPending}
        error={changeRole.error ? toDisplayError(changeRole.error).message : null}
        onCancel={() => (changeRole.reset(), setNewRole(null))}
        onConfirm={() => newRole && changeRole.mutate({ userId: member.id, role: newRole })}
      >
        <p>
          {member.email} is {roleName(member.role)} now.
        </p>
        {newRole ? <p>{ROLE_TEXT[newRole]}.</p> : null}
      </ConfirmDialog>
    </li>
  );
}

function Invitations() {
  const zone = useTimeZoneChoice();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pending = useQuery(trpc.members.invitations.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.members.invitations.queryKey() });
  const invite = useMutation(trpc.members.invite.mutationOptions({ onSuccess: refresh }));
  const { errors, onSubmit, onInput } = useFormSubmit(inviteMemberInputSchema, (data, form) =>
    invite.mutate(data, { onSuccess: () => form.reset() }),
  );
  const revoke = useMutation(trpc.members.revokeInvitation.mutationOptions({ onSuccess: refresh }));
  const serverError = invite.error ? toDisplayError(invite.error) : null;
  return (
    <div className="invitations">
      <h3>Invite someone</h3>
      <form className="inline-form" noValidate onSubmit={onSubmit} onInput={onInput}>
        <TextField
          label="Email to invite"
          name="email"
          type="email"
          autoComplete="off"
          error={errors.email ?? serverError?.fieldErrors.email}
        />
        <SelectField label="Role" name="role" defaultValue="MEMBER" error={errors.role}>
          {ROLES.map((r) => (
            <option key={r} value={r}>
              {ROLE_TEXT[r]}
            </option>
          ))}
        </SelectField>
        <button type="submit" className="button button-primary" disabled={invite.isPending}>
          {invite.isPending ? 'Inviting…' : 'Create invitation link'}
        </button>
      </form>
      <FormError message={serverError && !serverError.fieldErrors.email ? serverError.message : null} />
      {invite.data ? (
        <div className="callout callout-warning" role="status">
          <p>
            Send this link to <strong>{invite.data.email}</strong> ({invite.data.role.toLowerCase()}). It works once,
            until {formatDate(invite.data.expiresAt, zone)}, and it is shown only this once.
          </p>
          <CopyableValue value={invite.data.link} label="Invitation link" />
        </div>
      ) : null}
      <h3>Pending invitations</h3>
      {pending.isPending ? (
        <Loading />
      ) : pending.isError ? (
        <ErrorState error={pending.error} onRetry={() => void pending.refetch()} />
      ) : pending.data.length === 0 ? (
        <p className="muted small">None.</p>
      ) : (
        <ul className="list">
          {pending.data.map((i) => (
            <li key={i.id} className="list-row" aria-label={`Invitation of ${i.email}`}>
              <span className="truncate">{i.email}</span>
              <span className={`role role-${i.role.toLowerCase()}`}>{i.role.toLowerCase()}</span>
              <span className="muted small nowrap">until {formatDate(i.expiresAt, zone)}</span>
              <button
                type="button"
                className="button button-small"
                disabled={revoke.isPending}
                onClick={() => revoke.mutate({ invitationId: i.id })}
              >
                Withdraw
              </button>
            </li>
          ))}
        </ul>
      )}
      <FormError message={revoke.error ? toDisplayError(revoke.error).message : null} />
    </div>
  );
}
