import { serviceAccountKeySchema } from './bigquery';

/** Whether `text` is a service account's JSON key with the fields a token exchange needs. */
export function isServiceAccountKey(text: string): boolean {
  try {
    return serviceAccountKeySchema.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}
