import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmDialog } from '../dialog';
import { toDisplayError } from '../../lib/errors';
import { useTRPC } from '../../trpc';

/** The SQL `hash` rules' key: never shown, only replaced (audited as integration.hash_key_rotated). */
export function HashKeyRotation({ integrationId }: { integrationId: string }) {
  const trpc = useTRPC();
  const [confirming, setConfirming] = useState(false);
  const rotate = useMutation(
    trpc.integrations.rotateHashKey.mutationOptions({ onSuccess: () => setConfirming(false) }),
  );
  return (
    <section className="card" aria-labelledby="integration-hash-key">
      <h2 id="integration-hash-key">Hash key</h2>
      <p className="muted small">
        Hash rules write an HMAC-SHA256 of each value (<code>hmac:…</code>) with this integration&apos;s own secret key,
        which is never shown. Rotating it changes the values written from now on; values already hashed stay as they
        are.
      </p>
      <button type="button" className="button" onClick={() => setConfirming(true)}>
        Rotate hash key
      </button>
      {rotate.isSuccess ? (
        <p role="status" className="muted small">
          Rotated at {new Date(rotate.data.rotatedAt).toLocaleString()}.
        </p>
      ) : null}
      <ConfirmDialog
        open={confirming}
        title="Rotate the hash key"
        confirmLabel="Rotate key"
        busy={rotate.isPending}
        error={rotate.error ? toDisplayError(rotate.error).message : null}
        onConfirm={() => rotate.mutate({ integrationId })}
        onCancel={() => {
          setConfirming(false);
          rotate.reset();
        }}
      >
        <p>
          Values hashed after this use a new key, so the same value no longer gives the same hash as before. Anything
          that compares hashes across the rotation will stop matching.
        </p>
      </ConfirmDialog>
    </section>
  );
}
